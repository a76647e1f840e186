package dev.shelly.modeladapter.scripted;

import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.chats.Part;
import dev.shelly.chats.Role;
import dev.shelly.chats.Text;
import dev.shelly.chats.ToolCall;
import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.Usage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * One turn of a {@link ScriptedCompleter}'s script: what the scripted model does when it is
 * called: answer (with text, tool calls or a delegation), fail, wait, or hang until interrupted.
 *
 * <p>Tool calls made by the factories here get ids {@code call_1}, {@code call_2}, ... counted
 * over the tool calls already in the chat, so ids are unique within a chat and the same on
 * every run.
 */
public sealed interface Step permits Step.Answer, Step.Fail, Step.Hang, Step.Delayed {

    /** The sender of scripted replies; an agent replaces it with its own name. */
    String SENDER = "assistant";

    /**
     * A final answer with this text.
     *
     * @param text the reply
     * @return the step
     */
    static Answer reply(String text) {
        if (text == null) {
            throw new IllegalArgumentException("Step.reply text must not be null");
        }
        return new Answer(chat -> Message.text(SENDER, Role.ASSISTANT, text), null);
    }

    /**
     * A final answer whose text is computed from the chat, for example echoing the task:
     * {@code Step.reply(chat -> "done: " + chat.last().orElseThrow().text())}.
     *
     * @param text computes the reply from the chat the model sees
     * @return the step
     */
    static Answer reply(Function<Chat, String> text) {
        if (text == null) {
            throw new IllegalArgumentException("Step.reply function must not be null");
        }
        return new Answer(chat -> Message.text(SENDER, Role.ASSISTANT, text.apply(chat)), null);
    }

    /**
     * A reply calling one tool.
     *
     * @param name the tool's name
     * @param arguments the arguments as JSON text, such as {@code {"city":"Paris"}}
     * @return the step
     */
    static Answer toolCall(String name, String arguments) {
        return toolCalls(new Call(name, arguments));
    }

    /**
     * A reply calling several tools in one turn.
     *
     * @param calls the calls, in order
     * @return the step
     */
    static Answer toolCalls(Call... calls) {
        if (calls == null || calls.length == 0) {
            throw new IllegalArgumentException("Step.toolCalls needs at least one call");
        }
        List<Call> list = List.of(calls);
        return new Answer(chat -> {
            int first = countToolCalls(chat);
            List<Part> parts = new ArrayList<>(list.size());
            for (int i = 0; i < list.size(); i++) {
                parts.add(new ToolCall("call_" + (first + i + 1), list.get(i).name(), list.get(i).arguments()));
            }
            return new Message(SENDER, Role.ASSISTANT, parts);
        }, null);
    }

    /**
     * A reply calling the {@code delegate} tool with one task and no context.
     *
     * @param agent the agent to delegate to
     * @param task what it should do
     * @return the step
     */
    static Answer delegate(String agent, String task) {
        return delegate(new Task(agent, task, null));
    }

    /**
     * A reply calling the {@code delegate} tool with one task.
     *
     * @param agent the agent to delegate to
     * @param task what it should do
     * @param context what it needs to know
     * @return the step
     */
    static Answer delegate(String agent, String task, String context) {
        return delegate(new Task(agent, task, context));
    }

    /**
     * A reply calling the {@code delegate} tool with several tasks, which run concurrently.
     *
     * <p>The arguments are {@code {"tasks":[{"agent":..,"task":..,"context":..}, ...]}}, with
     * {@code context} left out where it is null.
     *
     * @param tasks the tasks, in order
     * @return the step
     */
    static Answer delegate(Task... tasks) {
        if (tasks == null || tasks.length == 0) {
            throw new IllegalArgumentException("Step.delegate needs at least one task");
        }
        StringBuilder json = new StringBuilder("{\"tasks\":[");
        for (int i = 0; i < tasks.length; i++) {
            if (tasks[i] == null) {
                throw new IllegalArgumentException("Step.delegate tasks[" + i + "] must not be null");
            }
            json.append(i == 0 ? "" : ",").append(tasks[i].toJson());
        }
        return toolCall("delegate", json.append("]}").toString());
    }

    /**
     * A reply exactly as given (ids included).
     *
     * @param reply the reply
     * @return the step
     */
    static Answer message(Message reply) {
        if (reply == null) {
            throw new IllegalArgumentException("Step.message reply must not be null");
        }
        return new Answer(chat -> reply, null);
    }

