package dev.shelly.examples;

import dev.shelly.agent.Agent;
import dev.shelly.agent.AgentEvent;
import dev.shelly.agent.AgentListener;
import dev.shelly.agent.workflow.Coordinator;
import dev.shelly.agent.workflow.Team;
import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.testing.Step;
import dev.shelly.tools.ToolBox;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Parallel research (section 15.8 of the earlier design): the role round-robin coordinator runs
 * every member of the role "research" at the same time, each on a virtual thread of its own,
 * then the writer, who sees both findings in the order the analysts were added, whichever
 * finished first.
 */
public final class ParallelResearchExample implements Example {

    @Override
    public String name() {
        return "parallel";
    }

    @Override
    public String description() {
        return "two analysts at the same time, then a writer: role round-robin (15.8)";
    }

    @Override
    public String defaultPrompt() {
        return "Compare how AI regulation is developing in the United States and the European Union.";
    }

    @Override
    public Message run(ExampleRun run) {
        // Counts the analysts at work, from their events.
        AtomicInteger working = new AtomicInteger();
        AtomicInteger mostAtOnce = new AtomicInteger();
        AgentListener counter = event -> {
            switch (event) {
                case AgentEvent.AgentStarted started -> mostAtOnce.accumulateAndGet(working.incrementAndGet(), Math::max);
                case AgentEvent.AgentFinished finished -> working.decrementAndGet();
                case AgentEvent.AgentFailed failed -> working.decrementAndGet();
                default -> { }
            }
        };
        AgentListener toolLines = TeamView.members(run, "parallel-research", 0);
        ToolBox notes = ToolBox.of(ConcurrentExample.regionalNotes());

        Team team = Team.builder("parallel-research")
                .member(TeamView.shown(run, 0, analyst(run, "us-analyst", "United States", notes,
                        toolLines.andThen(counter))), "research", "Researches AI regulation in the United States")
                .member(TeamView.shown(run, 0, analyst(run, "eu-analyst", "European Union", notes,
                        toolLines.andThen(counter))), "research", "Researches AI regulation in the European Union")
                .member(TeamView.shown(run, 0, Agent.builder("writer")
                        .description("Compares findings")
                        .instructions("Compare the analysts' findings in a few lines, one per region.")
                        .completer(run.model(writerScript()))
                        .maxIterations(5)
                        .build()), "write", "Compares findings")
                .coordinator(TeamView.announced(run, 0, Coordinator.roleRoundRobin(1, "research", "write")))
                .build();

        Message comparison = team.run(run.prompt(), run.scope());
        run.note(comparison.text());
        run.note("[concurrency] at most " + mostAtOnce.get() + " analyst" + (mostAtOnce.get() == 1 ? " was" : "s were")
                + " at work at the same time");
        return comparison;
    }

    private static Agent analyst(ExampleRun run, String name, String region, ToolBox notes, AgentListener listener) {
        return Agent.builder(name)
                .description("Researches AI regulation in the " + region)
                .instructions("You cover the " + region + ": look it up with regional_notes and summarise it in one "
                        + "or two sentences.")
                .completer(run.model(analystScript()))
                .toolboxes(notes)
                .maxIterations(5)
                .listener(listener)
                .build();
    }

    /** The region an analyst covers, from its system prompt. */
    private static String region(ModelRequest chat) {
        String region = ConcurrentExample.regionIn(chat.systemPrompt().orElse(""));
        return region == null ? "European Union" : region;
    }

    static List<Step> analystScript() {
        return List.of(
                Scripts.call("regional_notes", chat -> Scripts.object("region", region(chat))),
                Step.reply(chat -> region(chat) + ": " + Scripts.lastResult(chat)));
    }

    static List<Step> writerScript() {
        return List.of(Step.reply(chat -> {
            StringBuilder sb = new StringBuilder("Comparison:");
            for (Message m : chat.messages()) {
                if (m.role() == Role.USER && m.sender().endsWith("-analyst")) {
                    sb.append("\n- ").append(m.text());
                }
            }
            return sb.toString();
        }));
    }
}
