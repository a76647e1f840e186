package dev.shelly.examples;

import dev.shelly.agent.Agent;
import dev.shelly.agent.workflow.Coordinator;
import dev.shelly.agent.workflow.Team;
import dev.shelly.chats.Message;
import dev.shelly.testing.Step;
import java.util.List;

/**
 * An LLM-coordinated team (section 15.3 of the earlier design): before every step a model reads
 * the recent conversation and answers {@code {"members": [...], "done": ...}}; here it sends the
 * draft back to the writer after the review. A model that cannot answer in that form twice in a
 * row fails the run with a message saying what was wrong.
 */
public final class LlmTeamExample implements Example {

    @Override
    public String name() {
        return "llm-team";
    }

    @Override
    public String description() {
        return "a model decides who acts next: a Team with the LLM coordinator (15.3)";
    }

    @Override
    public String defaultPrompt() {
        return "Write a short, reviewed summary of why Java's virtual threads suit AI agents.";
    }

    @Override
    public Message run(ExampleRun run) {
        Agent researcher = PipelineExample.researcher(run, TeamView.members(run, "smart-team", 0));
        Agent writer = Agent.builder("writer")
                .description("Writes and revises short texts from the findings")
                .instructions("Write what the user asked for from the findings; when a reviewer asks for changes, "
                        + "give the whole revised text.")
                .completer(run.model(writerScript()))
                .maxIterations(5)
                .build();
        Agent reviewer = Agent.builder("reviewer")
                .description("Checks a draft for accuracy and clarity")
                .instructions("Check the latest draft against the findings; name at most one thing to fix, or "
                        + "say it is approved.")
                .completer(run.model(reviewerScript()))
                .maxIterations(5)
                .build();

        Team team = Team.builder("smart-team")
                .member(TeamView.shown(run, 0, researcher), "research", researcher.description())
                .member(TeamView.shown(run, 0, writer), "write", writer.description())
                .member(TeamView.shown(run, 0, reviewer), "review", reviewer.description())
                .coordinator(TeamView.announced(run, 0,
                        Coordinator.llm(run.model(coordinatorScript()), 8, 20)))
                .build();

        Message result = team.run(run.prompt(), run.scope());
        run.note(result.text());
        return result;
    }

    static List<Step> coordinatorScript() {
        return List.of(
                Step.reply("{\"members\": [\"researcher\"], \"done\": false}"),
                Step.reply("{\"members\": [\"writer\"], \"done\": false}"),
                Step.reply("{\"members\": [\"reviewer\"], \"done\": false}"),
                Step.reply("{\"members\": [\"writer\"], \"done\": false}"),
                Step.reply("{\"members\": [], \"done\": true}"));
    }

    static List<Step> writerScript() {
        return List.of(
                Step.reply("AI agents spend most of their time waiting on models and tools. Virtual threads make "
                        + "that waiting almost free, so every agent and tool call can have a thread of its own."),
                Step.reply("AI agents spend most of their time waiting on models and tools. Java's virtual threads, "
                        + "final since Java 21, make that waiting almost free, so every agent and tool call can have "
                        + "a thread of its own."));
    }

    static List<Step> reviewerScript() {
        return List.of(Step.reply("Accurate and clear. One fix: say that virtual threads are final since Java 21."));
    }
}
