package dev.shelly.agent;

import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import java.util.List;
import java.util.function.Function;

/**
 * Something that works on a chat and returns a final message: an {@link Agent}, an agent wrapped
 * wrapped with {@link #around}, and anything that composes runners (a team, a hand-off group, an agent
 * used as a tool). Runners nest inside each other through this interface.
 *
 * <p>{@link #run(RunContext)} is the one method to implement: it runs inside a
 * {@link RunContext} (the caller's scope; {@link #run()} uses a fresh {@link RunContext#root()}),
 * which carries the session, the application's values, the listener and the links of the interception chain to every
 * agent below, and adds up their usage and cost.
 *
 * <p>{@link #run(RunContext)} blocks until the work is done. It answers interruption of the calling
 * thread by stopping promptly and throwing a {@link java.util.concurrent.CancellationException}
 * with the interrupt flag kept set; other failures are unchecked exceptions, usually
 * {@link dev.shelly.chats.ShellyException}s.
 */
public interface Runner {

    /**
     * The runner's name: the agent's name, kept by every wrapper.
     *
     * @return the name
     */
    String name();

    /**
     * The chat the runner works on, kept by every wrapper.
     *
     * @return the chat
     */
    Chat chat();

    /**
     * Does the work inside a caller's scope: an agent enters its own run context from it, and
     * workflows pass it on to their members.
     *
     * @param context the caller's scope
     * @return the final message
     * @throws java.util.concurrent.CancellationException when the calling thread is interrupted
     */
    Message run(RunContext context);

    /**
     * Does the work in a fresh scope: {@code run(RunContext.root())}.
     *
     * @return the final message
     * @throws java.util.concurrent.CancellationException when the calling thread is interrupted
     */
    default Message run() {
        return run(RunContext.root());
    }

    /**
     * Takes input for the next {@link #run()}: appends the messages to the runner's chat the way
     * the runner needs them there. Workflows give a member its input this way (a team syncing the
     * shared conversation into a member's private chat, an agent used as a tool receiving its
     * task), so that a runner that prepares its chat first still can: an {@link Agent} writes its
     * system prompt before the input when its chat is empty.
     *
     * <p>The default appends the messages, in order, to {@link #chat()}. Wrappers made with
     * {@link #around} pass the input to the runner they wrap.
     *
     * @param input the messages, in order; an empty list changes nothing
     */
    default void receive(List<Message> input) {
        if (input == null) {
            throw new IllegalArgumentException("Runner.receive input of '" + name() + "' must not be null");
        }
        if (!input.isEmpty()) {
            chat().append(input);
        }
    }

    /**
     * A runner with the name and chat of another whose {@link #run(RunContext)} is the given
     * body: the building block of a wrapper. Its {@link #receive} passes the input to the inner
     * runner.
     *
     * <pre>{@code
     * Runner audited = Runner.around(team, context -> {
     *     Message reply = team.run(context);
     *     audit(team.name(), reply);
     *     return reply;
     * });
     * }</pre>
     *
     * @param inner the runner whose name and chat to keep
     * @param body what {@link #run(RunContext)} does with the caller's scope
     * @return the runner
     */
    static Runner around(Runner inner, Function<RunContext, Message> body) {
        if (inner == null || body == null) {
            throw new IllegalArgumentException("Runner.around needs an inner runner and a body");
        }
        return new Runner() {
            @Override
            public String name() {
                return inner.name();
            }

            @Override
            public Chat chat() {
                return inner.chat();
            }

            @Override
            public Message run(RunContext context) {
                if (context == null) {
                    throw new IllegalArgumentException("Runner.run context of '" + inner.name() + "' must not be null");
                }
                return body.apply(context);
            }

            @Override
            public void receive(List<Message> input) {
                inner.receive(input);
            }

            @Override
            public String toString() {
                return "Runner[" + inner.name() + "]";
            }
        };
    }
}
