package dev.shelly.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolHandler;
import dev.shelly.tools.ToolOutput;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

/** Helpers shared by the agent and workflow tests. */
public final class Fixtures {
    public static final String OBJECT = "{\"type\":\"object\"}";

    private Fixtures() {}

    public static Tool tool(String name, ToolHandler handler) {
        return Tool.of(name, "test tool " + name, OBJECT, handler);
    }

    /**
     * A tool that counts down {@code started} when called, then waits until it is interrupted,
     * and runs {@code onInterrupt} when it is.
     */
    public static Tool blockingTool(String name, CountDownLatch started, Runnable onInterrupt) {
        return tool(name, (input, ctx) -> {
            started.countDown();
            try {
                new CountDownLatch(1).await();
            } catch (InterruptedException e) {
                onInterrupt.run();
                throw e;
            }
            return ToolOutput.text("never");
        });
    }

    /** Every tool result of an agent's chat, in order. */
    public static List<ToolResult> results(Agent agent) {
        List<ToolResult> all = new ArrayList<>();
        for (Message m : agent.chat().messages()) {
            all.addAll(m.toolResults());
        }
        return all;
    }

    /** The names of the tools a scripted model was offered in one of its requests, from 0. */
    public static List<String> offered(dev.shelly.testing.ScriptedCompleter model, int request) {
        return model.requests().get(request).tools().stream().map(dev.shelly.chats.ToolDefinition::name).toList();
    }

    /** Asserts the invariant: every tool call in the chat has exactly one result, and no result lacks its call. */
    public static void assertEveryCallAnsweredOnce(Chat chat) {
        Map<String, Integer> answers = new HashMap<>();
        List<String> calls = new ArrayList<>();
        for (Message m : chat.messages()) {
            for (ToolCall c : m.toolCalls()) {
                calls.add(c.id());
            }
            for (ToolResult r : m.toolResults()) {
                answers.merge(r.toolCallId(), 1, Integer::sum);
            }
        }
        assertThat(answers.keySet()).as("tool results answer exactly the tool calls").containsExactlyInAnyOrderElementsOf(calls);
        assertThat(answers.values()).as("one result per call").allMatch(n -> n == 1);
    }

    /** Runs something on a virtual thread and keeps what it returned or threw, and its interrupt flag. */
    public static final class Background {
        public final AtomicReference<Message> reply = new AtomicReference<>();
        public final AtomicReference<Throwable> error = new AtomicReference<>();
        public final AtomicReference<Boolean> interruptedAfter = new AtomicReference<>();
        public final Thread thread;

        public Background(java.util.function.Supplier<Message> body) {
            thread = Thread.ofVirtual().start(() -> {
                try {
                    reply.set(body.get());
                } catch (Throwable t) {
                    error.set(t);
                } finally {
                    interruptedAfter.set(Thread.currentThread().isInterrupted());
                }
            });
        }

        public void interruptAndJoin() throws InterruptedException {
            thread.interrupt();
            thread.join();
        }
    }
}
