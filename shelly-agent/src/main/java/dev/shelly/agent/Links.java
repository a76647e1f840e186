package dev.shelly.agent;

import dev.shelly.agent.internal.Observers;
import dev.shelly.chats.Message;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.ModelResponse;
import java.util.List;
import java.util.function.Supplier;

/**
 * The older ways into a run as links of the one chain ({@link RunInterceptor}): hooks, middleware
 * and observers are conveniences that register one of these, so the loop knows only the chain.
 */
final class Links {
    private Links() {}

    private static String agentOf(RunContext context) {
        return context.agent().orElse("?");
    }

    /**
     * A {@link ModelCallHook}: its before-half rewrites the request on the way down, its
     * after-half sees the response on the way back, with the request the model was sent.
     *
     * @param hook the hook
     * @param number its place among the run's model-call hooks, from 1, for the messages
     */
    record ModelHook(ModelCallHook hook, int number) implements RunInterceptor {
        @Override
        public ModelResponse interceptModelCall(ModelChain chain) {
            String agent = agentOf(chain.call().run());
            ModelRequest request = hook.beforeModelCall(chain.call());
            if (request == null) {
                throw nullFrom(agent, "a request");
            }
            ModelResponse response = chain.proceed(request);
            ModelCall sent = ((Chains.Model) chain).sent()[0];
            response = hook.afterModelCall(sent, response);
            if (response == null) {
                throw nullFrom(agent, "a response");
            }
            return response;
        }

        private AgentException nullFrom(String agent, String what) {
            return new AgentException(agent, "model-call hook " + number + " of agent '" + agent + "' returned null instead of "
                    + what, null);
        }
    }

    /**
     * A {@link ToolCallHook}: its before-half is a link of the decision (a rewrite proceeds with
     * the new arguments; a deny or a pause ends the chain), its after-half a link around the
     * tool's execution.
     *
     * @param hook the hook
     * @param number its place among the run's tool-call hooks, from 1, for the messages
     */
    record ToolHook(ToolCallHook hook, int number) implements RunInterceptor {
        @Override
        public ToolDecision decideToolCall(DecisionChain chain) {
            ToolCall call = chain.invocation().call();
            String agent = agentOf(chain.invocation().run());
            ToolDecision decision;
            try {
                decision = hook.beforeToolCall(chain.invocation());
            } catch (RuntimeException e) {
                throw new AgentException(agent, "tool-call hook " + number + " of agent '" + agent + "' failed on tool '"
                        + call.name() + "': " + e, e);
            }
            if (decision == null) {
                throw new AgentException(agent, "tool-call hook " + number + " of agent '" + agent
                        + "' returned null instead of a decision", null);
            }
            return switch (decision) {
                case ToolDecision.Allow allow -> chain.proceed(call);
                case ToolDecision.Rewrite rewrite -> {
                    ToolDecision rest = chain.proceed(new ToolCall(call.id(), call.name(), rewrite.arguments()));
                    yield rest instanceof ToolDecision.Allow ? rewrite : rest;
                }
                default -> decision;
            };
        }

        @Override
        public ToolResult interceptToolCall(ToolChain chain) {
            ToolResult result = chain.proceed(chain.invocation().call());
            String agent = agentOf(chain.invocation().run());
            ToolResult next;
            try {
                next = hook.afterToolCall(chain.invocation(), result);
            } catch (RuntimeException e) {
                throw new AgentException(agent, "tool-call hook " + number + " of agent '" + agent
                        + "' failed on the result of tool '" + chain.invocation().call().name() + "': " + e, e);
            }
            if (next == null) {
                throw new AgentException(agent, "tool-call hook " + number + " of agent '" + agent
                        + "' returned null instead of a result", null);
            }
            return next;
        }
    }

    /**
     * An agent's {@link Middleware}, around the run.
     *
     * @param middleware the middleware
     * @param index its place in the agent's list, from 0, for the messages
     */
    record Around(Middleware middleware, int index) implements RunInterceptor {
        @Override
        public Message interceptRun(RunChain chain) {
            Run run = ((Chains.Run) chain).run();
            Message[] pausedAt = new Message[1];
            Runner inner = Runner.around(chain.agent(), context -> {
                Message reply = chain.proceed();
                if (chain.paused()) {
                    // A Runner knows a pause only as its exception: pass it through the middleware so,
                    // as it always was (a logger logs it, a guardrail does not check it).
                    pausedAt[0] = reply;
                    throw run.pauseSignal();
                }
                return reply;
            });
            Runner wrapped = middleware.wrap(inner);
            if (wrapped == null) {
                throw new IllegalStateException("middleware[" + index + "] (" + middleware
                        + ") returned null instead of a runner for '" + chain.agent().name() + "'");
            }
            Message reply;
            try {
                reply = wrapped.run(chain.context());
            } catch (RunPausedException e) {
                if (run.paused != null && e == run.pauseSignal()) {
                    return pausedAt[0];
                }
                throw e;
            }
            if (reply == null) {
                throw new IllegalStateException("the middleware of agent '" + chain.agent().name()
                        + "' returned null instead of a message");
            }
            return reply;
        }
    }

    /**
     * The context's {@link RunObserver}s, as one link: each starts an observation on the way
     * down (in the order added) and ends it on the way back (in reverse), on the same thread.
     *
     * @param observers the active observers
     */
    record Observed(List<RunObserver> observers) implements RunInterceptor {
        @Override
        public Message interceptRun(RunChain chain) {
            RunObserver.Observation<Message> observed = Observers.start(observers,
                    o -> o.runStarted(chain.agent(), chain.context()));
            Message reply;
            try {
                reply = chain.proceed();
            } catch (RuntimeException | Error e) {
                observed.end(null, e);
                throw e;
            }
            if (chain.paused()) {
                observed.end(null, ((Chains.Run) chain).run().pauseSignal());
            } else {
                observed.end(reply, null);
            }
            return reply;
        }

        @Override
        public ModelResponse interceptModelCall(ModelChain chain) {
            return within(Observers.start(observers, o -> o.modelCallStarted(chain.call(), chain.target())),
                    () -> chain.proceed(chain.call().request()));
        }

        @Override
        public ToolResult interceptToolCall(ToolChain chain) {
            ToolInvocation invocation = chain.invocation();
            return within(Observers.start(observers, o -> o.toolCallStarted(invocation)),
                    () -> chain.proceed(invocation.call()));
        }

        /** Does the work inside an observation, which ends with its result or its failure. */
        private static <R> R within(RunObserver.Observation<R> observed, Supplier<R> work) {
            R result;
            try {
                result = work.get();
            } catch (RuntimeException | Error e) {
                observed.end(null, e);
                throw e;
            }
            observed.end(result, null);
            return result;
        }
    }
}
