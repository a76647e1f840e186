package dev.shelly.agent;

import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import java.util.function.Supplier;

/**
 * Something that works on a chat and returns a final message: an {@link Agent}, an agent wrapped
 * in {@link Middleware}, and anything that composes runners (a team, a hand-off group, an agent
 * used as a tool). Runners nest inside each other through this interface.
 *
 * <p>{@link #run()} blocks until the work is done. It answers interruption of the calling
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
     * Does the work.
     *
     * @return the final message
     * @throws java.util.concurrent.CancellationException when the calling thread is interrupted
     */
    Message run();

    /**
     * A runner with the name and chat of another whose {@link #run()} is the given body: the
     * building block of middleware.
     *
     * <pre>{@code
     * Middleware audit = next -> Runner.around(next, () -> {
     *     Message reply = next.run();
     *     audit(next.name(), reply);
     *     return reply;
     * });
     * }</pre>
     *
     * @param inner the runner whose name and chat to keep
     * @param body what {@link #run()} does
     * @return the runner
     */
    static Runner around(Runner inner, Supplier<Message> body) {
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
            public Message run() {
                return body.get();
            }

            @Override
            public String toString() {
                return "Runner[" + inner.name() + "]";
            }
        };
    }
}
