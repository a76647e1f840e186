package dev.shelly.agent.workflow;

import dev.shelly.agent.Agent;
import dev.shelly.agent.AgentEvent;
import dev.shelly.agent.AgentException;
import dev.shelly.agent.AgentListener;
import dev.shelly.agent.RunContext;
import dev.shelly.agent.Runner;
import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.tools.ToolBox;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Agents that share one chat and pass control to each other: the active agent works on the
 * conversation until it answers, or until it calls {@code transfer_to_<name>} to hand the
 * conversation to another member, which then continues on the same chat.
 *
 * <pre>{@code
 * Handoff desk = Handoff.builder("support")
 *         .member("triage", "Finds out what the customer needs and routes them",
 *                 ctx -> ctx.agent().completer(model).instructions("Route the customer.").build())
 *         .member("flights", "Books and changes flights",
 *                 ctx -> ctx.agent().completer(model).toolboxes(flightTools).build())
 *         .maxHandoffs(5)
 *         .build();
 * Message answer = desk.run("I need to change my flight");
 * }</pre>
 *
 * <h2>Members</h2>
 * Each member is built once, when the group is built, by a factory that receives a
 * {@link Context}: the shared chat, and a toolbox with one {@code transfer_to_<other>} tool per
 * other member (no arguments; its description is the other member's). {@link Context#agent()}
 * gives an {@link Agent} builder already set up for the group: the name and description, the
 * shared chat, the transfer tools, stop at a transfer, the group's listener, and its system
 * prompt kept out of the shared chat, so that each agent speaks with its own instructions over
 * the one conversation (see {@link Agent.Builder#systemPromptInChat}).
 *
 * <h2>The run</h2>
 * {@link #run()} runs the active member (first the {@linkplain Builder#start start} member). A
 * transfer tool records the transfer and answers {@code Transferred the conversation to
 * 'flights'; flights answers next.}; the member's run stops after that turn, the group emits an
 * {@link AgentEvent.HandedOff} event and runs the new active member on the same chat. The
 * chat thus shows every transfer: the call, its result, and the next agent's messages under its
 * own name. A member that answers without a transfer ends the run; {@code run()} returns its
 * answer. The active member stays active between runs, so the next user message goes to the
 * agent who answered the last one.
 *
 * <p>At most {@linkplain Builder#maxHandoffs maxHandoffs} transfers happen in one run: a further
 * transfer call is answered with an error result and the run fails with a
 * {@link MaxHandoffsException}. A second transfer asked for before the first took effect is
 * refused with an error result. A member's failure ends the run unchanged; interrupting the
 * running thread cancels the active member.
 */
public final class Handoff extends Workflow {
    /** The number of transfers allowed per run, unless the builder says otherwise. */
    public static final int DEFAULT_MAX_HANDOFFS = 10;
    /** What the name of each transfer tool starts with; the target member's name follows. */
    public static final String TRANSFER_PREFIX = "transfer_to_";

    private static final Logger LOG = LoggerFactory.getLogger(Handoff.class);
    private static final Pattern MEMBER_NAME = Pattern.compile("[a-zA-Z0-9_-]{1,52}");

    private final int maxHandoffs;
    private final AgentListener listener;
    private final Map<String, String> descriptions;
    private final Map<String, Runner> members = new LinkedHashMap<>();
    private final Transfers transfers;
    private volatile String active;

    private Handoff(Builder b) {
        super("Handoff", b.name, b.chat == null ? new Chat() : b.chat);
        this.maxHandoffs = b.maxHandoffs;
        this.listener = b.listener;
        this.descriptions = Collections.unmodifiableMap(new LinkedHashMap<>(b.descriptions));
        this.active = b.start == null ? b.descriptions.keySet().iterator().next() : b.start;
        this.transfers = new Transfers(name, maxHandoffs, descriptions, this::running);
        for (Map.Entry<String, Function<Context, ? extends Runner>> e : b.factories.entrySet()) {
            String member = e.getKey();
            Context context = new Context(member, transfers.tools(member));
            Runner runner = e.getValue().apply(context);
            if (runner == null) {
                throw new IllegalArgumentException("the factory of member '" + member + "' of hand-off group '" + name
                        + "' returned null");
            }
            if (!runner.name().equals(member)) {
                throw new IllegalArgumentException("the factory of member '" + member + "' of hand-off group '" + name
                        + "' built a runner named '" + runner.name() + "'; use ctx.agent() or the name '" + member + "'");
            }
            if (runner.chat() != shared) {
                throw new IllegalArgumentException("member '" + member + "' of hand-off group '" + name
                        + "' works on a chat of its own; build it on ctx.chat(), the chat the group shares");
            }
            members.put(member, runner);
        }
    }

    /**
     * Starts building a hand-off group.
     *
     * @param name the group's name
     * @return a builder
     */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    // ------------------------------------------------------------------ running

    /** Runs the active member, following its transfers, until a member answers without one. */
    @Override
    Message steps(RunContext context) {
        try {
            transfers.start();
            List<String> path = new ArrayList<>();
            path.add(active);
            while (true) {
                if (Thread.currentThread().isInterrupted()) {
                    throw new CancellationException("hand-off group '" + name + "' was cancelled");
                }
                String current = active;
                Message reply = members.get(current).run(context);
                if (reply == null) {
                    throw new AgentException(name, "member '" + current + "' of hand-off group '" + name
                            + "' returned null instead of a reply", null);
                }
                Transfers.Transfer transfer = transfers.take();
                if (transfer == null) {
                    return reply;
                }
                if (transfer.refused()) {
                    throw new MaxHandoffsException(name, maxHandoffs, path, transfer.from(), transfer.to());
                }
                int handoffs = transfers.made();
                path.add(transfer.to());
                active = transfer.to();
                emit(context, new AgentEvent.HandedOff(new AgentEvent.Source(transfer.from(),
                        context.parentAgent().orElse(null), context.depth(), null,
                        context.runId().orElse(context.parentRunId().orElse(null)), context.sessionId().orElse(null)),
                        name, transfer.to(), handoffs));
            }
        } finally {
            transfers.end();
        }
    }

    @Override
    String alreadyRunning() {
        return "hand-off group '" + name + "' is already running; it runs one run() at a time";
    }

    private void emit(RunContext context, AgentEvent event) {
        AgentListener to = listener.andThen(context.listener());
        if (to == AgentListener.NONE) {
            return;
        }
        try {
            to.onEvent(event);
        } catch (RuntimeException e) {
            LOG.warn("an event listener of hand-off group '{}' threw on {}; the event is dropped", name,
                    event.getClass().getSimpleName(), e);
        }
    }

    // ------------------------------------------------------------------ accessors

    /**
     * The member that has control: the one the next run starts with.
     *
     * @return its name
     */
    public String active() {
        return active;
    }

    /**
     * The members, in the order they were added.
     *
     * @return the members by name
     */
    public Map<String, Runner> members() {
        return Collections.unmodifiableMap(members);
    }

    /**
     * The most transfers in one run.
     *
     * @return the limit
     */
    public int maxHandoffs() {
        return maxHandoffs;
    }

    @Override
    public String toString() {
        return "Handoff[" + name + ", members " + members.keySet() + ", active " + active + "]";
    }

    // ------------------------------------------------------------------ context

    /** What a member's factory gets: the shared chat and the member's transfer tools. */
    public final class Context {
        private final String member;
        private final ToolBox transfers;

        private Context(String member, ToolBox transfers) {
            this.member = member;
            this.transfers = transfers;
        }

        /**
         * The member's name: the runner built must carry it.
         *
         * @return the name
         */
        public String name() {
            return member;
        }

        /**
         * The member's description, as given to the builder.
         *
         * @return the description; may be empty
         */
        public String description() {
            return descriptions.get(member);
        }

        /**
         * The hand-off group's name.
         *
         * @return the name
         */
        public String group() {
            return name;
        }

        /**
         * The chat every member works on.
         *
         * @return the shared chat
         */
        public Chat chat() {
            return shared;
        }

        /**
         * One {@code transfer_to_<other>} tool for every other member, in the order they were
         * added.
         *
         * @return the toolbox
         */
        public ToolBox transfers() {
            return transfers;
        }

        /**
         * The group's listener, to pass to the member's agent.
         *
         * @return the listener
         */
        public AgentListener listener() {
            return listener;
        }

        /**
         * An agent builder set up for this member: its name and description, the shared chat,
         * the transfer tools (and a stop at them), the group's listener, and the system prompt
         * kept out of the shared chat. Add the completer, instructions and tools.
         *
         * @return the builder
         */
        public Agent.Builder agent() {
            return Agent.builder(member)
                    .description(description())
                    .chat(shared)
                    .toolboxes(transfers)
                    .stopAtTools(transfers.names().toArray(String[]::new))
                    .systemPromptInChat(false)
                    .listener(listener);
        }
    }

    // ------------------------------------------------------------------ builder

    /** Collects a hand-off group's settings: at least two members are required. */
    public static final class Builder {
        private final String name;
        private final Map<String, String> descriptions = new LinkedHashMap<>();
        private final Map<String, Function<Context, ? extends Runner>> factories = new LinkedHashMap<>();
        private Chat chat;
        private String start;
        private int maxHandoffs = DEFAULT_MAX_HANDOFFS;
        private AgentListener listener = AgentListener.NONE;

        private Builder(String name) {
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("Handoff name must not be null or blank");
            }
            this.name = name;
        }

        /**
         * Adds a member.
         *
         * @param member its name: letters, digits, '_' or '-', as the tool {@code transfer_to_<name>} needs
         * @param description what it does: shown to the others in its transfer tool's description
         * @param factory builds the member, once, on {@link Context#chat()}
         * @return this builder
         */
        public Builder member(String member, String description, Function<Context, ? extends Runner> factory) {
            if (member == null || !MEMBER_NAME.matcher(member).matches()) {
                throw new IllegalArgumentException("member name '" + member + "' of hand-off group '" + name
                        + "' cannot name a tool " + TRANSFER_PREFIX + member
                        + ": use 1 to 52 letters, digits, '_' or '-'");
            }
            if (description == null) {
                throw new IllegalArgumentException("member '" + member + "' of hand-off group '" + name
                        + "' description must not be null");
            }
            if (factory == null) {
                throw new IllegalArgumentException("member '" + member + "' of hand-off group '" + name
                        + "' factory must not be null");
            }
            if (descriptions.containsKey(member)) {
                throw new IllegalArgumentException("hand-off group '" + name + "' has two members named '" + member + "'");
            }
            descriptions.put(member, description);
            factories.put(member, factory);
            return this;
        }

        /**
         * The chat the members share, for example one already holding a system message for the
         * whole group; by default a new one.
         *
         * @param value the chat
         * @return this builder
         */
        public Builder chat(Chat value) {
            if (value == null) {
                throw new IllegalArgumentException("Handoff '" + name + "' chat must not be null");
            }
            this.chat = value;
            return this;
        }

        /**
         * The member that has control first; by default the first added.
         *
         * @param member its name
         * @return this builder
         */
        public Builder start(String member) {
            if (member == null) {
                throw new IllegalArgumentException("Handoff '" + name + "' start must not be null");
            }
            this.start = member;
            return this;
        }

        /**
         * The most transfers in one run. Default {@link Handoff#DEFAULT_MAX_HANDOFFS}.
         *
         * @param value the limit; 0 allows none
         * @return this builder
         */
        public Builder maxHandoffs(int value) {
            if (value < 0) {
                throw new IllegalArgumentException("Handoff '" + name + "' maxHandoffs must not be negative, was " + value);
            }
            this.maxHandoffs = value;
            return this;
        }

        /**
         * The listener for the group's {@link AgentEvent.HandedOff} events; {@link Context#agent()}
         * gives it to the members' agents too.
         *
         * @param value the listener
         * @return this builder
         */
        public Builder listener(AgentListener value) {
            if (value == null) {
                throw new IllegalArgumentException("Handoff '" + name + "' listener must not be null");
            }
            this.listener = value;
            return this;
        }

        /**
         * Builds the group and, through their factories, its members.
         *
         * @return the group
         * @throws IllegalArgumentException when there are fewer than two members, the start is
         *     not a member, or a factory builds a runner with another name or on another chat
         */
        public Handoff build() {
            if (descriptions.size() < 2) {
                throw new IllegalArgumentException("hand-off group '" + name + "' needs at least two members, has "
                        + descriptions.size());
            }
            if (start != null && !descriptions.containsKey(start)) {
                throw new IllegalArgumentException("hand-off group '" + name + "' cannot start with '" + start
                        + "': it is not a member; members: " + String.join(", ", descriptions.keySet()));
            }
            return new Handoff(this);
        }
    }
}
