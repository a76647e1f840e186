package dev.shelly.agent;

import static dev.shelly.agent.Fixtures.tool;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.agent.RunInterceptor.ModelCall;
import dev.shelly.agent.RunInterceptor.ToolInvocation;
import dev.shelly.chats.Message;
import dev.shelly.chats.ToolResult;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.ModelTarget;
import dev.shelly.testing.ScriptedCompleter;
import dev.shelly.testing.Step;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolOutput;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The one chain: its order, stated once in {@link RunInterceptor}, and what a link may do. */
@Timeout(30)
class InterceptorTest {

    private final List<String> trace = Collections.synchronizedList(new ArrayList<>());

    /** A link that writes down every step it sees, going down ("name>") and coming back ("name<"). */
    private RunInterceptor traced(String name) {
        return new RunInterceptor() {
            @Override
            public Message interceptRun(RunChain chain) {
                trace.add(name + ">run");
                Message reply = chain.proceed();
                trace.add(name + "<run");
                return reply;
            }

            @Override
            public ModelResponse interceptModelCall(ModelChain chain) {
                trace.add(name + ">model");
                ModelResponse response = chain.proceed(chain.call().request());
                trace.add(name + "<model");
                return response;
            }

            @Override
            public ToolDecision decideToolCall(DecisionChain chain) {
                trace.add(name + ">decide");
                ToolDecision decision = chain.proceed(chain.invocation().call());
                trace.add(name + "<decide");
                return decision;
            }

            @Override
            public ToolResult interceptToolCall(ToolChain chain) {
                trace.add(name + ">tool");
                ToolResult result = chain.proceed(chain.invocation().call());
                trace.add(name + "<tool");
                return result;
            }

            @Override
            public void onEvent(AgentEvent event) {
                event(name, event);
            }

            @Override
            public boolean observesEvents() {
                return true;
            }

            @Override
            public String toString() {
                return name;
            }
        };
    }

    /** Writes down the events that mark a run's start and end and a tool call's start, as "name:Event". */
    private void event(String name, AgentEvent event) {
        if (event instanceof AgentEvent.AgentStarted || event instanceof AgentEvent.ToolCallStarted
                || event instanceof AgentEvent.AgentFinished) {
            trace.add(name + ":" + event.getClass().getSimpleName());
        }
    }

    private ToolBox echo() {
        return ToolBox.of(tool("echo", (input, ctx) -> {
            trace.add("tool");
            return ToolOutput.text("echoed");
        }));
    }

    /**
     * The one test of the order that {@link RunInterceptor} documents: run, model, decision, tool
     * and event callbacks across the context's links and the agent's defaults (interceptors,
     * hooks made by the static methods, middleware, listeners) and the context's observers.
     */
    @Test
    void theChainRunsInTheDocumentedOrderAndUnwindsInReverse() {
        RunObserver observer = new RunObserver() {
            @Override
            public Observation<Message> runStarted(RunInterceptor.RunChain run) {
                trace.add("observer>run");
                return (r, f) -> trace.add("observer<run");
            }

            @Override
            public Observation<ModelResponse> modelCallStarted(ModelCall call, ModelTarget target) {
                trace.add("observer>model");
                return (r, f) -> trace.add("observer<model");
            }

            @Override
            public Observation<ToolResult> toolCallStarted(ToolInvocation call) {
                trace.add("observer>tool");
                return (r, f) -> trace.add("observer<tool");
            }
        };
        RunInterceptor contextBefore = RunInterceptor.beforeModelCall(call -> {
            trace.add("contextHook>model");
            return call.request();
        });
        RunInterceptor contextAfter = RunInterceptor.afterModelCall((call, response) -> {
            trace.add("contextHook<model");
            return response;
        });
        RunInterceptor agentBefore = RunInterceptor.beforeToolCall(call -> {
            trace.add("agentHook>decide");
            return ToolDecision.ALLOW;
        });
        RunInterceptor agentAfter = RunInterceptor.afterToolCall((call, result) -> {
            trace.add("agentHook<tool");
            return result;
        });
        RunInterceptor middleware = new RunInterceptor() {
            @Override
            public Message interceptRun(RunChain chain) {
                trace.add("middleware>run");
                Message reply = chain.proceed();
                trace.add("middleware<run");
                return reply;
            }

            @Override
            public void onEvent(AgentEvent event) {
                event("middleware", event);
            }

            @Override
            public boolean observesEvents() {
                return true;
            }
        };
        Agent agent = Agent.builder("a").toolboxes(echo())
                .completer(ScriptedCompleter.of(Step.toolCalls(new Step.Call("echo", "{}")), Step.reply("done")))
                .interceptors(traced("agent1"), agentBefore, agentAfter, traced("agent2"))
                .middleware(middleware)
                .listener(e -> event("agentListener", e))
                .build();
        RunContext scope = RunContext.builder()
                .observers(observer)
                .interceptors(traced("context1"), contextBefore, contextAfter, traced("context2"))
                .listener(e -> event("contextListener", e))
                .build();

        agent.run("go", scope);

        // Events: the agent's listener, the context's listener and links, then the agent's links.
        assertThat(trace).containsExactly(
                "agentListener:AgentStarted", "contextListener:AgentStarted", "context1:AgentStarted",
                "context2:AgentStarted", "agent1:AgentStarted", "agent2:AgentStarted", "middleware:AgentStarted",
                "context1>run", "context2>run", "agent1>run", "agent2>run", "middleware>run", "observer>run",
                // first model call: the reply calls echo
                "context1>model", "contextHook>model", "context2>model", "agent1>model", "agent2>model", "observer>model",
                "observer<model", "agent2<model", "agent1<model", "context2<model", "contextHook<model", "context1<model",
                // every call of the turn is decided before any runs; the approvals would be innermost
                "context1>decide", "context2>decide", "agent1>decide", "agentHook>decide", "agent2>decide",
                "agent2<decide", "agent1<decide", "context2<decide", "context1<decide",
                "agentListener:ToolCallStarted", "contextListener:ToolCallStarted", "context1:ToolCallStarted",
                "context2:ToolCallStarted", "agent1:ToolCallStarted", "agent2:ToolCallStarted", "middleware:ToolCallStarted",
                "context1>tool", "context2>tool", "agent1>tool", "agent2>tool", "observer>tool",
                "tool",
                "observer<tool", "agent2<tool", "agentHook<tool", "agent1<tool", "context2<tool", "context1<tool",
                // second model call: the answer
                "context1>model", "contextHook>model", "context2>model", "agent1>model", "agent2>model", "observer>model",
                "observer<model", "agent2<model", "agent1<model", "context2<model", "contextHook<model", "context1<model",
                "observer<run", "middleware<run", "agent2<run", "agent1<run", "context2<run", "context1<run",
                "agentListener:AgentFinished", "contextListener:AgentFinished", "context1:AgentFinished",
                "context2:AgentFinished", "agent1:AgentFinished", "agent2:AgentFinished", "middleware:AgentFinished");
    }

