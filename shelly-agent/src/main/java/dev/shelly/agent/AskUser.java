package dev.shelly.agent;

import dev.shelly.chats.ToolDefinition;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolOutput;
import tools.jackson.databind.JsonNode;

/**
 * The {@code ask_user} tool: the model asks the person a question and reads the answer as the
 * call's result. Offer it by adding {@link #toolbox()} to an agent. A call always pauses the run
 * (through the run's {@link Approvals}, as an approval does, as a {@link PendingCall.Kind#QUESTION}
 * whose reason is the question); {@link Answer#reply} answers it, {@link Answer#deny} refuses
 * it. A policy may deny the tool; it never runs without an answer.
 */
public final class AskUser {
    /** The tool's name. */
    public static final String NAME = "ask_user";

    /** The field the answer travels in, from the decision to the tool; the model never sends it. */
    static final String ANSWER = "answer";

    /** What the model is told. */
    public static final ToolDefinition DEFINITION = new ToolDefinition(NAME,
            "Ask the user a question and wait for the answer. Use it when you need a decision or a fact only the "
                    + "user has; ask one clear question.",
            """
            {"type":"object","properties":{"question":{"type":"string","description":"The question, complete and \
            self-contained"}},"required":["question"]}""");

    private AskUser() {}

    /**
     * A toolbox holding {@code ask_user}.
     *
     * @return the toolbox
     */
    public static ToolBox toolbox() {
        return ToolBox.of(new Tool(DEFINITION, (input, ctx) -> answer(input), null));
    }

    private static ToolOutput answer(JsonNode input) {
        JsonNode answer = input.get(ANSWER);
        if (answer == null || !answer.isString()) {
            return ToolOutput.error("nobody answered: this run has no person to ask (no Approvals); "
                    + "go on without the answer or say what you need");
        }
        return ToolOutput.text(answer.stringValue());
    }

    /** The question of a call, or a note when the model sent none. */
    static String question(String arguments) {
        try {
            JsonNode node = Approvals.JSON.readTree(arguments);
            JsonNode q = node == null ? null : node.get("question");
            if (q != null && q.isString() && !q.stringValue().isBlank()) {
                return q.stringValue();
            }
        } catch (RuntimeException e) {
            // fall through: the model's arguments are not JSON
        }
        return "(the model asked without a question: " + arguments + ")";
    }
}
