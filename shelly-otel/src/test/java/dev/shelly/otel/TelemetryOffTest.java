package dev.shelly.otel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.agent.Agent;
import dev.shelly.agent.RunContext;
import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.Usage;
import dev.shelly.testing.ScriptedCompleter;
import dev.shelly.testing.Step;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.MeterProvider;
import io.opentelemetry.api.trace.TracerProvider;
import io.opentelemetry.context.propagation.ContextPropagators;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Telemetry that records nothing is left out of runs; with metrics alone it still measures. */
@Timeout(30)
class TelemetryOffTest {
    final Fixture otel = new Fixture();

    @AfterEach
    void close() {
        otel.close();
        GlobalOpenTelemetry.resetForTest();
    }

    @Test
    void onANoOpOpenTelemetryTheTelemetryIsInactiveAndRunsLeaveItOut() {
        for (OpenTelemetry off : new OpenTelemetry[] {OpenTelemetry.noop(), GlobalOpenTelemetry.get(),
                OpenTelemetry.propagating(ContextPropagators.noop())}) {
            ShellyTelemetry telemetry = ShellyTelemetry.create(off);

            assertThat(telemetry.active()).as("%s", off).isFalse();
            assertThat(RunContext.builder().observers(telemetry).build().observers()).as("%s", off).isEmpty();
        }
        ShellyTelemetry on = ShellyTelemetry.create(otel.sdk);
        assertThat(on.active()).isTrue();
        assertThat(RunContext.builder().observers(on).build().observers()).containsExactly(on);
    }

    @Test
    void withMetricsAndNoTracingEveryCallIsMeasuredByItsOwnAttributes() {
        OpenTelemetry metricsOnly = new OpenTelemetry() {
            @Override
            public TracerProvider getTracerProvider() {
                return TracerProvider.noop();
            }

            @Override
            public MeterProvider getMeterProvider() {
                return otel.sdk.getMeterProvider();
            }

            @Override
            public ContextPropagators getPropagators() {
                return ContextPropagators.noop();
            }
        };
        ShellyTelemetry telemetry = ShellyTelemetry.create(metricsOnly);
        assertThat(telemetry.active()).isTrue();
        RunContext scope = RunContext.builder().observers(telemetry).build();
        ModelException overloaded = ModelException.builder(ModelException.Kind.OVERLOADED).provider("anthropic").build();

        for (int i = 0; i < 3; i++) {
            Agent.builder("a").completer(new Fixture.Targeted(ScriptedCompleter.of(
                    Step.respond(r -> Fixture.reply("fine", new Usage(10, 5, 0, 0, 0), "m" + r.messages().size()))),
                    ShellyTelemetryMetricsTest.SONNET)).build().run("go", scope);
        }
        Agent failing = Agent.builder("b").completer(new Fixture.Targeted(ScriptedCompleter.of(Step.fail(overloaded)),
                ShellyTelemetryMetricsTest.SONNET)).build();
        assertThatThrownBy(() -> failing.run("go", scope)).isSameAs(overloaded);

        Attributes failed = ShellyTelemetryMetricsTest.failedChat("overloaded");
        Map<Attributes, io.opentelemetry.sdk.metrics.data.HistogramPointData> calls =
                ShellyTelemetryMetricsTest.histogram(otel.metric("gen_ai.client.operation.duration"));
        assertThat(calls.keySet()).containsExactlyInAnyOrder(ShellyTelemetryMetricsTest.chat(null), failed);
        assertThat(calls.get(ShellyTelemetryMetricsTest.chat(null)).getCount()).isEqualTo(3);
        assertThat(calls.get(failed).getCount()).isEqualTo(1);
        var tokens = ShellyTelemetryMetricsTest.histogram(otel.metric("gen_ai.client.token.usage"));
        assertThat(tokens.get(ShellyTelemetryMetricsTest.chat("input")).getSum()).isEqualTo(30);
        assertThat(tokens.get(ShellyTelemetryMetricsTest.chat("output")).getSum()).isEqualTo(15);
        assertThat(otel.finished()).isEmpty();
    }
}
