package dev.shelly.examples;

import dev.shelly.agent.Agent;
import dev.shelly.agent.Registry;
import dev.shelly.chats.Message;
import dev.shelly.testing.Step;
import dev.shelly.tools.ToolBox;
import java.util.List;
import tools.jackson.databind.node.ObjectNode;

/**
 * Multi-agent delegation (section 14.2): an orchestrator finds workers in a {@link Registry} with
 * {@code list_agents} and hands them tasks with {@code delegate}; each delegation runs in a fresh
 * agent built by the worker's factory.
 */
public final class DelegationExample implements Example {

    @Override
    public String name() {
        return "delegation";
    }

    @Override
    public String description() {
        return "an orchestrator delegates to a researcher and a writer";
    }

    @Override
    public String defaultPrompt() {
        return "Write a short summary of what Java's virtual threads are and why they suit AI agents.";
    }

    @Override
    public Message run(ExampleRun run) {
        ToolBox search = ToolBox.of(DemoNotes.searchTool());

        // Workers: a factory per agent, so every delegation gets a fresh agent with a clean chat.
        Registry registry = new Registry()
                .register("researcher", "Searches the research notes for information", () -> Agent.builder("researcher")
                        .description("Searches the research notes for information")
                        .instructions("Find the relevant facts with search_notes and report them as a short list.")
                        .completer(run.model(researcherScript()))
                        .toolboxes(search)
                        .maxIterations(10)
                        .build())
                .register("writer", "Writes clear, short texts from given facts", () -> Agent.builder("writer")
                        .description("Writes clear, short texts from given facts")
                        .instructions("Write clear, well-structured content based only on the facts you are given.")
                        .completer(run.model(writerScript()))
                        .maxIterations(5)
                        .build());

        // The orchestrator gets list_agents and delegate from the registry.
        Agent orchestrator = Agent.builder("orchestrator")
                .description("Coordinates research and writing")
                .instructions("Break the task into research and writing: have the researcher find the facts, then "
                        + "give them to the writer as context. Answer with the writer's text.")
                .completer(run.model(orchestratorScript()))
                .registry(registry)
                .maxIterations(10)
                .maxDelegationDepth(2)
                .listener(run.listener())
                .build();

        return orchestrator.run(run.prompt(), run.scope());
    }

    static List<Step> orchestratorScript() {
        return List.of(
                Step.toolCall("list_agents", "{}").withText("Let me see who can help."),
                Step.delegate("researcher", "Find the key facts about Java virtual threads and why they suit AI agents.",
                        "The user wants a short summary for developers."),
                Scripts.call("delegate", chat -> {
                    ObjectNode task = Scripts.JSON.createObjectNode()
                            .put("agent", "writer")
                            .put("task", "Write a three-sentence summary of Java virtual threads for developers.")
                            .put("context", String.join("\n", Scripts.delegationResults(chat)));
                    ObjectNode args = Scripts.JSON.createObjectNode();
                    args.putArray("tasks").add(task);
                    return args.toString();
                }),
                Step.reply(chat -> String.join("\n", Scripts.delegationResults(chat))));
    }

    static List<Step> researcherScript() {
        return List.of(
                Step.toolCall("search_notes", Scripts.object("query", "virtual threads agents waiting")),
                Step.reply(chat -> "Findings:\n" + Scripts.lastResult(chat)));
    }

    static List<Step> writerScript() {
        return List.of(Step.reply("Java's virtual threads, final since Java 21, are lightweight threads that the JVM "
                + "schedules itself, so one program can run millions of them. A virtual thread that waits on I/O gives "
                + "its carrier thread back, which makes waiting almost free. That suits AI agents, which mostly wait on "
                + "models and tools: every delegated agent and every tool call can simply have a thread of its own."));
    }
}
