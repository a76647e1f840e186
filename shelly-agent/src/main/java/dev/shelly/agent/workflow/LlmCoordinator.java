package dev.shelly.agent.workflow;

import dev.shelly.agent.StructuredOutput;
import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.ResponseFormat;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The coordinator that asks a model who acts next ({@link Coordinator#llm(Completer, int, int)}):
 * a fresh two-message chat per step (the team in the system prompt {@link #systemPrompt}, the
 * recent shared chat in {@link #conversation}), the answer asked for as structured output of the
 * schema {@link #format}, and one retry with {@link #correction} after an invalid answer.
 *
 * <p>The seed keeps one reasoning chat for the whole run; this coordinator starts a fresh one
 * per step instead, since the window already shows who did what, and a chat that grew by a
 * window per step would cost more with every step and say nothing new.
 */
final class LlmCoordinator implements Coordinator {
    /** The number of shared messages shown to the model unless set. */
    static final int DEFAULT_WINDOW = 20;
    /** The number of steps allowed unless set. */
    static final int DEFAULT_MAX_ROUNDS = 10;
    /** The sender of the coordinator's own prompt messages. */
    static final String SENDER = "coordinator";

    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** The answer's shape: who acts next, or done. */
    record Decision(List<String> members, boolean done) {}

    /** The structured output every step asks for. */
    static final StructuredOutput<Decision> OUTPUT = StructuredOutput.of(Decision.class);

    private final Completer completer;
    private final int maxRounds;
    private final int window;

    LlmCoordinator(Completer completer, int maxRounds, int window) {
        if (completer == null) {
            throw new IllegalArgumentException("Coordinator.llm model must not be null");
        }
        if (maxRounds < 0) {
            throw new IllegalArgumentException("Coordinator.llm maxRounds must not be negative, was " + maxRounds);
        }
        if (window < 1) {
            throw new IllegalArgumentException("Coordinator.llm window must be at least 1, was " + window);
        }
        this.completer = completer;
        this.maxRounds = maxRounds;
        this.window = window;
    }

    @Override
    public Selection next(Turn turn) {
        List<Message> messages = new ArrayList<>(4);
        messages.add(Message.system(systemPrompt(turn.members())));
        messages.add(Message.text(SENDER, Role.USER, conversation(turn.shared())));
        ResponseFormat.JsonSchema format = format(turn.names());
        ModelResponse response = ask(messages, format);
        Parsed parsed = parse(response, turn.names());
        if (parsed.problem() != null && parsed.correctable()) {
            messages.add(response.message());
            messages.add(Message.text(SENDER, Role.USER,
                    correction(parsed.problem(), turn.members().getFirst().name())));
            response = ask(messages, format);
            parsed = parse(response, turn.names());
            if (parsed.problem() != null) {
                throw new TeamException(turn.team(), null, "the LLM coordinator of team '" + turn.team()
                        + "' gave no valid answer at step " + turn.step() + ", after a retry: " + parsed.problem()
                        + "; its answer was " + Failures.abbreviate(response.message().text()), null);
            }
        } else if (parsed.problem() != null) {
            throw new TeamException(turn.team(), null, "the LLM coordinator of team '" + turn.team()
                    + "' gave no valid answer at step " + turn.step() + ": " + parsed.problem()
                    + "; its answer was " + Failures.abbreviate(response.message().text()), null);
        }
        Selection selection = parsed.selection();
        if (maxRounds > 0 && turn.step() >= maxRounds && !selection.done()) {
            throw new MaxRoundsException(turn.team(), maxRounds, "step");
        }
        return selection;
    }

    private ModelResponse ask(List<Message> messages, ResponseFormat.JsonSchema format) {
        ModelResponse response = completer.complete(ModelRequest.builder().messages(messages)
                .responseFormat(format).build());
        if (response == null) {
            throw new IllegalStateException("the coordinator's completer returned null instead of a response");
        }
        return response;
    }

    /**
     * The response format every step asks for: the schema of the answer, with the members' names
     * the only values {@code members} may hold:
     *
     * <pre>
     * {"type":"object","properties":{"members":{"type":"array","items":{"type":"string","enum":["researcher","writer"]}},
     *  "done":{"type":"boolean"}},"required":["members","done"],"additionalProperties":false}
     * </pre>
     *
     * An answer is still checked against the names, so a model that ignores the schema is told
     * which member does not exist.
     *
     * @param names the members' names
     * @return the format, named {@code Decision}
     */
    static ResponseFormat.JsonSchema format(List<String> names) {
        ObjectNode schema = (ObjectNode) JSON.readTree(OUTPUT.format().schema());
        ArrayNode allowed = ((ObjectNode) schema.path("properties").path("members").path("items")).putArray("enum");
        names.forEach(allowed::add);
        return ResponseFormat.jsonSchema(OUTPUT.format().name(), JSON.writeValueAsString(schema), OUTPUT.format().strict());
    }

    /**
     * The system prompt for a team of these members:
     *
     * <pre>
     * You are a team coordinator. Based on the conversation, decide which team member(s) should act next.
     *
     * Team members:
     * - "researcher" (role: research) — Searches the web for information
     * - "writer" (role: write) — Writes articles and summaries
     *
     * Respond with ONLY a JSON object (no markdown, no explanation):
     * {"members": ["researcher"], "done": false}
     *
     * Name several members to have them work at the same time. When the work is complete, respond:
     * {"members": [], "done": true}
     * </pre>
     *
     * A member without a description has no dash part; the example names the first member.
     *
     * @param members the team's members
     * @return the prompt
     */
    static String systemPrompt(List<Team.Member> members) {
        StringBuilder sb = new StringBuilder("You are a team coordinator. Based on the conversation, decide which team "
                + "member(s) should act next.\n\nTeam members:\n");
        for (Team.Member m : members) {
            sb.append("- ").append(JSON.writeValueAsString(m.name())).append(" (role: ").append(m.role()).append(')');
            if (!m.description().isBlank()) {
                sb.append(" — ").append(m.description().strip());
            }
            sb.append('\n');
        }
        sb.append("\nRespond with ONLY a JSON object (no markdown, no explanation):\n")
                .append(example(members.getFirst().name()))
                .append("\n\nName several members to have them work at the same time. When the work is complete, "
                        + "respond:\n{\"members\": [], \"done\": true}");
        return sb.toString();
    }

    private static String example(String member) {
        return "{\"members\": [" + JSON.writeValueAsString(member) + "], \"done\": false}";
    }

    /**
     * The user message showing the shared chat: {@code Recent conversation:}, then one line
     * {@code [sender] text} per message of the window (messages without text left out), then
     * {@code Who should act next?}:
     *
     * <pre>
     * Recent conversation:
     * [user] Write about X
     * [researcher] Found: ...
     *
     * Who should act next?
     * </pre>
     *
     * An empty window shows {@code (no messages yet)}.
     *
     * @param shared the shared chat
     * @return the message's text
     */
    String conversation(Chat shared) {
        List<Message> all = shared.messages();
        List<Message> recent = all.subList(Math.max(0, all.size() - window), all.size());
        StringBuilder sb = new StringBuilder("Recent conversation:\n");
        int shown = 0;
        for (Message m : recent) {
            String text = m.text().strip();
            if (!text.isEmpty()) {
                sb.append('[').append(m.sender()).append("] ").append(text).append('\n');
                shown++;
            }
        }
        if (shown == 0) {
            sb.append("(no messages yet)\n");
        }
        return sb.append("\nWho should act next?").toString();
    }

    /**
     * What the model is told after an invalid answer, for example:
     *
     * <pre>
     * Your answer was not valid: it is not valid JSON (...). Respond with ONLY a JSON object such as {"members": ["researcher"], "done": false} or {"members": [], "done": true}.
     * </pre>
     *
     * @param problem what was wrong
     * @param member the member the example names
     * @return the message's text
     */
    static String correction(String problem, String member) {
        return "Your answer was not valid: " + problem + ". Respond with ONLY a JSON object such as "
                + example(member) + " or {\"members\": [], \"done\": true}.";
    }

    /** A checked answer: a selection, or what is wrong with it and whether a retry may help. */
    record Parsed(Selection selection, String problem, boolean correctable) {}

    /** Checks an answer given as text, as a plain reply would carry it. */
    static Parsed parse(String answer, List<String> names) {
        return parse(ModelResponse.of(Message.text("model", Role.ASSISTANT, answer)), names);
    }

    static Parsed parse(ModelResponse response, List<String> names) {
        StructuredOutput.Binding<Decision> binding = OUTPUT.bind(response);
        if (binding instanceof StructuredOutput.Binding.Mismatch<Decision> mismatch) {
            return new Parsed(null, String.join("; ", mismatch.problems()), mismatch.correctable());
        }
        Decision decision = ((StructuredOutput.Binding.Bound<Decision>) binding).value();
        List<String> chosen = new ArrayList<>(decision.members().size());
        Set<String> seen = new HashSet<>();
        for (String name : decision.members()) {
            if (!names.contains(name)) {
                return invalid("there is no member " + JSON.writeValueAsString(name) + "; the members are "
                        + quoted(names));
            }
            if (!seen.add(name)) {
                return invalid("member " + JSON.writeValueAsString(name) + " is named twice");
            }
            chosen.add(name);
        }
        if (decision.done() && !chosen.isEmpty()) {
            return invalid("\"done\" is true but \"members\" is not empty; either name who acts next with "
                    + "\"done\": false, or name nobody with \"done\": true");
        }
        if (!decision.done() && chosen.isEmpty()) {
            return invalid("\"members\" is empty but \"done\" is false; name at least one member, or say \"done\": true");
        }
        return new Parsed(decision.done() ? Selection.DONE : Selection.of(chosen), null, false);
    }

    private static Parsed invalid(String problem) {
        return new Parsed(null, problem, true);
    }

    private static String quoted(List<String> names) {
        List<String> q = new ArrayList<>(names.size());
        for (String n : names) {
            q.add(JSON.writeValueAsString(n));
        }
        return String.join(", ", q);
    }

    /**
     * The most steps in which members run.
     *
     * @return the limit; 0 means none
     */
    int maxRounds() {
        return maxRounds;
    }

    /**
     * How many of the shared chat's last messages the model sees.
     *
     * @return the window
     */
    int window() {
        return window;
    }

    @Override
    public String toString() {
        return "LlmCoordinator[maxRounds " + maxRounds + ", window " + window + "]";
    }
}
