package dev.shelly.otel;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.chats.ToolCall;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.ModelTarget;
import dev.shelly.modeladapter.StopReason;
import dev.shelly.modeladapter.StreamListener;
import dev.shelly.modeladapter.Usage;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.util.List;

/** An SDK recording into the in-memory exporters, and model replies shaped like a provider's. */
final class Fixture implements AutoCloseable {
    final InMemorySpanExporter spans = InMemorySpanExporter.create();
    final InMemoryMetricReader metrics = InMemoryMetricReader.create();
    final OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
            .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build())
            .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(metrics).build())
            .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
            .build();

    /** A completer that says what it calls, as the providers' do. */
    record Targeted(Completer inner, ModelTarget target) implements Completer {
        @Override
        public ModelResponse complete(ModelRequest request) {
            return inner.complete(request);
        }

        @Override
        public ModelResponse complete(ModelRequest request, StreamListener listener) {
            return inner.complete(request, listener);
        }
    }

    static ModelResponse toolCall(String id, String tool, String arguments, Usage usage, String responseId) {
        return new ModelResponse(Message.of("model", Role.ASSISTANT, new ToolCall(id, tool, arguments)), usage,
                StopReason.TOOL_USE, "tool_use", "claude-sonnet-4-5-20250929", responseId, "anthropic");
    }

    static ModelResponse reply(String text, Usage usage, String responseId) {
        return new ModelResponse(Message.text("model", Role.ASSISTANT, text), usage, StopReason.END_TURN, "end_turn",
                "claude-sonnet-4-5-20250929", responseId, "anthropic");
    }

    List<SpanData> finished() {
        return spans.getFinishedSpanItems();
    }

    SpanData span(String name) {
        List<SpanData> found = finished().stream().filter(s -> s.getName().equals(name)).toList();
        assertThat(found).as("spans named '%s' among %s", name, names()).hasSize(1);
        return found.getFirst();
    }

    List<SpanData> spans(String name) {
        return finished().stream().filter(s -> s.getName().equals(name)).toList();
    }

    List<String> names() {
        return finished().stream().map(SpanData::getName).toList();
    }

    MetricData metric(String name) {
        List<MetricData> found = metrics.collectAllMetrics().stream().filter(m -> m.getName().equals(name)).toList();
        assertThat(found).as("metric %s", name).hasSize(1);
        return found.getFirst();
    }

    @Override
    public void close() {
        sdk.close();
    }
}
