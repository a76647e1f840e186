package dev.shelly.testing;

import dev.shelly.chats.Message;
import dev.shelly.chats.Part;
import dev.shelly.chats.Role;
import dev.shelly.chats.Text;
import dev.shelly.chats.ToolCall;
import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.ModelResponse;
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
 * over the tool calls already in the request's messages, so ids are unique within a chat and
 * the same on every run.
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
        Message reply = Message.text(SENDER, Role.ASSISTANT, text);
        return new Answer(request -> ModelResponse.of(reply), null, null);
    }

    /**
     * A final answer whose text is computed from the request, for example echoing the task:
     * {@code Step.reply(request -> "done: " + request.last().orElseThrow().text())}.
     *
     * @param text computes the reply from the request the model sees
     * @return the step
     */
    static Answer reply(Function<ModelRequest, String> text) {
        if (text == null) {
            throw new IllegalArgumentException("Step.reply function must not be null");
        }
        return new Answer(request -> ModelResponse.of(Message.text(SENDER, Role.ASSISTANT, text.apply(request))),
                null, null);
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
        return new Answer(request -> {
            int first = countToolCalls(request);
            List<Part> parts = new ArrayList<>(list.size());
            for (int i = 0; i < list.size(); i++) {
                parts.add(new ToolCall("call_" + (first + i + 1), list.get(i).name(), list.get(i).arguments()));
            }
            return ModelResponse.of(new Message(SENDER, Role.ASSISTANT, parts));
        }, null, null);
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
        return new Answer(request -> ModelResponse.of(reply), null, null);
    }

    /**
     * A reply computed from the request.
     *
     * @param reply computes the reply; must not return null
     * @return the step
     */
    static Answer answer(Function<ModelRequest, Message> reply) {
        if (reply == null) {
            throw new IllegalArgumentException("Step.answer function must not be null");
        }
        return new Answer(request -> {
            Message m = reply.apply(request);
            if (m == null) {
                throw new IllegalStateException("a scripted answer returned null instead of a message");
            }
            return ModelResponse.of(m);
        }, null, null);
    }

    /**
     * A whole response computed from the request, for tests that need cache usage, a stop reason
     * or a model name. The step's own usage and model, when set, replace the response's.
     *
     * @param response computes the response; must not return null
     * @return the step
     */
    static Answer respond(Function<ModelRequest, ModelResponse> response) {
        if (response == null) {
            throw new IllegalArgumentException("Step.respond function must not be null");
        }
        return new Answer(response, null, null);
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

    private static int countToolCalls(ModelRequest request) {
        int n = 0;
        for (Message m : request.messages()) {
            for (Part p : m.parts()) {
                if (p instanceof ToolCall) {
                    n++;
                }
            }
        }
        return n;
    }

    /**
     * A response built from the request the model sees.
     *
     * @param respond builds the response
     * @param usage the usage the response reports, or null for the response's own
     *     ({@link Usage#ZERO} unless a {@link #respond} step set one)
     * @param model the model the response names, or null for the response's own
     */
    record Answer(Function<ModelRequest, ModelResponse> respond, Usage usage, String model) implements Step {
        /** Validates the function. */
        public Answer {
            if (respond == null) {
                throw new IllegalArgumentException("Step.Answer function must not be null");
            }
        }

        /**
         * A copy of this answer reporting the given usage.
         *
         * @param value the usage
         * @return the new step
         */
        public Answer withUsage(Usage value) {
            return new Answer(respond, value, model);
        }

        /**
         * A copy of this answer whose response names a model, for cost tests.
         *
         * @param value the model's name
         * @return the new step
         */
        public Answer withModel(String value) {
            if (value == null || value.isBlank()) {
                throw new IllegalArgumentException("Step.Answer.withModel model must not be null or blank");
            }
            return new Answer(respond, usage, value);
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
            Function<ModelRequest, ModelResponse> inner = respond;
            return new Answer(request -> {
                ModelResponse r = inner.apply(request);
                Message m = r.message();
                List<Part> parts = new ArrayList<>(m.parts().size() + 1);
                parts.add(new Text(text));
                parts.addAll(m.parts());
                return r.withMessage(new Message(m.sender(), m.role(), parts, m.metadata()));
            }, usage, model);
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
