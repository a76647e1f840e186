package dev.shelly.agent.workflow;

import dev.shelly.chats.Chat;
import dev.shelly.modeladapter.Completer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * Decides, step by step, which members of a {@link Team} act next, and when the team is done.
 *
 * <p>A team asks its coordinator before every step of a run, with the step number counted from
 * 0 in that run, so a coordinator keeps no state between calls and one instance may serve many
 * teams and runs at once. The built-in ones are made here; each counts the steps of the current
 * run, so it starts afresh on every run:
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
 *   <tr><td>{@link #llm(Completer, int, int) llm(model)}</td><td>whoever the model names, until it
 *       says done</td></tr>
 * </table>
 *
 * A custom one is a lambda:
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

    /**
     * Runs each member once, in the order they were added, then says done.
     *
     * @return the coordinator
     */
    static Coordinator sequence() {
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
    static Coordinator loop(int maxRounds) {
        return roundRobinUntil("loop", chat -> false, maxRounds);
    }

    /**
     * Runs the members round-robin, one per step, until a condition on the shared chat holds;
     * the condition is checked before every step, the first included.
     *
     * @param done when the team is done
     * @return the coordinator
     */
    static Coordinator roundRobinUntil(Predicate<Chat> done) {
        return roundRobinUntil(done, 0);
    }

    /**
     * Runs the members round-robin, one per step, until a condition on the shared chat holds,
     * for at most {@code maxRounds} full rounds: the team fails with a
     * {@link MaxRoundsException} when the condition still does not hold after them.
     *
     * <pre>{@code
     * Coordinator.roundRobinUntil(chat -> chat.last().orElseThrow().text().contains("APPROVED"), 3)
     * }</pre>
     *
     * @param done when the team is done
     * @param maxRounds the number of full rounds allowed; 0 means no limit
     * @return the coordinator
     */
    static Coordinator roundRobinUntil(Predicate<Chat> done, int maxRounds) {
        if (done == null) {
            throw new IllegalArgumentException("Coordinator.roundRobinUntil predicate must not be null");
        }
        return roundRobinUntil("roundRobinUntil", done, maxRounds);
    }

    private static Coordinator roundRobinUntil(String coordinator, Predicate<Chat> done, int maxRounds) {
        requireRounds(maxRounds, coordinator);
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
     * Coordinator.roleRoundRobin(1, "research", "write")
     * }</pre>
     *
     * @param rounds how many cycles through the roles; 0 means no limit
     * @param roles the roles, in the order they act
     * @return the coordinator; a step whose role no member has fails the team
     */
    static Coordinator roleRoundRobin(int rounds, String... roles) {
        requireRounds(rounds, "roleRoundRobin");
        if (roles == null || roles.length == 0) {
            throw new IllegalArgumentException("Coordinator.roleRoundRobin needs at least one role");
        }
        List<String> order = new ArrayList<>(roles.length);
        for (int i = 0; i < roles.length; i++) {
            if (roles[i] == null || roles[i].isBlank()) {
                throw new IllegalArgumentException("Coordinator.roleRoundRobin roles[" + i + "] must not be null or blank");
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
            throw new IllegalArgumentException("Coordinator." + coordinator + " rounds must not be negative, was " + rounds);
        }
    }

    /**
     * A model decides who acts next, for at most 10 steps, seeing the last 20 messages of the
     * shared chat: see {@link #llm(Completer, int, int)}.
     *
     * @param model the model that decides
     * @return the coordinator
     */
    static Coordinator llm(Completer model) {
        return llm(model, LlmCoordinator.DEFAULT_MAX_ROUNDS, LlmCoordinator.DEFAULT_WINDOW);
    }

    /**
     * A model decides who acts next.
     *
     * <pre>{@code
     * Team team = Team.builder("smart-team")
     *         .member(researcher, "research", "Searches the web for information")
     *         .member(writer, "write", "Writes articles and summaries")
     *         .coordinator(Coordinator.llm(model, 10, 20))
     *         .build();
     * }</pre>
     *
     * <p>Before every step it sends the model a fresh chat of two messages (no tools): a system
     * prompt describing the team (each member's name, role and description, and the answer's
     * format), and a user message showing the last {@code window} messages of the shared chat
     * ({@code [sender] text}, one a line, then {@code Who should act next?}). The model answers
     * with a JSON object naming the members to run next (by name, concurrently when several), or
     * saying the work is done: {@code {"members": ["writer"], "done": false}} or
     * {@code {"members": [], "done": true}}. The request asks for that object as structured
     * output (the JSON schema {@code Decision} of {@code {members: string[], done: boolean}}, the
     * members' names the {@code enum} of {@code members}' items), which a provider with native
     * structured output enforces; the prompt still spells the format out for models without it.
     * A JSON object wrapped in a Markdown code fence is accepted.
     *
     * <p>An answer that is not such an object (not JSON, a missing or mistyped field, named by
     * its path such as {@code $.done is required}; an unknown or repeated member, members
     * together with done, neither members nor done) gets one retry: the model's answer and a user
     * message saying what was wrong are appended and the model is asked again. A second invalid
     * answer, or a refusal, fails the team with a {@link TeamException} that quotes the answer
     * and says what was wrong.
     *
     * <p>After {@code maxRounds} steps the model is asked once more; unless it then says done,
     * the team fails with a {@link MaxRoundsException}. The coordinator keeps no state between
     * calls: it may serve many teams at once. Model failures and cancellation pass through (the
     * team names itself around them).
     *
     * @param model the model that decides
     * @param maxRounds the most steps in which members run; 0 means no limit
     * @param window how many of the shared chat's last messages the model sees; at least 1
     * @return the coordinator
     * @throws IllegalArgumentException when the model is null or a limit is out of range
     */
    static Coordinator llm(Completer model, int maxRounds, int window) {
        return new LlmCoordinator(model, maxRounds, window);
    }
}
