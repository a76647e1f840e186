package dev.shelly.agent.workflow;

import dev.shelly.agent.Agent;
import dev.shelly.agent.RunContext;
import dev.shelly.agent.Runner;
import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;

/**
 * Members with roles working over a shared chat, a {@link Coordinator} deciding who acts next:
 * the seed's Reactor.
 *
 * <pre>{@code
 * Team pipeline = Team.builder("pipeline")
 *         .member(researcher, "research")
 *         .member(writer, "write")
 *         .coordinator(Coordinator.sequence())
 *         .build();
 * Message article = pipeline.run("Write a summary of recent AI developments");
 * }</pre>
 *
 * <h2>The run</h2>
 * {@link #run()} asks the coordinator for a {@link Selection} before every step (step 0, 1, ...
 * of this run) until it says done:
 * <ol>
 *   <li>Each selected member is synced: the shared chat's messages since the member's cursor,
 *       except those the member sent itself (already in its private chat), are given to it with
 *       the {@link Role#USER} role, sender, parts and metadata kept, through
 *       {@link Runner#receive}; the cursor then moves to the end of the shared chat. The member
 *       thus talks with "a user" and needs to know nothing about the team. A member selected
 *       again with nothing new to read (say, picked twice in a row) whose private chat ends with
 *       its own reply receives {@link #CONTINUE} from the team (sender: the team's name) instead,
 *       so its request still ends with a user turn: providers take a request that ends with the
 *       model's own message as a prefill to complete, and some refuse it.
 *   <li>One member runs on the calling thread. Several run concurrently, each on its own
 *       virtual thread, all synced before any starts.
 *   <li>A member's reply is the message its {@link Runner#run(RunContext)} returns (members run
 *       in the team's caller's scope, at the same delegation depth), with the member's name
 *       as sender (for an agent: its final answer). Replies are appended to the shared chat in
 *       the order of the selection, whatever order the members finished in, in one atomic append.
 * </ol>
 * {@code run()} returns the last reply appended during the run (the last member of the last
 * step), as it stands in the shared chat. A run in which no member replied fails.
 *
 * <h2>Failure and cancellation</h2>
 * A member that fails ends the run with a {@link TeamException} naming the member, its failure
 * as the cause. In a concurrent step the first failure cancels the other members of the step
 * (their threads are interrupted); the replies of members that had already finished are still
 * appended. Interrupting the thread running the team interrupts every running member, waits for
 * them to stop (at most the {@linkplain Builder#cancelGrace grace}) and throws a
 * {@link CancellationException} with the interrupt flag set; an {@link Agent} member answers
 * every open tool call in its chat before it stops. A coordinator's failure ends the run too.
 *
 * <h2>State</h2>
 * The private chats and cursors persist between runs, so a team can hold a conversation: append
 * to the shared chat and run again. A team runs one {@code run()} at a time. As a
 * {@link Runner} its name is the team's name and its chat is the shared chat, so a team can be a
 * member of another team (input it receives lands in its shared chat), a member of a hand-off
 * group, or a tool ({@link AgentTool}).
 */
public final class Team extends Workflow {
    /** How long cancelled members may take to stop, unless the builder or the run's context says otherwise. */
    public static final Duration DEFAULT_CANCEL_GRACE = Agent.DEFAULT_CANCEL_GRACE;

    /**
     * What a member selected again with nothing new to read is told, as a user message from the
     * team, when its private chat ends with its own reply.
     */
    public static final String CONTINUE = "Continue.";

    private final Roster roster;
    private final Coordinator coordinator;

    private Team(Builder b) {
        super("Team", b.name, b.chat == null ? new Chat() : b.chat);
        this.roster = new Roster(b.name, shared, b.members, b.cancelGrace);
        this.coordinator = b.coordinator;
    }

    /**
     * Starts building a team.
     *
     * @param name the team's name: the sender of its replies when it is a member of another team
     * @return a builder
     */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    /**
     * A member of a team: a runner, its role, and what it does.
     *
     * @param runner the runner; its name is the member's name and its chat the member's private chat
     * @param role what the member does in the team ("research", "write"); coordinators select by it
     * @param description what the member does, for coordinators that explain the team to a model;
     *     may be empty
     */
    public record Member(Runner runner, String role, String description) {
        /** Validates the fields. */
        public Member {
            if (runner == null) {
                throw new IllegalArgumentException("Team.Member runner must not be null");
            }
            if (role == null || role.isBlank()) {
                throw new IllegalArgumentException("Team.Member role of '" + runner.name() + "' must not be null or blank");
            }
            if (description == null) {
                throw new IllegalArgumentException("Team.Member description of '" + runner.name() + "' must not be null");
            }
        }

        /**
         * The member's name: its runner's name.
         *
         * @return the name
         */
        public String name() {
            return runner.name();
        }
    }

    // ------------------------------------------------------------------ running

    @Override
    Message steps(RunContext context) {
        Message last = null;
        for (int step = 0; ; step++) {
            if (Thread.currentThread().isInterrupted()) {
                throw new CancellationException("team '" + name + "' was cancelled");
            }
            Selection selection = decide(step);
            if (selection.done()) {
                break;
            }
            last = roster.step(roster.resolve(selection, step), context).getLast();
        }
        if (last == null) {
            throw new TeamException(name, null, "team '" + name
                    + "' ended without any member replying: its coordinator said done at step 0", null);
        }
        return last;
    }

