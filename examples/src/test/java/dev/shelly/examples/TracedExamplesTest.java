package dev.shelly.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** With a global OpenTelemetry set, the examples' runs are traced: the span tree of a delegation and of a team. */
@Timeout(60)
class TracedExamplesTest {
    private final InMemorySpanExporter spans = InMemorySpanExporter.create();
    private OpenTelemetrySdk sdk;

    @BeforeEach
    void setGlobal() {
        GlobalOpenTelemetry.resetForTest();
        sdk = OpenTelemetrySdk.builder()
                .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build())
                .buildAndRegisterGlobal();
    }

    @AfterEach
    void resetGlobal() {
        GlobalOpenTelemetry.resetForTest();
        sdk.close();
    }

    private SpanData only(String name) {
        List<SpanData> found = spans.getFinishedSpanItems().stream().filter(s -> s.getName().equals(name)).toList();
        assertThat(found).as("spans named %s", name).hasSize(1);
        return found.getFirst();
    }

    @Test
    void theDelegationExampleIsOneTraceWithTheChildBelowTheDelegateCall() {
        Runs.Result r = Runs.run(Map.of("HOME", "/nowhere"), "delegation");
        assertThat(r.exit()).as(r.out() + r.err()).isZero();

        List<SpanData> all = spans.getFinishedSpanItems();
        assertThat(all).extracting(SpanData::getTraceId).containsOnly(all.getFirst().getTraceId());
        SpanData top = all.stream().filter(s -> s.getName().startsWith("invoke_agent ")
                && s.getParentSpanContext().getSpanId().equals("0000000000000000")).findFirst().orElseThrow();
        List<SpanData> delegates = all.stream().filter(s -> s.getName().equals("execute_tool delegate")).toList();
        assertThat(delegates).isNotEmpty().allSatisfy(d -> assertThat(d.getParentSpanId()).isEqualTo(top.getSpanId()));
        List<SpanData> children = all.stream().filter(s -> s.getName().startsWith("invoke_agent ") && s != top).toList();
        assertThat(children).isNotEmpty().allSatisfy(child -> {
            assertThat(delegates).extracting(SpanData::getSpanId).contains(child.getParentSpanId());
            assertThat(child.getAttributes().get(AttributeKey.longKey("shelly.delegation.depth"))).isEqualTo(1L);
        });
        assertThat(all).filteredOn(s -> s.getName().startsWith("chat")).isNotEmpty()
                .allSatisfy(chat -> assertThat(chat.getAttributes().get(AttributeKey.stringKey("gen_ai.operation.name")))
                        .isEqualTo("chat"));
    }

    @Test
    void theParallelResearchTeamIsAWorkflowSpanAboveItsMembers() {
        Runs.Result r = Runs.run(Map.of("HOME", "/nowhere"), "parallel");
        assertThat(r.exit()).as(r.out() + r.err()).isZero();

        SpanData team = only("invoke_workflow parallel-research");
        List<SpanData> members = spans.getFinishedSpanItems().stream()
                .filter(s -> s.getName().startsWith("invoke_agent ") && s.getParentSpanId().equals(team.getSpanId())).toList();
        assertThat(members).hasSizeGreaterThanOrEqualTo(2);
    }
}
