package dev.shelly.agent.workflow;

import dev.shelly.agent.RunContext;
import dev.shelly.agent.internal.FanOut;
import dev.shelly.agent.internal.Observers;
import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;

/**
 * A {@link Team}'s members, how far each has read the shared chat, and how one step runs the
 * members a coordinator selected: synced first, then one on the calling thread or several
 * concurrently, their replies appended to the shared chat in the order of the selection.
 */
final class Roster {
    private final String team;
    private final Chat shared;
    private final List<Team.Member> members;
    private final Map<String, Integer> indexes;
    private final Duration cancelGrace;
    // Touched only by the running thread (one run at a time; the team's flag orders the runs).
    private final int[] cursors;

    /**
     * @param cancelGrace how long cancelled members may take to stop, or null for the run
     *     context's grace
     */
    Roster(String team, Chat shared, List<Team.Member> members, Duration cancelGrace) {
        this.team = team;
        this.shared = shared;
        this.members = List.copyOf(members);
        Map<String, Integer> idx = new LinkedHashMap<>();
        for (int i = 0; i < this.members.size(); i++) {
            idx.put(this.members.get(i).name(), i);
        }
        this.indexes = Collections.unmodifiableMap(idx);
        this.cancelGrace = cancelGrace;
        this.cursors = new int[this.members.size()];
    }

    List<Team.Member> members() {
        return members;
    }

    Set<String> names() {
        return indexes.keySet();
    }

    /** The members a selection names, by index; an unknown name fails the team. */
    List<Integer> resolve(Selection selection, int step) {
        List<Integer> chosen = new ArrayList<>(selection.members().size());
        for (String m : selection.members()) {
            Integer i = indexes.get(m);
            if (i == null) {
                throw new TeamException(team, null, "the coordinator of team '" + team + "' selected unknown member '"
                        + m + "' at step " + step + "; members: " + String.join(", ", indexes.keySet()), null);
            }
            chosen.add(i);
        }
        return chosen;
    }

    /** Runs one step's members and appends their replies; returns the replies appended. */
    List<Message> step(List<Integer> chosen, RunContext context) {
        return chosen.size() == 1 ? List.of(runAlone(chosen.getFirst(), context)) : new ConcurrentStep(chosen, context).run();
    }

    /** How far a member has read the shared chat. */
    int cursor(String member) {
        Integer i = indexes.get(member);
        if (i == null) {
            throw new IllegalArgumentException("team '" + team + "' has no member '" + member + "'");
        }
        return cursors[i];
    }

    /** Gives a member the shared messages it has not seen, as user messages, and moves its cursor. */
    private void sync(int i) {
        Team.Member member = members.get(i);
        List<Message> fresh = shared.since(cursors[i]);
        List<Message> input = new ArrayList<>(fresh.size());
        for (Message m : fresh) {
            if (!m.sender().equals(member.name())) {
                input.add(m.role() == Role.USER ? m : new Message(m.sender(), Role.USER, m.parts(), m.metadata()));
            }
        }
        if (input.isEmpty() && endsWithItsOwnReply(member)) {
            input.add(Message.text(team, Role.USER, Team.CONTINUE));
        }
        if (!input.isEmpty()) {
            member.runner().receive(input);
        }
        cursors[i] += fresh.size();
    }

    private static boolean endsWithItsOwnReply(Team.Member member) {
        return member.runner().chat().last().map(m -> m.role() == Role.ASSISTANT).orElse(false);
    }

    private Message runAlone(int i, RunContext context) {
        sync(i);
        Team.Member member = members.get(i);
        Message reply;
        try {
            reply = invoke(member, context);
        } catch (CancellationException e) {
            if (Thread.currentThread().isInterrupted()) {
                throw e;
            }
            throw new TeamException(team, member.name(), "member '" + member.name() + "' of team '" + team
                    + "' was cancelled", e);
        } catch (RuntimeException e) {
            throw new TeamException(team, member.name(), "member '" + member.name() + "' of team '" + team + "' failed: "
                    + Failures.describe(e), e);
        }
        shared.append(reply);
        return reply;
    }

    /** Runs a member; its reply with the member's name as sender. */
    private static Message invoke(Team.Member member, RunContext context) {
        Message reply = member.runner().run(context);
        if (reply == null) {
            throw new IllegalStateException("its run() returned null instead of a reply");
        }
        return reply.sender().equals(member.name()) ? reply : reply.withSender(member.name());
    }

    /** The members of one step running concurrently, each on its own virtual thread. */
    private final class ConcurrentStep {
        private final List<Integer> chosen;
        private final RunContext context;

        ConcurrentStep(List<Integer> chosen, RunContext context) {
            this.chosen = chosen;
            this.context = context;
        }

        List<Message> run() {
            for (int i : chosen) {
                sync(i);
            }
            List<Callable<Message>> tasks = new ArrayList<>(chosen.size());
            for (int slot = 0; slot < chosen.size(); slot++) {
                Team.Member member = member(slot);
                tasks.add(() -> invoke(member, context));
            }
            FanOut.Joined<Message> joined = FanOut.of(tasks)
                    .failFast(true)
                    .inlineSingle(false)
                    .grace(cancelGrace != null ? cancelGrace : context.cancelGrace())
                    .names(slot -> "shelly-team-" + team + "-" + member(slot).name())
                    .propagate(Observers.propagation(context.observers()))
                    .join();
            List<Message> done = new ArrayList<>(chosen.size());
            for (FanOut.Outcome<Message> o : joined.outcomes()) {
                if (o instanceof FanOut.Outcome.Success<Message> s) {
                    done.add(s.value());
                }
            }
            if (!done.isEmpty()) {
                shared.append(done);
            }
            if (joined.interrupted()) {
                throw new CancellationException("team '" + team + "' was cancelled");
            }
            if (joined.firstFailure() >= 0) {
                throw failure(joined.firstFailure(), joined.outcomes());
            }
            return done;
        }

        private Team.Member member(int slot) {
            return members.get(chosen.get(slot));
        }

        private RuntimeException failure(int slot, List<FanOut.Outcome<Message>> outcomes) {
            Throwable error = ((FanOut.Outcome.Failure<Message>) outcomes.get(slot)).error();
            List<String> cancelledOthers = new ArrayList<>();
            for (int other = 0; other < outcomes.size(); other++) {
                if (other != slot && (outcomes.get(other) instanceof FanOut.Outcome.Cancelled<Message>
                        || outcomes.get(other) instanceof FanOut.Outcome.Abandoned<Message>)) {
                    cancelledOthers.add("'" + member(other).name() + "'");
                }
            }
            if (error instanceof Error err) {
                throw err;
            }
            Team.Member member = member(slot);
            String others = cancelledOthers.isEmpty() ? ""
                    : "; cancelled " + (cancelledOthers.size() == 1 ? "member " : "members ")
                            + String.join(", ", cancelledOthers) + " of the same step";
            if (error instanceof CancellationException) {
                return new TeamException(team, member.name(), "member '" + member.name() + "' of team '" + team
                        + "' was cancelled" + others, error);
            }
            return new TeamException(team, member.name(), "member '" + member.name() + "' of team '" + team
                    + "' failed: " + Failures.describe(error) + others, error);
        }
    }
}
