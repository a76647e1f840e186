package dev.shelly.otel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.agent.Agent;
import dev.shelly.agent.RunContext;
import dev.shelly.modeladapter.FallbackCompleter;
import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.ModelTable;
import dev.shelly.modeladapter.ModelTable.Price;
import dev.shelly.modeladapter.ModelTarget;
import dev.shelly.modeladapter.RetryPolicy;
import dev.shelly.modeladapter.RetryingCompleter;
import dev.shelly.modeladapter.Usage;
import dev.shelly.testing.ScriptedCompleter;
import dev.shelly.testing.Step;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.sdk.metrics.data.DoublePointData;
import io.opentelemetry.sdk.metrics.data.HistogramPointData;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class ShellyTelemetryMetricsTest {
    static final ModelTarget SONNET = new ModelTarget("anthropic", "claude-sonnet-4-5");
    static final List<Double> TOKEN_BUCKETS = List.of(1d, 4d, 16d, 64d, 256d, 1024d, 4096d, 16384d, 65536d, 262144d,
            1048576d, 4194304d, 16777216d, 67108864d);
    static final List<Double> DURATION_BUCKETS = List.of(0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12,
            10.24, 20.48, 40.96, 81.92);

    final Fixture otel = new Fixture();
    final ShellyTelemetry telemetry = ShellyTelemetry.create(otel.sdk);

    @AfterEach
    void close() {
        otel.close();
    }

    static Map<Attributes, HistogramPointData> histogram(MetricData metric) {
        return metric.getHistogramData().getPoints().stream()
                .collect(java.util.stream.Collectors.toMap(p -> p.getAttributes(), p -> p));
    }

    static Attributes chat(String tokenType) {
        var b = Attributes.builder()
                .put("gen_ai.operation.name", "chat")
                .put("gen_ai.request.model", "claude-sonnet-4-5")
                .put("gen_ai.response.model", "claude-sonnet-4-5-20250929")
                .put("gen_ai.provider.name", "anthropic");
        if (tokenType != null) {
            b.put("gen_ai.token.type", tokenType);
        }
        return b.build();
    }

    /** A failed model call's attributes: no response model, and the error's type. */
    static Attributes failedChat(String errorType) {
        return Attributes.builder()
                .put("gen_ai.operation.name", "chat")
                .put("gen_ai.request.model", "claude-sonnet-4-5")
                .put("gen_ai.provider.name", "anthropic")
                .put("error.type", errorType)
                .build();
    }

    @Test
    void tokenUsageDurationAndCostFollowTheConventionsNamesUnitsAndBuckets() {
        Agent agent = Agent.builder("assistant")
                .toolboxes(ToolBox.of(Tool.of("read_file", "Reads", "{\"type\":\"object\"}",
                        (input, ctx) -> dev.shelly.tools.ToolOutput.text("text"))))
                .prices(ModelTable.empty().withPrice("claude-sonnet-4-5", Price.of(3, 15, 0.3, 3.75)))
                .completer(new Fixture.Targeted(ScriptedCompleter.of(
                        Step.respond(r -> Fixture.toolCall("call_1", "read_file", "{}", new Usage(100, 20, 300, 50, 0), "m1")),
                        Step.respond(r -> Fixture.reply("done", new Usage(10, 5, 400, 0, 3), "m2"))), SONNET))
                .build();

        agent.run("go", RunContext.builder().observers(telemetry).build());

        MetricData tokens = otel.metric("gen_ai.client.token.usage");
        assertThat(tokens.getUnit()).isEqualTo("{token}");
        assertThat(tokens.getDescription()).isEqualTo("Number of input and output tokens used.");
        assertThat(tokens.getInstrumentationScopeInfo().getName()).isEqualTo("dev.shelly");
        Map<Attributes, HistogramPointData> byType = histogram(tokens);
        assertThat(byType.keySet()).containsExactlyInAnyOrder(chat("input"), chat("output"));
        HistogramPointData input = byType.get(chat("input"));
        assertThat(input.getCount()).isEqualTo(2);
        assertThat(input.getSum()).isEqualTo(450 + 410);
        assertThat(input.getBoundaries()).isEqualTo(TOKEN_BUCKETS);
        HistogramPointData output = byType.get(chat("output"));
        assertThat(output.getCount()).isEqualTo(2);
        assertThat(output.getSum()).isEqualTo(25);

        MetricData duration = otel.metric("gen_ai.client.operation.duration");
        assertThat(duration.getUnit()).isEqualTo("s");
        assertThat(duration.getDescription()).isEqualTo("GenAI operation duration.");
        Map<Attributes, HistogramPointData> calls = histogram(duration);
        assertThat(calls.keySet()).containsExactly(chat(null));
        assertThat(calls.get(chat(null)).getCount()).isEqualTo(2);
        assertThat(calls.get(chat(null)).getBoundaries()).isEqualTo(DURATION_BUCKETS);

        MetricData cost = otel.metric("shelly.cost");
        assertThat(cost.getUnit()).isEqualTo("USD");
        DoublePointData spent = cost.getDoubleSumData().getPoints().iterator().next();
        assertThat(spent.getAttributes().asMap()).isEqualTo(Attributes.of(AttributeKey.stringKey("gen_ai.agent.name"),
                "assistant").asMap());
        // 110 uncached input x $3, 25 output x $15, 700 cache reads x $0.30, 50 cache writes x $3.75, per million
        assertThat(spent.getValue()).isCloseTo(0.0011025, org.assertj.core.data.Offset.offset(1e-12));
        assertThat(cost.getDoubleSumData().isMonotonic()).isTrue();
    }

    @Test
    void aFailedCallIsTimedWithItsErrorTypeAndCountsNoTokens() {
        ModelException overloaded = ModelException.builder(ModelException.Kind.OVERLOADED).provider("anthropic").build();
        Agent agent = Agent.builder("a").completer(new Fixture.Targeted(ScriptedCompleter.of(Step.fail(overloaded)), SONNET))
                .build();

        assertThatThrownBy(() -> agent.run("go", RunContext.builder().observers(telemetry).build())).isSameAs(overloaded);

        assertThat(histogram(otel.metric("gen_ai.client.operation.duration")).keySet()).containsExactly(failedChat("overloaded"));
        assertThat(otel.metrics.collectAllMetrics()).extracting(MetricData::getName)
                .doesNotContain("gen_ai.client.token.usage", "shelly.cost");
    }

    @Test
    void toolErrorsAreCountedByToolAndErrorType() {
        Agent agent = Agent.builder("a")
                .toolboxes(ToolBox.of(Tool.of("flaky", "Fails", "{\"type\":\"object\"}", (input, ctx) -> {
                    throw new IllegalStateException("no");
                })))
                .completer(new Fixture.Targeted(ScriptedCompleter.of(
                        Step.toolCalls(new Step.Call("flaky", "{}"), new Step.Call("flaky", "{}")), Step.reply("sorry")), SONNET))
                .build();

        agent.run("go", RunContext.builder().observers(telemetry).build());

        MetricData errors = otel.metric("shelly.tool.errors");
        assertThat(errors.getUnit()).isEqualTo("{error}");
        LongPointData point = errors.getLongSumData().getPoints().iterator().next();
        assertThat(point.getValue()).isEqualTo(2);
        assertThat(point.getAttributes().asMap()).isEqualTo(Attributes.builder().put("gen_ai.tool.name", "flaky")
                .put("error.type", "tool_error").build().asMap());
    }

    @Test
    void retriesAreCountedAndMarkedOnTheModelCallsSpan() {
        ModelException limited = ModelException.builder(ModelException.Kind.RATE_LIMITED).provider("anthropic").build();
        RetryingCompleter retrying = RetryingCompleter.builder(new Fixture.Targeted(
                        ScriptedCompleter.of(Step.fail(limited), Step.reply("ok")), SONNET))
                .policy(RetryPolicy.defaults())
                .sleeper(delay -> { })
                .listener(telemetry.retryListener())
                .build();
        Agent agent = Agent.builder("a").completer(retrying).build();

        agent.run("go", RunContext.builder().observers(telemetry).build());

        LongPointData point = otel.metric("shelly.model.retries").getLongSumData().getPoints().iterator().next();
        assertThat(point.getValue()).isEqualTo(1);
        assertThat(point.getAttributes().asMap()).isEqualTo(Attributes.builder().put("error.type", "rate_limited")
                .put("gen_ai.provider.name", "anthropic").build().asMap());
        SpanData chat = otel.span("chat claude-sonnet-4-5");
        assertThat(chat.getEvents()).extracting(EventData::getName).containsExactly("retry");
        assertThat(chat.getEvents().getFirst().getAttributes().get(AttributeKey.longKey("shelly.retry.attempt"))).isEqualTo(1L);
        assertThat(chat.getEvents().getFirst().getAttributes().get(AttributeKey.stringKey("error.type")))
                .isEqualTo("rate_limited");
    }

    @Test
    void fallbacksAreCountedAndMarkedOnTheModelCallsSpan() {
        ModelException overloaded = ModelException.builder(ModelException.Kind.OVERLOADED).provider("anthropic").build();
        FallbackCompleter fallback = FallbackCompleter.builder()
                .provider("anthropic", new Fixture.Targeted(ScriptedCompleter.of(Step.fail(overloaded)), SONNET))
                .provider("openai", new Fixture.Targeted(ScriptedCompleter.of(Step.reply("ok")),
                        new ModelTarget("openai", "gpt-5")))
                .listener(telemetry.fallbackListener())
                .build();
        Agent agent = Agent.builder("a").completer(fallback).build();

        agent.run("go", RunContext.builder().observers(telemetry).build());

        Attributes expected = Attributes.builder().put("shelly.fallback.from", "anthropic")
                .put("shelly.fallback.to", "openai").put("error.type", "overloaded").build();
        LongPointData point = otel.metric("shelly.model.fallbacks").getLongSumData().getPoints().iterator().next();
        assertThat(point.getValue()).isEqualTo(1);
        assertThat(point.getAttributes().asMap()).isEqualTo(expected.asMap());
        SpanData chat = otel.span("chat claude-sonnet-4-5");
        assertThat(chat.getEvents()).extracting(EventData::getName).containsExactly("fallback");
        assertThat(chat.getEvents().getFirst().getAttributes().asMap()).isEqualTo(expected.asMap());
        assertThat(chat.getAttributes().get(AttributeKey.stringKey("shelly.fallback.provider"))).isEqualTo("openai");
    }
}
