package dev.shelly.agent.workflow;

import dev.shelly.chats.Chat;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * The built-in deterministic coordinators. Each counts the steps of the current run (see
 * {@link Coordinator.Turn#step()}), so it starts afresh on every run and one instance may serve
 * many teams. For a coordinator that asks a model, see {@link LlmCoordinator}.
 *
 * <table>
 *   <caption>Coordinators</caption>
 *   <tr><th>coordinator</th><th>steps of a team with members a, b (and roles r1, r2)</th></tr>
 *   <tr><td>{@link #sequence()}</td><td>a, b, done</td></tr>
 *   <tr><td>{@link #loop(int) loop(2)}</td><td>a, b, a, b, then {@link MaxRoundsException}</td></tr>
 *   <tr><td>{@link #roundRobinUntil(Predicate) roundRobinUntil(p)}</td><td>a, b, a, ... until
 *       {@code p} holds for the shared chat, checked before every step</td></tr>
 *   <tr><td>{@link #roleRoundRobin(int, String...) roleRoundRobin(1, "r1", "r2")}</td><td>all
 *       members of r1 concurrently, then all of r2, done</td></tr>
 * </table>
 */
public final class Coordinators {
    private Coordinators() {}

    /**
     * Runs each member once, in the order they were added, then says done.
     *
     * @return the coordinator
     */
    public static Coordinator sequence() {
        return turn -> turn.step() < turn.members().size()
                ? Selection.of(turn.members().get(turn.step()).name())
                : Selection.DONE;
    }

    /**
     * Runs the members round-robin, one per step, in the order they were added. The loop has no
     * end of its own: after {@code maxRounds} full rounds the team fails with a
     * {@link MaxRoundsException} (the seed's {@code ErrMaxRounds}), with every reply kept in the
     * shared chat. For a loop with an end, use {@link #roundRobinUntil(Predicate, int)}.
     *
     * @param maxRounds the number of full rounds allowed; 0 means no limit (the team then runs
     *     until it is cancelled or a member fails)
     * @return the coordinator
     */
    public static Coordinator loop(int maxRounds) {
        requireRounds(maxRounds, "loop");
        return turn -> {
            int n = turn.members().size();
            if (maxRounds > 0 && turn.step() >= (long) maxRounds * n) {
                throw new MaxRoundsException(turn.team(), maxRounds, "round");
            }
            return Selection.of(turn.members().get(turn.step() % n).name());
        };
    }

    /**
     * Runs the members round-robin, one per step, until a condition on the shared chat holds;
     * the condition is checked before every step, the first included.
     *
     * @param done when the team is done
     * @return the coordinator
     */
    public static Coordinator roundRobinUntil(Predicate<Chat> done) {
        return roundRobinUntil(done, 0);
    }

    /**
     * Runs the members round-robin, one per step, until a condition on the shared chat holds,
     * for at most {@code maxRounds} full rounds: the team fails with a
     * {@link MaxRoundsException} when the condition still does not hold after them.
     *
     * <pre>{@code
     * Coordinators.roundRobinUntil(chat -> chat.last().orElseThrow().text().contains("APPROVED"), 3)
     * }</pre>
     *
     * @param done when the team is done
     * @param maxRounds the number of full rounds allowed; 0 means no limit
     * @return the coordinator
     */
    public static Coordinator roundRobinUntil(Predicate<Chat> done, int maxRounds) {
        if (done == null) {
            throw new IllegalArgumentException("Coordinators.roundRobinUntil predicate must not be null");
        }
        requireRounds(maxRounds, "roundRobinUntil");
        return turn -> {
            if (done.test(turn.shared())) {
                return Selection.DONE;
            }
            int n = turn.members().size();
            if (maxRounds > 0 && turn.step() >= (long) maxRounds * n) {
                throw new MaxRoundsException(turn.team(), maxRounds, "round");
            }
            return Selection.of(turn.members().get(turn.step() % n).name());
        };
    }

    /**
     * Cycles through roles: each step selects every member with the current role, and they run
     * concurrently (their replies appended in the order the members were added). After
     * {@code rounds} cycles through all the roles the team is done.
     *
     * <pre>{@code
     * // two researchers at once, then the writer, once: research x2 -> write -> done
     * Coordinators.roleRoundRobin(1, "research", "write")
     * }</pre>
     *
     * @param rounds how many cycles through the roles; 0 means no limit
     * @param roles the roles, in the order they act
     * @return the coordinator; a step whose role no member has fails the team
     */
    public static Coordinator roleRoundRobin(int rounds, String... roles) {
        requireRounds(rounds, "roleRoundRobin");
        if (roles == null || roles.length == 0) {
            throw new IllegalArgumentException("Coordinators.roleRoundRobin needs at least one role");
        }
        List<String> order = new ArrayList<>(roles.length);
        for (int i = 0; i < roles.length; i++) {
            if (roles[i] == null || roles[i].isBlank()) {
                throw new IllegalArgumentException("Coordinators.roleRoundRobin roles[" + i + "] must not be null or blank");
            }
            order.add(roles[i]);
        }
        return turn -> {
            if (rounds > 0 && turn.step() >= (long) rounds * order.size()) {
                return Selection.DONE;
            }
            String role = order.get(turn.step() % order.size());
            List<String> chosen = new ArrayList<>();
            List<String> present = new ArrayList<>();
            for (Team.Member m : turn.members()) {
                if (m.role().equals(role)) {
                    chosen.add(m.name());
                }
                if (!present.contains(m.role())) {
                    present.add(m.role());
                }
            }
            if (chosen.isEmpty()) {
                throw new TeamException(turn.team(), null, "no member of team '" + turn.team() + "' has role '" + role
                        + "', which the role round-robin coordinator selects at step " + turn.step()
                        + "; the members' roles are " + String.join(", ", present), null);
            }
            return Selection.of(chosen);
        };
    }

    private static void requireRounds(int rounds, String coordinator) {
        if (rounds < 0) {
            throw new IllegalArgumentException("Coordinators." + coordinator + " rounds must not be negative, was " + rounds);
        }
    }
}
