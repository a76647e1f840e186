package dev.shelly.agent.workflow;

import dev.shelly.chats.Chat;
import java.util.List;

/**
 * Decides, step by step, which members of a {@link Team} act next, and when the team is done.
 *
 * <p>A team asks its coordinator before every step of a run, with the step number counted from
 * 0 in that run, so a coordinator keeps no state between calls and one instance may serve many
 * teams and runs at once. The built-in ones are in {@link Coordinators} and
 * {@link LlmCoordinator}; a custom one is a lambda:
 *
 * <pre>{@code
 * Coordinator reviewUntilApproved = turn -> turn.shared().last().orElseThrow().text().contains("APPROVED")
 *         ? Selection.DONE
 *         : Selection.of(turn.step() % 2 == 0 ? "writer" : "reviewer");
 * }</pre>
 *
 * <p>An exception ends the team's run: a {@link TeamException} as it is, anything else wrapped
 * in one naming the team. A coordinator that waits (on a model, say) answers interruption with a
 * {@link java.util.concurrent.CancellationException}.
 */
@FunctionalInterface
public interface Coordinator {

    /**
     * Decides the next step.
     *
     * @param turn where the team stands
     * @return who acts next, or done
     */
    Selection next(Turn turn);

    /**
     * Where a team stands when its coordinator is asked.
     *
     * @param team the team's name
     * @param step the step of the current run, from 0
     * @param shared the team's shared chat
     * @param members the team's members, in the order they were added
     */
    record Turn(String team, int step, Chat shared, List<Team.Member> members) {
        /** Validates and copies the fields. */
        public Turn {
            if (team == null || shared == null || members == null) {
                throw new IllegalArgumentException("Coordinator.Turn needs a team, a shared chat and members");
            }
            if (step < 0) {
                throw new IllegalArgumentException("Coordinator.Turn step must not be negative, was " + step);
            }
            members = List.copyOf(members);
        }

        /**
         * The members' names, in order.
         *
         * @return the names
         */
        public List<String> names() {
            return members.stream().map(Team.Member::name).toList();
        }
    }
}
