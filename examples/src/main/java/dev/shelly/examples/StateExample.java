package dev.shelly.examples;

import dev.shelly.agent.Agent;
import dev.shelly.agent.Registry;
import dev.shelly.chats.Message;
import dev.shelly.testing.Step;
import dev.shelly.state.Store;
import dev.shelly.tools.ToolBox;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A shared state store (section 14.6): a researcher writes its findings to a blackboard
 * {@link Store}, a writer reads them from there; the coordinator only says who does what. The
 * agents reach the store through its tools ({@code project_state_get}, {@code _set},
 * {@code _list}); the program reads it directly afterwards.
 */
public final class StateExample implements Example {

    @Override
    public String name() {
        return "state";
    }

    @Override
    public String description() {
        return "a researcher and a writer share findings through a state store";
    }

    @Override
    public String defaultPrompt() {
        return "Write a short article about Java virtual threads.";
    }

    @Override
    public Message run(ExampleRun run) {
        Store store = new Store();
        ToolBox stateTools = store.tools("project");   // project_state_get, project_state_set, project_state_list
        ToolBox search = ToolBox.of(DemoNotes.searchTool());

        Registry registry = new Registry()
                .register("researcher", "Finds information and stores it", () -> Agent.builder("researcher")
                        .description("Finds information and stores it")
                        .instructions("Research the topic with search_notes. Store your findings with "
                                + "project_state_set under the key 'findings', as a JSON list of short strings. "
                                + "Reply with one line saying what you stored.")
                        .completer(run.model(researcherScript()))
                        .toolboxes(search, stateTools)
                        .maxIterations(10)
                        .build())
                .register("writer", "Writes articles from stored findings", () -> Agent.builder("writer")
                        .description("Writes articles from stored findings")
                        .instructions("Read the findings with project_state_get (key 'findings') and write a short "
                                + "article from them. Store it with project_state_set under the key 'article', then "
                                + "reply with the article.")
                        .completer(run.model(writerScript()))
                        .toolboxes(stateTools)
                        .maxIterations(10)
                        .build());

        Agent coordinator = Agent.builder("coordinator")
                .description("Coordinates a researcher and a writer")
                .instructions("First have the researcher store findings on the topic, then have the writer write "
                        + "the article from the store. The data travels through the store, not through the tasks. "
                        + "Answer with the article.")
                .completer(run.model(coordinatorScript()))
                .registry(registry)
                .maxDelegationDepth(1)
                .maxIterations(10)
                .listener(run.listener())
                .build();

        Message answer = coordinator.run(run.prompt(), run.scope());

        // What the agents left in the store, read from Java.
        if (store.keys().isEmpty()) {
            run.note("[state] the store is empty: the agents did not use it");
        }
        for (String key : store.keys()) {
            String value = store.get(key).map(JsonNode::toString).orElse("");
            run.note("[state] " + key + " = " + (value.length() <= 100 ? value : value.substring(0, 99) + "…"));
        }
        return answer;
    }

    static List<Step> coordinatorScript() {
        return List.of(
                Step.delegate("researcher", "Research Java virtual threads and store your findings under 'findings'."),
                Step.delegate("writer", "Write a short article from the findings in the store; store it under 'article'."),
                Step.reply(chat -> String.join("\n", Scripts.delegationResults(chat))));
    }

    static List<Step> researcherScript() {
        return List.of(
                Step.toolCall("search_notes", Scripts.object("query", "virtual threads")),
                Scripts.call("project_state_set", chat -> {
                    ObjectNode args = Scripts.JSON.createObjectNode().put("key", "findings");
                    args.set("value", Scripts.array(findings(Scripts.lastResult(chat))));
                    return args.toString();
                }),
                Step.reply(chat -> "Stored " + findings(Scripts.allResults(chat).getFirst()).size()
                        + " findings under 'findings'."));
    }

    static List<Step> writerScript() {
        return List.of(
                Step.toolCall("project_state_get", Scripts.object("key", "findings")),
                Scripts.call("project_state_set", chat -> Scripts.JSON.createObjectNode()
                        .put("key", "article").put("value", article(Scripts.lastResult(chat))).toString()),
                Step.reply(chat -> article(Scripts.allResults(chat).getFirst())));
    }

    /** The notes in a search result, one per line starting "- ". */
    private static List<String> findings(String searchResult) {
        List<String> lines = new ArrayList<>();
        for (String line : searchResult.lines().toList()) {
            if (line.startsWith("- ")) {
                lines.add(line.substring(2));
            }
        }
        return lines;
    }

    /** An "article" from the stored findings (a JSON list of strings). */
    private static String article(String findingsJson) {
        JsonNode findings = Scripts.tree(findingsJson);
        List<String> sentences = new ArrayList<>();
        findings.forEach(f -> sentences.add(f.asString()));
        return "Java virtual threads in brief. " + String.join(" ", sentences);
    }
}
