package dev.shelly.agent.internal;

import dev.shelly.agent.AgentException;
import dev.shelly.agent.RunContext;
import dev.shelly.agent.RunInterceptor;
import dev.shelly.agent.RunInterceptor.ModelCall;
import dev.shelly.agent.RunInterceptor.ToolInvocation;
import dev.shelly.agent.ToolDecision;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.ModelTarget;
import java.util.function.Function;

/**
 * The chains a run passes its model calls, decisions and tool calls down: one link per
 * {@link RunInterceptor}, the work itself at the end. A link object is made per step down, so
 * that a link that proceeds twice (say, to retry) starts the rest of the chain afresh. (The
 * walk down the run chain starts at the agent, which its {@code RunChain} names.)
 */
final class Chains {
    private Chains() {}

    private static AgentException nullFrom(RunInterceptor[] links, int index, String agent, String what) {
        return new AgentException(agent, "interceptor " + place(links, index) + " (" + links[index] + ") of agent '"
                + agent + "' returned null instead of " + what, null);
    }

    /** The place of a link among the context's links, from 1, the run's own links not counted. */
    static int place(RunInterceptor[] links, int index) {
        int place = 1;
        for (int i = 0; i < index; i++) {
            if (!(links[i] instanceof Links.Own)) {
                place++;
            }
        }
        return place;
    }

    private static String agentOf(RunContext context) {
        return context.agent().orElse("?");
    }

    /**
     * Around a model call: the completer last. {@link #sent} is the call as it went furthest
     * down the chain (to the completer, unless a link answered itself), shared by every link of
     * the call, for context management, which measures the request that was really sent.
     */
    record Model(RunInterceptor[] links, int index, ModelCall call, ModelTarget target,
            Function<ModelCall, ModelResponse> completer, ModelCall[] sent) implements RunInterceptor.ModelChain {
        @Override
        public ModelResponse proceed(ModelRequest request) {
            if (request == null) {
                throw new AgentException(agentOf(call.run()), "a model-call interceptor of agent '" + agentOf(call.run())
                        + "' proceeded with a null request", null);
            }
            ModelCall next = request == call.request() ? call : new ModelCall(call.run(), call.iteration(), request);
            sent[0] = next;
            if (index == links.length) {
                return completer.apply(next);
            }
            ModelResponse response = links[index].interceptModelCall(new Model(links, index + 1, next, target, completer, sent));
            if (response == null) {
                throw nullFrom(links, index, agentOf(call.run()), "a response");
            }
            return response;
        }
    }

    /**
     * Around the decision about a tool call: the approvals (or allow) last. {@link #effective} is
     * the call as the last link to proceed left it: the arguments the tool runs with.
     */
    record Decision(RunInterceptor[] links, int index, ToolInvocation invocation, Function<ToolCall, ToolDecision> last,
            ToolCall[] effective) implements RunInterceptor.DecisionChain {
        @Override
        public ToolDecision proceed(ToolCall call) {
            String agent = agentOf(invocation.run());
            ToolCall model = invocation.call();
            if (call == null || !call.id().equals(model.id()) || !call.name().equals(model.name())) {
                throw new AgentException(agent, "a tool-call interceptor of agent '" + agent + "' proceeded with "
                        + (call == null ? "no call" : "another call than '" + model.name() + "' (" + model.id() + ")"), null);
            }
            effective[0] = call;
            ToolInvocation next = call == model ? invocation
                    : new ToolInvocation(invocation.run(), invocation.iteration(), call);
            if (index == links.length) {
                return last.apply(call);
            }
            ToolDecision decision = links[index].decideToolCall(new Decision(links, index + 1, next, last, effective));
            if (decision == null) {
                throw nullFrom(links, index, agent, "a decision");
            }
            return decision;
        }
    }

    /** Around a tool call's execution: the tool last. */
    record Tool(RunInterceptor[] links, int index, ToolInvocation invocation, Function<ToolCall, ToolResult> tool)
            implements RunInterceptor.ToolChain {
        @Override
        public ToolResult proceed(ToolCall call) {
            String agent = agentOf(invocation.run());
            if (call == null) {
                throw new AgentException(agent, "a tool-call interceptor of agent '" + agent + "' proceeded with no call",
                        null);
            }
            if (index == links.length) {
                return tool.apply(call);
            }
            ToolInvocation next = call == invocation.call() ? invocation
                    : new ToolInvocation(invocation.run(), invocation.iteration(), call);
            ToolResult result = links[index].interceptToolCall(new Tool(links, index + 1, next, tool));
            if (result == null) {
                throw nullFrom(links, index, agent, "a result");
            }
            return result;
        }
    }
}
