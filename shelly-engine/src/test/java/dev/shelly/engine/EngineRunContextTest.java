package dev.shelly.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.agent.AgentEvent;
import dev.shelly.agent.RunInterceptor;
import dev.shelly.chats.Message;
import dev.shelly.engine.config.AgentConfig;
import dev.shelly.engine.config.ConfigLoader;
import dev.shelly.engine.config.EngineConfig;
import dev.shelly.engine.config.ProviderConfig;
import dev.shelly.modeladapter.ModelOptions.CacheHints;
import dev.shelly.modeladapter.Cost;
import dev.shelly.modeladapter.ModelTable;
import dev.shelly.modeladapter.ModelTable.Price;
import dev.shelly.modeladapter.Usage;
import dev.shelly.testing.ScriptedCompleter;
import dev.shelly.testing.Step;
import dev.shelly.tools.RunValues;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolContext;
import dev.shelly.tools.ToolOutput;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the engine puts into each turn's run: the session id, the turn's values, prices and caching. */
class EngineRunContextTest {
    private static final RunValues.Key<String> TENANT = RunValues.Key.of("tenant", String.class);

    private static EngineConfig config(boolean leadCaches) {
        AgentConfig.Builder lead = AgentConfig.builder("lead").description("Leads").provider("lead-model")
                .toolboxes("app");
        if (!leadCaches) {
            lead.promptCaching(false);
        }
        return EngineConfig.builder()
                .provider(ProviderConfig.builder("lead-model", "openai", "gpt-test").apiKey("k").build())
                .provider(ProviderConfig.builder("worker-model", "openai", "gpt-test").apiKey("k").build())
                .agent(lead.build())
                .agent(AgentConfig.builder("researcher").description("Finds facts").provider("worker-model")
                        .toolboxes("app").build())
                .entryAgent("lead")
                .build();
    }

    /** A tool that answers with the session id, run id and tenant its context carries. */
    private static ToolBox whoAmI(List<ToolContext> seen) {
        return ToolBox.of(Tool.of("who", "Says who calls", "{\"type\":\"object\"}", (in, ctx) -> {
            seen.add(ctx);
            return ToolOutput.text(ctx.sessionId() + " " + ctx.values().get(TENANT).orElse("-"));
        }));
    }

    @Test
    void theSessionIdAndTheTurnsValuesReachEveryToolAndEveryEvent() throws Exception {
        ScriptedCompleter lead = ScriptedCompleter.of(
                Step.toolCall("who", "{}"),
                Step.delegate("researcher", "ask who"),
                Step.reply(r -> "lead: " + r.last().orElseThrow().toolResults().getFirst().text()),
                Step.toolCall("who", "{}"),
                Step.reply(r -> r.last().orElseThrow().toolResults().getFirst().text()));
        ScriptedCompleter worker = ScriptedCompleter.perChat(Step.toolCall("who", "{}"),
                Step.reply(r -> r.last().orElseThrow().toolResults().getFirst().text()));
        List<ToolContext> seen = new CopyOnWriteArrayList<>();
        List<AgentEvent> bus = new CopyOnWriteArrayList<>();
        try (Engine engine = Engine.builder().config(config(true)).completer("lead-model", lead)
                .completer("worker-model", worker).toolbox("app", whoAmI(seen)).build()) {
            engine.events().subscribe(bus::add);
            try (Session one = engine.newSession(); Session two = engine.newSession()) {
                Turn first = one.send("go", RunValues.EMPTY.with(TENANT, "acme"));
                assertThat(first.text()).isEqualTo("lead: [{\"agent\":\"researcher\",\"result\":\""
                        + one.id() + " acme\"}]");
                assertThat(two.send("again").text()).isEqualTo(two.id() + " -");

                assertThat(seen).hasSize(3);
                ToolContext leadTool = seen.get(0);
                ToolContext childTool = seen.get(1);
                assertThat(leadTool.sessionId()).isEqualTo(one.id());
                assertThat(leadTool.values().get(TENANT)).contains("acme");
                assertThat(leadTool.agent()).isEqualTo("lead");
                assertThat(childTool.sessionId()).isEqualTo(one.id());
                assertThat(childTool.values().get(TENANT)).as("values reach delegated children").contains("acme");
                assertThat(childTool.agent()).isEqualTo("researcher");
                assertThat(childTool.parentRunId()).as("the child's run names the lead's").isEqualTo(leadTool.runId());
                assertThat(seen.get(2).sessionId()).isEqualTo(two.id());
                assertThat(seen.get(2).runId()).isNotEqualTo(leadTool.runId());

                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (bus.stream().filter(e -> e instanceof AgentEvent.AgentFinished).count() < 3
                        && System.nanoTime() < deadline) {
                    Thread.onSpinWait();
                }
                assertThat(bus).filteredOn(e -> e.source().sessionId().equals(one.id()))
                        .filteredOn(e -> e instanceof AgentEvent.AgentFinished)
                        .extracting(e -> e.source().agent())
                        .as("the bus can be split by session, and a child's events arrive once")
                        .containsExactly("researcher", "lead");
                assertThat(bus).filteredOn(e -> e.source().sessionId().equals(two.id()))
                        .filteredOn(e -> e instanceof AgentEvent.AgentFinished).hasSize(1);
            }
        }
    }

