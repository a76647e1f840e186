package dev.shelly.examples;

import dev.shelly.agent.AgentEvent;
import dev.shelly.agent.AgentListener;
import dev.shelly.agent.Runner;
import dev.shelly.agent.workflow.Coordinator;
import dev.shelly.agent.workflow.Selection;
import dev.shelly.chats.Message;

/**
 * Shows teams at work in the style of {@link ConsoleView}: each decision of a coordinator, the
 * tool calls of the members, and each member's reply, indented by how deep the team is nested.
 *
 * <pre>
 * [pipeline] step 1: researcher
 *     [researcher] → search_notes {"query":"virtual threads"}
 *     [researcher] ← search_notes: - Virtual threads are ...
 *   ← researcher: Findings: ...
 * [pipeline] step 2: us-analyst + eu-analyst, at the same time
 * [pipeline] done
 * </pre>
 *
 * Everything here is plain SDK use: a coordinator wrapped in a lambda, a member wrapped with
 * {@link Runner#around}, a listener that forwards events.
 */
final class TeamView {
    private TeamView() {}

    /** A coordinator that notes each of its decisions, at the team's nesting level (0 = top). */
    static Coordinator announced(ExampleRun run, int level, Coordinator inner) {
        return turn -> {
            Selection selection = inner.next(turn);
            String team = "  ".repeat(level) + "[" + turn.team() + "] ";
            if (selection.done()) {
                run.note(team + "done");
            } else {
                run.note(team + "step " + (turn.step() + 1) + ": " + String.join(" + ", selection.members())
                        + (selection.members().size() > 1 ? ", at the same time" : ""));
            }
            return selection;
        };
    }

    /** A member whose reply is noted, on one line, when it has replied. */
    static Runner shown(ExampleRun run, int level, Runner member) {
        return Runner.around(member, context -> {
            Message reply = member.run(context);
            run.note(ConsoleView.clip("  ".repeat(level + 1) + "← " + member.name() + ": " + ConsoleView.oneLine(reply.text())));
            return reply;
        });
    }

    /** A listener for a team's member agents: their tool calls and results, as lines naming them. */
    static AgentListener members(ExampleRun run, String team, int level) {
        AgentListener view = run.listener();
        return event -> {
            AgentEvent.Source named = new AgentEvent.Source(event.source().agent(), team, level + 1);
            switch (event) {
                case AgentEvent.ToolCallStarted e -> view.onEvent(new AgentEvent.ToolCallStarted(named, e.call()));
                case AgentEvent.ToolCallFinished e ->
                        view.onEvent(new AgentEvent.ToolCallFinished(named, e.call(), e.result(), e.took()));
                default -> {
                    // The members' text shows as their replies; the rest would repeat it.
                }
            }
        };
    }
}