    /**
     * A reply computed from the chat.
     *
     * @param reply computes the reply; must not return null
     * @return the step
     */
    static Answer answer(Function<Chat, Message> reply) {
        if (reply == null) {
            throw new IllegalArgumentException("Step.answer function must not be null");
        }
        return new Answer(reply, null);
    }

    /**
     * The model fails with this exception.
     *
     * @param error the failure to throw
     * @return the step
     */
    static Fail fail(ModelException error) {
        return new Fail(error);
    }

    /**
     * The model never answers: the call waits until the calling thread is interrupted, then
     * throws a {@link java.util.concurrent.CancellationException}. For cancellation tests.
     *
     * @return the step
     */
    static Hang hang() {
        return new Hang();
    }

    /**
     * This step after a wait, as a slow model would answer. The wait answers interrupts with a
     * {@link java.util.concurrent.CancellationException}.
     *
     * @param delay how long to wait first
     * @return the delayed step
     */
    default Delayed after(Duration delay) {
        return new Delayed(delay, this);
    }

    private static int countToolCalls(Chat chat) {
        int n = 0;
        for (Message m : chat.messages()) {
            for (Part p : m.parts()) {
                if (p instanceof ToolCall) {
                    n++;
                }
            }
        }
        return n;
    }

    /**
     * A reply built from the chat the model sees.
     *
     * @param reply builds the reply
     * @param usage the usage the reply reports, or null for {@link Usage#ZERO}
     */
    record Answer(Function<Chat, Message> reply, Usage usage) implements Step {
        /** Validates the function. */
        public Answer {
            if (reply == null) {
                throw new IllegalArgumentException("Step.Answer reply must not be null");
            }
        }

        /**
         * A copy of this answer reporting the given usage.
         *
         * @param value the usage
         * @return the new step
         */
        public Answer withUsage(Usage value) {
            return new Answer(reply, value);
        }

        /**
         * A copy of this answer with text before its other parts, as models often say what they
         * are about to do before calling a tool.
         *
         * @param text the text to put first
         * @return the new step
         */
        public Answer withText(String text) {
            if (text == null) {
                throw new IllegalArgumentException("Step.Answer.withText text must not be null");
            }
            Function<Chat, Message> inner = reply;
            return new Answer(chat -> {
                Message m = inner.apply(chat);
                List<Part> parts = new ArrayList<>(m.parts().size() + 1);
                parts.add(new Text(text));
                parts.addAll(m.parts());
                return new Message(m.sender(), m.role(), parts, m.metadata());
            }, usage);
        }
    }

    /**
     * The model fails.
     *
     * @param error the failure to throw
     */
    record Fail(ModelException error) implements Step {
        /** Validates the error. */
        public Fail {
            if (error == null) {
                throw new IllegalArgumentException("Step.Fail error must not be null");
            }
        }
    }

    /** The model never answers until it is interrupted. */
    record Hang() implements Step {}

    /**
     * A step taken after a wait.
     *
     * @param delay how long to wait first
     * @param then what to do after the wait
     */
    record Delayed(Duration delay, Step then) implements Step {
        /** Validates the delay and the step. */
        public Delayed {
            if (delay == null || delay.isNegative()) {
                throw new IllegalArgumentException("Step.Delayed delay must not be null or negative, was " + delay);
            }
            if (then == null) {
                throw new IllegalArgumentException("Step.Delayed step must not be null");
            }
        }
    }

    /**
     * One tool call of a {@link #toolCalls} step.
     *
     * @param name the tool's name
     * @param arguments the arguments as JSON text
     */
    record Call(String name, String arguments) {
        /** Validates the name. */
        public Call {
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("Step.Call name must not be null or blank");
            }
        }
    }

    /**
     * One task of a {@link #delegate(Task...)} step.
     *
     * @param agent the agent to delegate to
     * @param task what it should do
     * @param context what it needs to know, or null
     */
    record Task(String agent, String task, String context) {
        /** Validates the agent and the task. */
        public Task {
            if (agent == null || task == null) {
                throw new IllegalArgumentException("Step.Task needs an agent and a task");
            }
        }

        String toJson() {
            StringBuilder sb = new StringBuilder("{\"agent\":").append(Json.quote(agent))
                    .append(",\"task\":").append(Json.quote(task));
            if (context != null) {
                sb.append(",\"context\":").append(Json.quote(context));
            }
            return sb.append('}').toString();
        }
    }
}