    @Test
    void aTurnAndItsSessionReportTheirCostAndTheSavedSessionKeepsIt(@TempDir Path dir) {
        ScriptedCompleter lead = ScriptedCompleter.of(
                Step.delegate("researcher", "look").withUsage(new Usage(1_000, 100, 10_000, 0)).withModel("gpt-4.1"),
                Step.reply("done").withUsage(Usage.of(2_000, 200)).withModel("gpt-4.1-2025-04-14"),
                Step.reply("again").withUsage(Usage.of(1_000_000, 0)).withModel("gpt-4.1"));
        ScriptedCompleter worker = ScriptedCompleter.perChat(
                Step.reply("found").withUsage(Usage.of(500, 50)).withModel("my-model"));
        String id;
        try (Engine engine = Engine.builder().config(config(true)).completer("lead-model", lead)
                .completer("worker-model", worker).toolbox("app", whoAmI(new CopyOnWriteArrayList<>()))
                .prices(ModelTable.empty().withPrice("my-model", Price.of(1, 2, 0.1, 1)))
                .sessionsDir(dir).sessionWait(Duration.ofSeconds(5)).build()) {
            assertThat(engine.prices().price("gpt-4.1")).contains(Price.of(2, 8, 0.5, 2));
            try (Session session = engine.newSession()) {
                id = session.id();
                Turn turn = session.send("go");
                // lead: 1000*2 + 100*8 + 10000*0.5 = 7800; 2000*2 + 200*8 = 5600; worker: 500*1 + 50*2 = 600
                assertThat(turn.cost()).isEqualTo(new Cost(new BigDecimal("0.014000"), 0));
                assertThat(turn.cost().usd().toPlainString()).isEqualTo("0.014");
                assertThat(turn.usage()).isEqualTo(new Usage(3_500, 350, 10_000, 0));
                assertThat(session.cost().usd()).isEqualByComparingTo("0.014");
            }
        }
        try (Engine engine = Engine.builder().config(config(true)).completer("lead-model", lead)
                .completer("worker-model", worker).toolbox("app", whoAmI(new CopyOnWriteArrayList<>()))
                .sessionsDir(dir).sessionWait(Duration.ofSeconds(5)).build();
                Session again = engine.resume(id)) {
            assertThat(again.cost().usd()).as("the saved session keeps its cost").isEqualByComparingTo("0.014");
            Turn turn = again.send("more");
            assertThat(turn.cost().usd()).isEqualByComparingTo("2");
            assertThat(again.cost().usd()).isEqualByComparingTo("2.014");
            assertThat(again.usage().totalTokens()).isEqualTo(3_500 + 350 + 10_000 + 1_000_000);
        }
    }

    @Test
    void tokensOfUnpricedModelsAreCountedNotGuessed() {
        ScriptedCompleter lead = ScriptedCompleter.of(Step.reply("hi").withUsage(Usage.of(30, 12)));
        try (Engine engine = Engine.builder().config(config(true)).completer("lead-model", lead)
                .completer("worker-model", ScriptedCompleter.of()).toolbox("app", whoAmI(List.of())).build();
                Session session = engine.newSession()) {
            Turn turn = session.send("hello");
            assertThat(turn.cost()).isEqualTo(new Cost(BigDecimal.ZERO, 42));
            assertThat(turn.cost().complete()).isFalse();
        }
    }

    @Test
    void promptCachingIsOnByDefaultAndOffBySetting() {
        ScriptedCompleter cached = ScriptedCompleter.of(Step.reply("a"));
        try (Engine engine = Engine.builder().config(config(true)).completer("lead-model", cached)
                .completer("worker-model", ScriptedCompleter.of()).toolbox("app", whoAmI(List.of())).build();
                Session session = engine.newSession()) {
            session.send("hello");
        }
        assertThat(cached.requests().getFirst().options().cache()).isEqualTo(CacheHints.ON);

        ScriptedCompleter uncached = ScriptedCompleter.of(Step.reply("a"));
        try (Engine engine = Engine.builder().config(config(false)).completer("lead-model", uncached)
                .completer("worker-model", ScriptedCompleter.of()).toolbox("app", whoAmI(List.of())).build();
                Session session = engine.newSession()) {
            session.send("hello");
        }
        assertThat(uncached.requests().getFirst().options().cache()).as("prompt_caching: false sends no hints")
                .isNull();
    }

    @Test
    void configuredPricesAreLaidOverTheDefaults() {
        EngineConfig config = ConfigLoader.parse("""
                providers: [{ name: m, kind: openai, model: x, api_key: k }]
                agents: [{ name: a }]
                prices:
                  gpt-4.1: { input: 1, output: 4 }
                """, "config.yaml", Map.<String, String>of()::get);
        try (Engine engine = Engine.builder().config(config).completer("m", ScriptedCompleter.of()).build()) {
            assertThat(engine.prices().price("gpt-4.1")).contains(Price.of(1, 4, 1, 1));
            assertThat(engine.prices().price("claude-haiku-4-5")).isEqualTo(ModelTable.defaults().price("claude-haiku-4-5"));
        }
    }

    @Test
    void theEnginesInterceptorsWrapEveryRunOfASessionTurnOnceDelegatedOnesIncluded() throws Exception {
        ScriptedCompleter lead = ScriptedCompleter.of(Step.delegate("researcher", "find it"), Step.reply("done"));
        ScriptedCompleter worker = ScriptedCompleter.perChat(Step.reply("found"));
        List<String> runs = new CopyOnWriteArrayList<>();
        RunInterceptor record = new RunInterceptor() {
            @Override
            public Message interceptRun(RunChain chain) {
                runs.add(chain.agent().name());
                return chain.proceed();
            }
        };
        try (Engine engine = Engine.builder().config(config(true)).completer("lead-model", lead)
                .completer("worker-model", worker).toolbox("app", ToolBox.of()).interceptors(record).build();
                Session session = engine.newSession()) {
            assertThat(session.send("go").text()).isEqualTo("done");
        }
        assertThat(runs).containsExactlyInAnyOrder("lead", "researcher");
    }
}