    @Test
    void aLinkMayAnswerWithoutProceedingAndRewriteWhatGoesDown() {
        RunInterceptor guard = new RunInterceptor() {
            @Override
            public ToolDecision decideToolCall(DecisionChain chain) {
                return chain.proceed(new dev.shelly.chats.ToolCall(chain.invocation().call().id(),
                        chain.invocation().call().name(), "{\"x\":1}"));
            }

            @Override
            public ToolResult interceptToolCall(ToolChain chain) {
                trace.add("args " + chain.invocation().call().arguments());
                return ToolResult.of(chain.invocation().call().id(), "answered by the link");
            }
        };
        Agent agent = Agent.builder("a").toolboxes(echo())
                .completer(ScriptedCompleter.of(Step.toolCalls(new Step.Call("echo", "{}")), Step.reply("done")))
                .interceptors(guard).build();

        agent.run("go");

        assertThat(trace).containsExactly("args {\"x\":1}");
        assertThat(agent.chat().messages().get(3).toolResults())
                .containsExactly(ToolResult.of("call_1", "answered by the link"));
        assertThat(agent.chat().messages().get(2).toolCalls().getFirst().arguments()).isEqualTo("{}");
    }

    @Test
    void aLinkThatWatchesEventsSeesThoseOfTheRunAndOfNoOtherScope() {
        List<AgentEvent> seen = Collections.synchronizedList(new ArrayList<>());
        RunInterceptor watcher = new RunInterceptor() {
            @Override
            public void onEvent(AgentEvent event) {
                seen.add(event);
            }

            @Override
            public boolean observesEvents() {
                return true;
            }
        };
        Agent agent = Agent.builder("a").completer(ScriptedCompleter.of(Step.reply("hi"))).build();

        agent.run("go", RunContext.builder().interceptors(watcher).build());

        assertThat(seen).first().isInstanceOf(AgentEvent.AgentStarted.class);
        assertThat(seen).last().isInstanceOf(AgentEvent.AgentFinished.class);
    }

    @Test
    void aLinkThatReturnsNullFailsTheRunNamingIt() {
        RunInterceptor broken = new RunInterceptor() {
            @Override
            public ModelResponse interceptModelCall(ModelChain chain) {
                return null;
            }

            @Override
            public String toString() {
                return "broken";
            }
        };
        Agent agent = Agent.builder("a").completer(ScriptedCompleter.of(Step.reply("hi"))).interceptors(broken).build();

        org.assertj.core.api.Assertions.assertThatThrownBy(() -> agent.run("go"))
                .isInstanceOf(AgentException.class)
                .hasMessageContaining("interceptor 1 (broken) of agent 'a' returned null instead of a response");
    }

    @Test
    void aPauseIsAValueTheChainReturnsAndTheRunMethodsSignal() {
        List<Boolean> pausedSeen = Collections.synchronizedList(new ArrayList<>());
        RunInterceptor outer = new RunInterceptor() {
            @Override
            public Message interceptRun(RunChain chain) {
                Message reply = chain.proceed();          // returns normally: nothing was thrown below
                pausedSeen.add(chain.paused());
                trace.add("outer saw " + reply.toolCalls().size() + " waiting call");
                return reply;
            }
        };
        Agent agent = Agent.builder("a").toolboxes(echo())
                .completer(ScriptedCompleter.of(Step.toolCalls(new Step.Call("echo", "{}")), Step.reply("done")))
                .interceptors(outer, RunInterceptor.beforeToolCall(call -> ToolDecision.pause("needs a look")))
                .build();

        org.assertj.core.api.Assertions.assertThatThrownBy(() -> agent.run("go"))
                .isInstanceOf(RunPausedException.class)
                .hasMessageContaining("needs a look");
        assertThat(pausedSeen).containsExactly(true);
        assertThat(trace).containsExactly("outer saw 1 waiting call");
    }
}
