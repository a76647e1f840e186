package dev.shelly.examples;

import dev.shelly.agent.Agent;
import dev.shelly.agent.Runner;
import dev.shelly.agent.workflow.AgentTool;
import dev.shelly.agent.workflow.Coordinator;
import dev.shelly.agent.workflow.Team;
import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.testing.Step;
import dev.shelly.tools.ToolBox;
import java.util.List;

/**
 * Nested workflows (sections 15.9 and 15.4 of the earlier design): an agent calls a research
 * department as a tool; the department is a pipeline team whose first member is itself a team
 * of two researchers working at the same time and a synthesizer. Every workflow is a
 * {@code Runner}, so each fits inside the next; only the department's final text comes back to
 * the agent.
 */
public final class NestedTeamsExample implements Example {

    @Override
    public String name() {
        return "nested";
    }

    @Override
    public String description() {
        return "a team inside a team, called by an agent as a tool (15.9, 15.4)";
    }

    @Override
    public String defaultPrompt() {
        return "Write a short report on Java's virtual threads: where they came from and why they suit AI agents.";
    }

    @Override
    public Message run(ExampleRun run) {
        // A fresh department for every call of the tool: its teams and agents start with clean chats.
        ToolBox departments = ToolBox.of(AgentTool.of("research_department",
                "Give a research and writing task to the research department; it answers with a finished report.",
                () -> department(run)));

        Agent lead = Agent.builder("lead")
                .description("Answers the user, with a research department to call on")
                .instructions("Give the whole task to research_department, then answer with its report.")
                .completer(run.model(leadScript()))
                .toolboxes(departments)
                .maxIterations(5)
                .listener(run.listener())
                .build();
        return lead.run(run.prompt(), run.scope());
    }

    /** Level 2 of the nesting: the department, a pipeline whose first member is a team. */
    private static Runner department(ExampleRun run) {
        Team researchTeam = Team.builder("research-team")
                .member(TeamView.shown(run, 2, researcher(run, "history-researcher", "Java 21 JEP preview final")),
                        "research", "Finds where virtual threads came from")
                .member(TeamView.shown(run, 2, researcher(run, "performance-researcher", "blocks carrier waiting agents")),
                        "research", "Finds why virtual threads suit waiting work")
                .member(TeamView.shown(run, 2, Agent.builder("synthesizer")
                        .description("Merges findings into one list")
                        .instructions("Merge the researchers' findings into one short list without repeats.")
                        .completer(run.model(synthesizerScript()))
                        .maxIterations(3)
                        .build()), "synthesize", "Merges findings into one list")
                .coordinator(TeamView.announced(run, 2, Coordinator.roleRoundRobin(1, "research", "synthesize")))
                .build();
        Agent writer = Agent.builder("writer")
                .description("Writes reports from research")
                .instructions("Write a short report for the request from the research you are given.")
                .completer(run.model(writerScript()))
                .maxIterations(3)
                .build();
        return Team.builder("department")
                .member(TeamView.shown(run, 1, researchTeam), "research", "Researches with several specialists")
                .member(TeamView.shown(run, 1, writer), "write", writer.description())
                .coordinator(TeamView.announced(run, 1, Coordinator.sequence()))
                .build();
    }

    private static Agent researcher(ExampleRun run, String name, String query) {
        return Agent.builder(name)
                .description("Searches the research notes")
                .instructions("Search the notes with search_notes and report what you found as a short list.")
                .completer(run.model(researcherScript(query)))
                .toolboxes(ToolBox.of(DemoNotes.searchTool()))
                .maxIterations(5)
                .listener(TeamView.members(run, "research-team", 2))
                .build();
    }

    static List<Step> leadScript() {
        return List.of(
                Scripts.call("research_department", chat -> Scripts.object("task", Scripts.userText(chat).strip()))
                        .withText("I'll ask the research department."),
                Step.reply(chat -> Scripts.lastResult(chat)));
    }

    static List<Step> researcherScript(String query) {
        return List.of(
                Step.toolCall("search_notes", Scripts.object("query", query)),
                Step.reply(chat -> Scripts.lastResult(chat)));
    }

    static List<Step> synthesizerScript() {
        return List.of(Step.reply(chat -> {
            List<String> lines = chat.messages().stream()
                    .filter(m -> m.role() == Role.USER && m.sender().endsWith("-researcher"))
                    .flatMap(m -> m.text().lines())
                    .distinct()
                    .toList();
            return "Findings:\n" + String.join("\n", lines);
        }));
    }

    static List<Step> writerScript() {
        return List.of(Step.reply("Report: Java's virtual threads arrived as a preview in Java 19 and 20 and became "
                + "final in Java 21. The JVM schedules them itself, and one that waits on I/O gives its carrier thread "
                + "back, so waiting costs almost nothing. AI agents mostly wait on models and tools, so each agent "
                + "and each tool call can simply have a virtual thread of its own."));
    }
}