    @Override
    String alreadyRunning() {
        return "team '" + name + "' is already running; a team runs one run() at a time";
    }

    private Selection decide(int step) {
        Selection selection;
        try {
            selection = coordinator.next(new Coordinator.Turn(name, step, shared, roster.members()));
        } catch (TeamException | CancellationException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new TeamException(name, null, "the coordinator of team '" + name + "' failed at step " + step + ": "
                    + Failures.describe(e), e);
        }
        if (selection == null) {
            throw new TeamException(name, null, "the coordinator of team '" + name + "' returned null at step " + step
                    + " instead of a Selection", null);
        }
        return selection;
    }

    // ------------------------------------------------------------------ accessors

    /**
     * The members, in the order they were added.
     *
     * @return the members
     */
    public List<Member> members() {
        return roster.members();
    }

    /**
     * The coordinator.
     *
     * @return the coordinator
     */
    public Coordinator coordinator() {
        return coordinator;
    }

    /** How far a member has read the shared chat: for tests. */
    int cursor(String member) {
        return roster.cursor(member);
    }

    @Override
    public String toString() {
        return "Team[" + name + ", members " + roster.names() + "]";
    }

    // ------------------------------------------------------------------ builder

    /** Collects a team's settings: at least one member and a coordinator are required. */
    public static final class Builder {
        private final String name;
        private final List<Member> members = new ArrayList<>();
        private Coordinator coordinator;
        private Chat chat;
        private Duration cancelGrace;

        private Builder(String name) {
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("Team name must not be null or blank");
            }
            this.name = name;
        }

        /**
         * Adds a member; an {@link Agent}'s description describes it.
         *
         * @param runner the member; its chat must be its own
         * @param role its role
         * @return this builder
         */
        public Builder member(Runner runner, String role) {
            return member(runner, role, runner instanceof Agent a ? a.description() : "");
        }

        /**
         * Adds a member.
         *
         * @param runner the member; its chat must be its own
         * @param role its role
         * @param description what it does, for coordinators that explain the team to a model
         * @return this builder
         */
        public Builder member(Runner runner, String role, String description) {
            if (runner == null) {
                throw new IllegalArgumentException("Team '" + name + "' member must not be null");
            }
            members.add(new Member(runner, role, description));
            return this;
        }

        /**
         * Who decides which members act next.
         *
         * @param value the coordinator
         * @return this builder
         */
        public Builder coordinator(Coordinator value) {
            if (value == null) {
                throw new IllegalArgumentException("Team '" + name + "' coordinator must not be null");
            }
            this.coordinator = value;
            return this;
        }

        /**
         * The shared chat, for example one already holding the task; by default a new one.
         *
         * @param value the chat
         * @return this builder
         */
        public Builder chat(Chat value) {
            if (value == null) {
                throw new IllegalArgumentException("Team '" + name + "' chat must not be null");
            }
            this.chat = value;
            return this;
        }

        /**
         * How long cancelled members may take to stop before the team abandons them. Unless
         * set, the run's context decides ({@link RunContext#cancelGrace()}, by default
         * {@link Team#DEFAULT_CANCEL_GRACE}).
         *
         * @param value the grace
         * @return this builder
         */
        public Builder cancelGrace(Duration value) {
            if (value == null || value.isNegative()) {
                throw new IllegalArgumentException("Team '" + name + "' cancelGrace must not be null or negative");
            }
            this.cancelGrace = value;
            return this;
        }

        /**
         * Builds the team.
         *
         * @return the team
         * @throws IllegalArgumentException when there is no member or no coordinator, two members
         *     share a name or a chat, a member works on the shared chat, or a member is named
         *     {@code user} or {@code system} (the senders of the input it would then never see)
         */
        public Team build() {
            if (members.isEmpty()) {
                throw new IllegalArgumentException("Team '" + name + "' needs at least one member");
            }
            if (coordinator == null) {
                throw new IllegalArgumentException("Team '" + name + "' needs a coordinator, e.g. Coordinator.sequence()");
            }
            Map<String, Member> byName = new LinkedHashMap<>();
            Map<Chat, String> chats = new IdentityHashMap<>();
            for (Member m : members) {
                String n = m.name();
                if (n.equals("user") || n.equals("system")) {
                    throw new IllegalArgumentException("Team '" + name + "' cannot have a member named '" + n
                            + "': a member never sees messages sent by its own name, and '" + n
                            + "' is the sender of the input");
                }
                if (byName.putIfAbsent(n, m) != null) {
                    throw new IllegalArgumentException("Team '" + name + "' has two members named '" + n + "'");
                }
                if (chat != null && m.runner().chat() == chat) {
                    throw new IllegalArgumentException("member '" + n + "' of team '" + name
                            + "' works on the team's shared chat; each member needs a private chat of its own");
                }
                String other = chats.putIfAbsent(m.runner().chat(), n);
                if (other != null) {
                    throw new IllegalArgumentException("members '" + other + "' and '" + n + "' of team '" + name
                            + "' share one chat; each member needs a private chat of its own");
                }
            }
            return new Team(this);
        }
    }
}
