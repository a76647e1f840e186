package dev.shelly.otel;

import dev.shelly.modeladapter.FallbackCompleter.FallbackListener;
import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.RetryingCompleter.RetryListener;
import dev.shelly.modeladapter.Usage;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.metrics.DoubleCounter;
import io.opentelemetry.api.metrics.DoubleHistogram;
import io.opentelemetry.api.metrics.LongCounter;
import io.opentelemetry.api.metrics.LongHistogram;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.trace.Span;
import java.math.BigDecimal;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The metrics of {@link ShellyTelemetry}: the conventions' {@code gen_ai.client.token.usage} and
 * {@code gen_ai.client.operation.duration} per model call, and Shelly's retries, fallbacks, tool
 * errors and cost.
 */
final class Metrics {
    /** At most this many kinds of model call keep their metric attributes. */
    private static final int CACHED_CALL_ATTRIBUTES = 1_024;

    private final LongHistogram tokenUsage;
    private final DoubleHistogram duration;
    private final LongCounter retries;
    private final LongCounter fallbacks;
    private final LongCounter toolErrors;
    private final DoubleCounter cost;
    /** The attributes of the model-call metrics, by what they are made of; bounded. */
    private final Map<CallKey, CallAttributes> callAttributes = new ConcurrentHashMap<>();

    /** What a model call's metric attributes are made of. */
    record CallKey(String provider, String requestModel, String responseModel, String errorType) {}

    /** A model call's metric attributes: for its duration, and for its input and output tokens. */
    private record CallAttributes(Attributes call, Attributes input, Attributes output) {}

    Metrics(Meter meter) {
        this.tokenUsage = meter.histogramBuilder(GenAi.TOKEN_USAGE).ofLongs().setUnit("{token}")
                .setDescription("Number of input and output tokens used.")
                .setExplicitBucketBoundariesAdvice(GenAi.TOKEN_BUCKETS).build();
        this.duration = meter.histogramBuilder(GenAi.OPERATION_DURATION).setUnit("s")
                .setDescription("GenAI operation duration.")
                .setExplicitBucketBoundariesAdvice(GenAi.DURATION_BUCKETS).build();
        this.retries = meter.counterBuilder(GenAi.RETRIES).setUnit("{retry}")
                .setDescription("Model calls retried after a transient failure.").build();
        this.fallbacks = meter.counterBuilder(GenAi.FALLBACKS).setUnit("{fallback}")
                .setDescription("Model calls moved to another provider.").build();
        this.toolErrors = meter.counterBuilder(GenAi.TOOL_ERRORS).setUnit("{error}")
                .setDescription("Tool calls that ended with an error result.").build();
        this.cost = meter.counterBuilder(GenAi.COST).ofDoubles().setUnit("USD")
                .setDescription("What top-level runs cost, their delegated children included.").build();
    }

    /** A model call that ended: its duration, and its tokens when it reported usage. */
    void modelCall(CallKey key, long nanos, Usage usage) {
        CallAttributes attributes = callAttributes(key);
        duration.record(nanos / 1e9, attributes.call);
        if (usage != null && !usage.equals(Usage.ZERO)) {
            tokenUsage.record(usage.totalInputTokens(), attributes.input);
            tokenUsage.record(usage.outputTokens(), attributes.output);
        }
    }

    /** A tool call that ended with an error result or a failure. */
    void toolError(String tool, String errorType) {
        toolErrors.add(1, Attributes.of(GenAi.TOOL_NAME, tool, GenAi.ERROR_TYPE, errorType));
    }

    /** What a top-level run cost, when it cost anything. */
    void cost(String agent, BigDecimal usd) {
        if (usd.signum() > 0) {
            cost.add(usd.doubleValue(), Attributes.of(GenAi.AGENT_NAME, agent));
        }
    }

    /** Counts retries and adds a {@code retry} event to the current span. */
    RetryListener retryListener() {
        return event -> {
            ModelException failure = event.failure();
            String type = Spans.errorType(failure);
            AttributesBuilder attributes = Attributes.builder().put(GenAi.ERROR_TYPE, type);
            failure.provider().ifPresent(p -> attributes.put(GenAi.PROVIDER_NAME, GenAi.provider(p)));
            retries.add(1, attributes.build());
            Span.current().addEvent("retry", Attributes.builder()
                    .put("shelly.retry.attempt", (long) event.attempt())
                    .put(GenAi.ERROR_TYPE, type)
                    .put("shelly.retry.delay_ms", event.delay().toMillis())
                    .build());
        };
    }

    /** Counts fallbacks, adds a {@code fallback} event to the current span and names the provider asked last on it. */
    FallbackListener fallbackListener() {
        return event -> {
            Attributes attributes = Attributes.builder()
                    .put(GenAi.FALLBACK_FROM, event.from())
                    .put(GenAi.FALLBACK_TO, event.to())
                    .put(GenAi.ERROR_TYPE, event.reason())
                    .build();
            fallbacks.add(1, attributes);
            Span span = Span.current();
            span.addEvent("fallback", attributes);
            span.setAttribute(GenAi.FALLBACK_PROVIDER, event.to());
        };
    }

    private CallAttributes callAttributes(CallKey key) {
        CallAttributes known = callAttributes.get(key);
        if (known != null) {
            return known;
        }
        AttributesBuilder b = Attributes.builder().put(GenAi.OPERATION_NAME, GenAi.CHAT);
        if (key.requestModel() != null) {
            b.put(GenAi.REQUEST_MODEL, key.requestModel());
        }
        if (key.responseModel() != null) {
            b.put(GenAi.RESPONSE_MODEL, key.responseModel());
        }
        if (key.provider() != null) {
            b.put(GenAi.PROVIDER_NAME, key.provider());
        }
        if (key.errorType() != null) {
            b.put(GenAi.ERROR_TYPE, key.errorType());
        }
        Attributes call = b.build();
        CallAttributes made = new CallAttributes(call, call.toBuilder().put(GenAi.TOKEN_TYPE, "input").build(),
                call.toBuilder().put(GenAi.TOKEN_TYPE, "output").build());
        if (callAttributes.size() < CACHED_CALL_ATTRIBUTES) {
            callAttributes.putIfAbsent(key, made);
        }
        return made;
    }
}
