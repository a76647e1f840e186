package dev.shelly.agent;

import static dev.shelly.agent.Fixtures.assertEveryCallAnsweredOnce;
import static dev.shelly.agent.Fixtures.results;
import static dev.shelly.agent.Fixtures.tool;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolDefinition;
import dev.shelly.chats.ToolResult;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.testing.ScriptedCompleter;
import dev.shelly.testing.Step;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolOutput;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class HooksTest {

    private final List<String> ran = Collections.synchronizedList(new ArrayList<>());

    private ToolBox tools() {
        return ToolBox.of(tool("read", (input, ctx) -> {
            ran.add("read " + input);
            return ToolOutput.text("read ok");
        }), tool("delete", (input, ctx) -> {
            ran.add("delete " + input);
            return ToolOutput.text("deleted");
        }));
    }

    @Test
    void aDeniedCallIsNotRunAndTheModelReadsTheReason() {
        List<AgentEvent> events = Collections.synchronizedList(new ArrayList<>());
        Agent a = Agent.builder("a").toolboxes(tools()).listener(events::add)
                .completer(ScriptedCompleter.of(Step.toolCalls(new Step.Call("read", "{}"), new Step.Call("delete", "{}")),
                        Step.reply("ok")))
                .interceptors(RunInterceptor.beforeToolCall(inv -> inv.call().name().equals("delete")
                        ? ToolDecision.deny("deleting needs approval") : ToolDecision.ALLOW))
                .build();

        a.run("go");

        assertThat(ran).containsExactly("read {}");
        assertThat(results(a)).containsExactly(ToolResult.of("call_1", "read ok"),
                ToolResult.error("call_2", "tool 'delete' was not run: deleting needs approval"));
        assertThat(events).filteredOn(AgentEvent.ToolCallStarted.class::isInstance)
                .extracting(e -> ((AgentEvent.ToolCallStarted) e).call().name()).containsExactly("read");
        assertThat(events).filteredOn(AgentEvent.ToolCallFinished.class::isInstance)
                .map(AgentEvent.ToolCallFinished.class::cast)
                .filteredOn(f -> f.call().name().equals("delete"))
                .singleElement().satisfies(f -> assertThat(f.took()).isEqualTo(Duration.ZERO));
        assertEveryCallAnsweredOnce(a.chat());
    }

    @Test
    void aRewriteChangesWhatTheToolGetsButNotTheChat() {
        List<ToolCall> started = Collections.synchronizedList(new ArrayList<>());
        Agent a = Agent.builder("a").toolboxes(tools())
                .listener(e -> {
                    if (e instanceof AgentEvent.ToolCallStarted s) {
                        started.add(s.call());
                    }
                })
                .completer(ScriptedCompleter.of(Step.toolCall("read", "{\"path\":\"/etc/passwd\"}"), Step.reply("ok")))
                .interceptors(RunInterceptor.beforeToolCall(inv -> ToolDecision.rewrite("{\"path\":\"/sandbox\"}")))
                .build();

        a.run("go");

        assertThat(ran).containsExactly("read {\"path\":\"/sandbox\"}");
        assertThat(a.chat().messages().get(2).toolCalls())
                .containsExactly(new ToolCall("call_1", "read", "{\"path\":\"/etc/passwd\"}"));
        assertThat(started).containsExactly(new ToolCall("call_1", "read", "{\"path\":\"/sandbox\"}"));
    }

    @Test
    void aToolFilteredOutOfTheRequestIsNotOfferedAndACallToItIsRefused() {
        ScriptedCompleter model = ScriptedCompleter.of(Step.toolCall("delete", "{}"), Step.reply("ok"));
        RunInterceptor readOnly = RunInterceptor.beforeModelCall(call -> {
            List<ToolDefinition> kept = new ArrayList<>();
            for (ToolDefinition d : call.request().tools()) {
                if (!d.name().equals("delete")) {
                    kept.add(d);
                }
            }
            return call.request().withTools(kept);
        });
        Agent a = Agent.builder("a").toolboxes(tools()).completer(model).interceptors(readOnly).build();

        a.run("go");

        assertThat(model.requests().getFirst().toolNames()).containsExactly("read");
        assertThat(ran).isEmpty();
        assertThat(results(a)).containsExactly(
                ToolResult.error("call_1", "tool 'delete' was not offered in this turn; offered tools: read"));
    }

    @Test
    void aModelHookRewritesOnlyWhatTheModelSees() {
        ScriptedCompleter model = ScriptedCompleter.of(Step.reply("ok"));
        RunInterceptor redact = RunInterceptor.beforeModelCall(call -> {
            List<Message> view = new ArrayList<>();
            for (Message m : call.request().messages()) {
                view.add(m.role() == Role.USER ? Message.user("[redacted]") : m);
            }
            return call.request().withMessages(view);
        });
        Agent a = Agent.builder("a").completer(model).interceptors(redact).build();

        a.run("my card is 4111");

        assertThat(model.requests().getFirst().last().orElseThrow().text()).isEqualTo("[redacted]");
        assertThat(a.chat().get(1).text()).isEqualTo("my card is 4111");
    }

    @Test
    void beforeHooksRunInOrderAndAfterHooksInReverseTheContextsOutermost() {
        List<String> trace = Collections.synchronizedList(new ArrayList<>());
        class Tracing implements RunInterceptor {
            private final String label;

            Tracing(String label) {
                this.label = label;
            }

            @Override
            public ModelResponse interceptModelCall(ModelChain chain) {
                trace.add(label + " before model " + chain.call().iteration());
                ModelResponse response = chain.proceed(chain.call().request());
                trace.add(label + " after model " + chain.call().iteration());
                return response;
            }

            @Override
            public ToolDecision decideToolCall(DecisionChain chain) {
                trace.add(label + " before tool");
                return chain.proceed(chain.invocation().call());
            }

            @Override
            public ToolResult interceptToolCall(ToolChain chain) {
                ToolResult result = chain.proceed(chain.invocation().call());
                trace.add(label + " after tool");
                return result;
            }
        }
        Tracing ctx = new Tracing("ctx");
        Tracing one = new Tracing("one");
        Tracing two = new Tracing("two");
        Agent a = Agent.builder("a").toolboxes(tools())
                .completer(ScriptedCompleter.of(Step.toolCall("read", "{}"), Step.reply("ok")))
                .interceptors(one, two).build();

        a.run("go", RunContext.builder().interceptors(ctx).build());

        assertThat(trace).containsExactly(
                "ctx before model 1", "one before model 1", "two before model 1",
                "two after model 1", "one after model 1", "ctx after model 1",
                "ctx before tool", "one before tool", "two before tool",
                "two after tool", "one after tool", "ctx after tool",
                "ctx before model 2", "one before model 2", "two before model 2",
                "two after model 2", "one after model 2", "ctx after model 2");
    }

    @Test
    void anAfterHookCanReplaceATaskResult() {
        Agent a = Agent.builder("a").toolboxes(tools())
                .completer(ScriptedCompleter.of(Step.toolCall("read", "{}"), Step.reply("ok")))
                .interceptors(RunInterceptor.afterToolCall(
                        (call, result) -> ToolResult.of(result.toolCallId(), result.text().toUpperCase())))
                .build();

        a.run("go");

        assertThat(results(a)).containsExactly(ToolResult.of("call_1", "READ OK"));
    }

    @Test
    void contextHooksReachDelegatedChildren() {
        List<String> childRan = Collections.synchronizedList(new ArrayList<>());
        Registry r = new Registry().register("worker", "Works", () -> Agent.builder("worker")
                .toolboxes(ToolBox.of(tool("delete", (input, ctx) -> {
                    childRan.add("delete");
                    return ToolOutput.text("deleted");
                })))
                .completer(ScriptedCompleter.of(Step.toolCall("delete", "{}"),
                        Step.reply(request -> "worker saw: " + request.last().orElseThrow().toolResults().getFirst().text())))
                .build());
        Agent lead = Agent.builder("lead").registry(r)
                .completer(ScriptedCompleter.of(Step.delegate("worker", "clean up"),
                        Step.reply(request -> request.last().orElseThrow().toolResults().getFirst().text())))
                .build();
        RunContext scope = RunContext.builder()
                .interceptors(RunInterceptor.beforeToolCall(inv -> inv.call().name().equals("delete")
                        ? ToolDecision.deny("no deleting in " + inv.run().agent().orElseThrow())
                        : ToolDecision.ALLOW))
                .build();

        Message answer = lead.run("go", scope);

        assertThat(childRan).isEmpty();
        assertThat(answer.text()).isEqualTo(
                "[{\"agent\":\"worker\",\"result\":\"worker saw: tool 'delete' was not run: no deleting in worker\"}]");
    }

    @Test
    void aPauseStopsTheRunBeforeAnyCallAndTheNextRunExecutesThemFirst() {
        AtomicBoolean approved = new AtomicBoolean();
        ScriptedCompleter model = ScriptedCompleter.of(
                Step.toolCalls(new Step.Call("read", "{}"), new Step.Call("delete", "{}")),
                Step.reply(request -> "after " + request.messages().size() + " messages"));
        Agent a = Agent.builder("a").toolboxes(tools()).completer(model)
                .interceptors(RunInterceptor.beforeToolCall(inv -> inv.call().name().equals("delete") && !approved.get()
                        ? ToolDecision.pause("deleting needs approval") : ToolDecision.ALLOW))
                .build();

        assertThatThrownBy(() -> a.run("clean up"))
                .isInstanceOfSatisfying(RunPausedException.class, e -> {
                    assertThat(e.pending()).extracting(ToolCall::name).containsExactly("read", "delete");
                    assertThat(e.reasons()).containsExactly(java.util.Map.entry("call_2", "deleting needs approval"));
                    assertThat(e.runId()).startsWith("run_");
                    assertThat(e).hasMessage("agent 'a' paused before its tool calls ran: deleting needs approval");
                });
        assertThat(ran).isEmpty();
        assertThat(a.chat().last().orElseThrow().toolCalls()).hasSize(2);

        approved.set(true);
        Message answer = a.run("approved");

        // The two calls run concurrently: both ran, and their results stand in call order.
        assertThat(ran).containsExactlyInAnyOrder("read {}", "delete {}");
        assertThat(a.chat().messages()).extracting(Message::role).containsExactly(
                Role.SYSTEM, Role.USER, Role.ASSISTANT, Role.TOOL, Role.USER, Role.ASSISTANT);
        assertThat(a.chat().get(3).toolResults()).extracting(ToolResult::toolCallId).containsExactly("call_1", "call_2");
        assertThat(a.chat().get(4).text()).isEqualTo("approved");
        assertThat(answer.text()).isEqualTo("after 5 messages");
        assertEveryCallAnsweredOnce(a.chat());
    }

    @Test
    void aHookThatReturnsNullFailsTheRunWithEveryCallAnswered() {
        Agent a = Agent.builder("a").toolboxes(tools())
                .completer(ScriptedCompleter.of(Step.toolCalls(new Step.Call("read", "{}"), new Step.Call("delete", "{}"))))
                .interceptors(RunInterceptor.beforeToolCall(inv -> ToolDecision.ALLOW), RunInterceptor.beforeToolCall(inv -> null))
                .build();

        assertThatThrownBy(() -> a.run("go")).isInstanceOf(AgentException.class)
                .hasMessage("interceptor 2 (beforeToolCall hook) of agent 'a' returned null instead of a decision");
        assertThat(ran).isEmpty();
        assertThat(results(a)).containsExactly(
                ToolResult.error("call_1", "tool 'read' was not run: a tool-call hook failed"),
                ToolResult.error("call_2", "tool 'delete' was not run: a tool-call hook failed"));
        assertEveryCallAnsweredOnce(a.chat());
    }

    @Test
    void aModelHookThatReturnsNullFailsTheRun() {
        Agent a = Agent.builder("a").completer(ScriptedCompleter.of(Step.reply("ok")))
                .interceptors(RunInterceptor.beforeModelCall(call -> null)).build();

        assertThatThrownBy(() -> a.run("go")).isInstanceOf(AgentException.class)
                .hasMessage("a model-call hook of agent 'a' returned null instead of a request");
    }

    @Test
    void decisionsCheckTheirInput() {
        assertThatThrownBy(() -> ToolDecision.deny(" ")).hasMessage("ToolDecision.deny reason must not be null or blank");
        assertThatThrownBy(() -> ToolDecision.rewrite("[1]"))
                .hasMessage("ToolDecision.rewrite arguments must be the text of a JSON object, was '[1]'");
        assertThatThrownBy(() -> ToolDecision.pause(null)).hasMessage("ToolDecision.pause reason must not be null or blank");
    }
}
