package dev.shelly.agent;

import static dev.shelly.agent.Fixtures.tool;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.chats.Message;
import dev.shelly.modeladapter.ModelOptions.CacheHints;
import dev.shelly.modeladapter.ModelOptions;
import dev.shelly.modeladapter.ModelTable;
import dev.shelly.modeladapter.ModelTable.Price;
import dev.shelly.modeladapter.ModelOptions.ToolChoice;
import dev.shelly.modeladapter.Usage;
import dev.shelly.testing.ScriptedCompleter;
import dev.shelly.testing.Step;
import dev.shelly.tools.RunValues;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolContext;
import dev.shelly.tools.ToolOutput;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class RunContextTest {
    private static final RunValues.Key<String> TENANT = RunValues.Key.of("tenant", String.class);

    @Test
    void aToolAndEveryEventSeeTheRunSessionAndValues() {
        List<ToolContext> seen = Collections.synchronizedList(new ArrayList<>());
        List<AgentEvent> events = Collections.synchronizedList(new ArrayList<>());
        Agent a = Agent.builder("a").completer(ScriptedCompleter.of(Step.toolCall("look", "{}"), Step.reply("done")))
                .toolboxes(ToolBox.of(tool("look", (input, ctx) -> {
                    seen.add(ctx);
                    return ToolOutput.text("ok");
                })))
                .build();
        RunContext scope = RunContext.builder().sessionId("s-1").value(TENANT, "acme").listener(events::add).build();

        a.run("go", scope);

        ToolContext ctx = seen.getFirst();
        assertThat(ctx.agent()).isEqualTo("a");
        assertThat(ctx.sessionId()).isEqualTo("s-1");
        assertThat(ctx.runId()).startsWith("run_");
        assertThat(ctx.parentRunId()).isNull();
        assertThat(ctx.values().require(TENANT)).isEqualTo("acme");
        RunContext run = RunContext.from(ctx).orElseThrow();
        assertThat(run.runId()).contains(ctx.runId());
        assertThat(run.agent()).contains("a");
        assertThat(run.value(TENANT)).contains("acme");
        assertThat(events).isNotEmpty().allSatisfy(e -> {
            assertThat(e.source().runId()).isEqualTo(ctx.runId());
            assertThat(e.source().sessionId()).isEqualTo("s-1");
        });
    }

    @Test
    void everyRunHasItsOwnId() {
        Agent a = Agent.builder("a").completer(ScriptedCompleter.of(Step.reply("1"), Step.reply("2"))).build();
        List<String> ids = Collections.synchronizedList(new ArrayList<>());
        RunContext scope = RunContext.builder().listener(e -> {
            if (e instanceof AgentEvent.AgentStarted s) {
                ids.add(s.source().runId());
            }
        }).build();

        a.run("one", scope);
        a.run("two", scope);

        assertThat(ids).hasSize(2).doesNotHaveDuplicates().allMatch(id -> id.matches("run_[0-9a-v]{13}_[0-9a-v]+"));
    }

    @Test
    void aDelegatedChildNamesItsParentRunAndKeepsTheSessionAndValues() {
        Map<String, ToolContext> seen = new ConcurrentHashMap<>();
        Registry r = new Registry().register("worker", "Works", () -> Agent.builder("worker")
                .completer(ScriptedCompleter.of(Step.toolCall("look", "{}"), Step.reply("found")))
                .toolboxes(ToolBox.of(tool("look", (input, ctx) -> {
                    seen.put(ctx.agent(), ctx);
                    return ToolOutput.text("ok");
                })))
                .build());
        Agent lead = Agent.builder("lead").registry(r)
                .completer(ScriptedCompleter.of(Step.delegate("worker", "find"), Step.toolCall("look", "{}"),
                        Step.reply("done")))
                .toolboxes(ToolBox.of(tool("look", (input, ctx) -> {
                    seen.put(ctx.agent(), ctx);
                    return ToolOutput.text("ok");
                })))
                .build();

        lead.run("go", RunContext.builder().sessionId("s-2").value(TENANT, "acme").build());

        ToolContext leadCtx = seen.get("lead");
        ToolContext childCtx = seen.get("worker");
        assertThat(childCtx.parentRunId()).isEqualTo(leadCtx.runId());
        assertThat(childCtx.runId()).isNotEqualTo(leadCtx.runId());
        assertThat(childCtx.parent()).isEqualTo("lead");
        assertThat(childCtx.depth()).isEqualTo(1);
        assertThat(childCtx.sessionId()).isEqualTo("s-2");
        assertThat(childCtx.values().require(TENANT)).isEqualTo("acme");
        RunContext childRun = RunContext.from(childCtx).orElseThrow();
        assertThat(childRun.parentAgent()).contains("lead");
        assertThat(childRun.registry()).containsSame(r);
    }

    @Test
    void theScopeAddsUpTheUsageOfEveryRunUnderItChildrenIncluded() {
        Registry r = new Registry().register("worker", "Works", () -> Agent.builder("worker")
                .completer(ScriptedCompleter.of(Step.reply("found").withUsage(Usage.of(100, 10)))).build());
        List<AgentEvent.AgentFinished> finished = Collections.synchronizedList(new ArrayList<>());
        Agent lead = Agent.builder("lead").registry(r)
                .completer(ScriptedCompleter.of(Step.delegate("worker", "find").withUsage(Usage.of(20, 2)),
                        Step.reply("done").withUsage(Usage.of(30, 3))))
                .build();
        RunContext scope = RunContext.builder().listener(e -> {
            if (e instanceof AgentEvent.AgentFinished f) {
                finished.add(f);
            }
        }).build();

        Message reply = lead.run("go", scope);

        assertThat(reply.text()).isEqualTo("done");
        assertThat(scope.usage()).isEqualTo(Usage.of(150, 15));
        assertThat(finished).extracting(f -> f.source().agent(), AgentEvent.AgentFinished::usage)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("worker", Usage.of(100, 10)),
                        org.assertj.core.groups.Tuple.tuple("lead", Usage.of(150, 15)));
        assertThat(scope.cost().unpricedTokens()).isEqualTo(165); // the scripted model has no price
    }

    @Test
    void costComesFromTheModelTableByTheResponsesModel() {
        Agent a = Agent.builder("a")
                .completer(ScriptedCompleter.of(Step.reply("done").withUsage(new Usage(1_000_000, 100_000, 2_000_000, 0))
                        .withModel("my-model-2026-01-01")))
                .prices(ModelTable.empty().withPrice("my-model", Price.of(0.5, 1.5, 0.05, 0.6)))
                .build();
        RunContext scope = RunContext.root();

        a.run("go", scope);

        assertThat(scope.cost().usd()).isEqualByComparingTo(new BigDecimal("0.75")); // 0.5 + 0.15 + 0.1
        assertThat(scope.cost().complete()).isTrue();
    }

    @Test
    void aModelCallAToolMakesForItsRunPassesTheRunsLinksAndObserversAndCountsInItsTotals() {
        List<String> seen = Collections.synchronizedList(new ArrayList<>());
        RunInterceptor audit = RunInterceptor.beforeModelCall(call -> {
            seen.add("link " + call.iteration() + ": " + call.request().messages().getLast().text());
            return call.request();
        });
        RunObserver observer = new RunObserver() {
            @Override
            public Observation<dev.shelly.modeladapter.ModelResponse> modelCallStarted(RunInterceptor.ModelCall call,
                    dev.shelly.modeladapter.ModelTarget target) {
                return (response, failure) -> seen.add("observed " + call.iteration() + ": " + response.message().text());
            }
        };
        ScriptedCompleter side = ScriptedCompleter.of(Step.reply("Paris").withUsage(Usage.of(1_000_000, 0)).withModel("my-model"));
        Agent a = Agent.builder("a").completer(ScriptedCompleter.of(Step.toolCall("ask", "{}"),
                        Step.reply(r -> "the tool says " + r.messages().getLast().toolResults().getFirst().text())))
                .toolboxes(ToolBox.of(tool("ask", (input, ctx) -> ToolOutput.text(RunContext.from(ctx).orElseThrow().complete(side,
                        dev.shelly.modeladapter.ModelRequest.builder().messages(List.of(Message.user("Capital of France?")))
                                .build(), ModelTable.empty().withPrice("my-model", Price.of(2, 0, 0, 0))).message().text()))))
                .build();
        RunContext scope = RunContext.builder().interceptors(audit).observers(observer).build();

        assertThat(a.run("go", scope).text()).isEqualTo("the tool says Paris");

        assertThat(seen).containsSubsequence("link 1: go", "link 0: Capital of France?", "observed 0: Paris")
                .anyMatch(line -> line.startsWith("link 2: "));
        assertThat(side.requests()).singleElement().satisfies(r -> assertThat(r.request().messages())
                .extracting(Message::text).containsExactly("Capital of France?"));
        assertThat(scope.usage().inputTokens()).isEqualTo(1_000_000);
        assertThat(scope.cost().usd()).isEqualByComparingTo(new BigDecimal("2"));
    }

    @Test
    void promptCachingIsOnByDefaultAndCanBeTurnedOffOrOverridden() {
        ScriptedCompleter on = ScriptedCompleter.of(Step.reply("x"));
        ScriptedCompleter off = ScriptedCompleter.of(Step.reply("x"));
        ScriptedCompleter explicit = ScriptedCompleter.of(Step.reply("x"));
        CacheHints prefixOnly = new CacheHints(true, false, null);

        Agent.builder("a").completer(on).build().run("go");
        Agent.builder("a").completer(off).promptCaching(false).build().run("go");
        Agent.builder("a").completer(explicit).options(ModelOptions.NONE.withCache(prefixOnly).withToolChoice(ToolChoice.NONE))
                .build().run("go");

        assertThat(on.requests().getFirst().options().cache()).isEqualTo(CacheHints.ON);
        assertThat(off.requests().getFirst().options().cache()).isNull();
        assertThat(explicit.requests().getFirst().options().cache()).isEqualTo(prefixOnly);
        assertThat(explicit.requests().getFirst().options().toolChoice()).isEqualTo(ToolChoice.NONE);
        assertThat(on.requests().getFirst().request().conversationId()).startsWith("chat-");
    }

    @Test
    void aRegistryLessChildDelegatesThroughItsParentsRegistryWithinTheLimits() {
        Registry r = new Registry();
        r.register("a", "A", () -> Agent.builder("a").maxDelegationDepth(2)
                .completer(ScriptedCompleter.of(Step.delegate("b", "x"), Step.reply("a done"))).build());
        r.register("b", "B", () -> Agent.builder("b").completer(ScriptedCompleter.of(Step.reply("b done"))).build());
        Agent lead = Agent.builder("lead").registry(r).maxDelegationDepth(2)
                .completer(ScriptedCompleter.of(Step.delegate("a", "go"), Step.reply("lead done"))).build();
        List<AgentEvent.Source> started = Collections.synchronizedList(new ArrayList<>());

        lead.run("go", RunContext.builder().listener(e -> {
            if (e instanceof AgentEvent.AgentStarted s) {
                started.add(s.source());
            }
        }).build());

        assertThat(started).extracting(AgentEvent.Source::agent, AgentEvent.Source::depth).containsExactly(
                org.assertj.core.groups.Tuple.tuple("lead", 0), org.assertj.core.groups.Tuple.tuple("a", 1),
                org.assertj.core.groups.Tuple.tuple("b", 2));
    }

    @Test
    void anAgentIsTheSameAfterARun() {
        Registry r = new Registry().register("w", "W", () -> Agent.builder("w")
                .completer(ScriptedCompleter.of(Step.reply("w"))).build());
        Agent lead = Agent.builder("lead").registry(r)
                .completer(ScriptedCompleter.of(Step.delegate("w", "x"), Step.reply("done"))).build();
        String prompt = lead.systemPrompt();

        lead.run("go", RunContext.builder().listener(e -> { }).build());

        assertThat(lead.listener()).isSameAs(AgentListener.NONE);
        assertThat(lead.registry()).containsSame(r);
        assertThat(lead.canDelegate()).isTrue();
        assertThat(lead.systemPrompt()).isEqualTo(prompt);
    }

    private static RunDefaults defaults(String agent) {
        return new RunDefaults(agent, null, null, Integer.MAX_VALUE, AgentListener.NONE, List.of(), List.of());
    }

    /**
     * A run's parent run and delegating agent, read from the context it was entered from: a
     * delegated child names its parent; a run entered from a run (an agent used as a tool) names
     * that run and keeps its delegator; a run entered from a scope has neither.
     */
    @Test
    void everyRunNamesItsParentRunAndDelegatorWhateverItWasEnteredFrom() {
        RunContext scope = RunContext.builder().sessionId("s-1").build();
        RunContext lead = scope.enter(defaults("lead"));
        RunContext child = lead.delegated(() -> "call_1/0", defaults("worker"));
        RunContext asTool = child.enter(defaults("helper"));
        RunContext grandchild = asTool.delegated(() -> "call_1/0/call_2/0", defaults("checker"));
        RunContext fresh = RunContext.enterFresh(defaults("solo"));

        assertThat(lead.parentRunId()).isEmpty();
        assertThat(lead.parentAgent()).isEmpty();
        assertThat(child.parentRunId()).isEqualTo(lead.runId());
        assertThat(child.parentAgent()).contains("lead");
        assertThat(child.depth()).isEqualTo(1);
        assertThat(asTool.parentRunId()).isEqualTo(child.runId());
        assertThat(asTool.parentAgent()).contains("lead");
        assertThat(asTool.depth()).isEqualTo(1);
        assertThat(grandchild.parentRunId()).isEqualTo(asTool.runId());
        assertThat(grandchild.parentAgent()).contains("helper");
        assertThat(grandchild.depth()).isEqualTo(2);
        assertThat(fresh.parentRunId()).isEmpty();
        assertThat(fresh.parentAgent()).isEmpty();
        assertThat(List.of(lead, child, asTool, grandchild)).allSatisfy(c -> assertThat(c.sessionId()).contains("s-1"));
    }
}
