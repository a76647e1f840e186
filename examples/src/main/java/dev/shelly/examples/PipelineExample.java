package dev.shelly.examples;

import dev.shelly.agent.Agent;
import dev.shelly.agent.AgentListener;
import dev.shelly.agent.workflow.Coordinator;
import dev.shelly.agent.workflow.Team;
import dev.shelly.chats.Message;
import dev.shelly.tools.ToolBox;

/**
 * A research and writing pipeline (section 15.2 of the earlier design): a {@link Team} whose
 * sequence coordinator runs the researcher, then the writer. The writer sees the user's request
 * and the researcher's findings as user messages in its own chat; the team returns the writer's
 * text.
 */
public final class PipelineExample implements Example {

    @Override
    public String name() {
        return "pipeline";
    }

    @Override
    public String description() {
        return "a researcher, then a writer: a Team with the sequence coordinator (15.2)";
    }

    @Override
    public String defaultPrompt() {
        return "Write a short summary of what Java's virtual threads are and why they suit AI agents.";
    }

    @Override
    public Message run(ExampleRun run) {
        AgentListener toolLines = TeamView.members(run, "pipeline", 0);
        Agent researcher = researcher(run, toolLines);
        Agent writer = Agent.builder("writer")
                .description("Writes clear, short texts from given facts")
                .instructions("Write what the user asked for, based only on the findings you are given.")
                .completer(run.model(DelegationExample.writerScript()))
                .maxIterations(5)
                .listener(toolLines)
                .build();

        // Each member works on its own chat; the team syncs the shared conversation into it.
        Team pipeline = Team.builder("pipeline")
                .member(TeamView.shown(run, 0, researcher), "research", researcher.description())
                .member(TeamView.shown(run, 0, writer), "write", writer.description())
                .coordinator(TeamView.announced(run, 0, Coordinator.sequence()))
                .build();

        Message article = pipeline.run(run.prompt(), run.scope());
        run.note(article.text());
        return article;
    }

    /** The researcher of the team examples: it searches the demo notes and reports a short list. */
    static Agent researcher(ExampleRun run, AgentListener listener) {
        return Agent.builder("researcher")
                .description("Searches the research notes for information")
                .instructions("Find the facts the request needs with search_notes and report them as a short list.")
                .completer(run.model(DelegationExample.researcherScript()))
                .toolboxes(ToolBox.of(DemoNotes.searchTool()))
                .maxIterations(10)
                .listener(listener)
                .build();
    }
}
