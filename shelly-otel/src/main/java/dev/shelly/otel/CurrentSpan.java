package dev.shelly.otel;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.context.Scope;
import org.slf4j.MDC;

/** A span made current on this thread, with the MDC entries it replaced; {@link #exit()} ends it and puts them back. */
final class CurrentSpan {
    final Span span;
    private final Scope scope;
    private final String traceId;
    private final String spanId;
    private final String flags;
    /** Whether the span is a real one, whose ids went into the MDC (a no-op tracer's are not). */
    private final boolean mdc;

    CurrentSpan(Span span) {
        this.span = span;
        this.scope = span.makeCurrent();
        SpanContext sc = span.getSpanContext();
        this.mdc = sc.isValid();
        if (mdc) {
            this.traceId = MDC.get(ShellyTelemetry.MDC_TRACE_ID);
            this.spanId = MDC.get(ShellyTelemetry.MDC_SPAN_ID);
            this.flags = MDC.get(ShellyTelemetry.MDC_TRACE_FLAGS);
            MDC.put(ShellyTelemetry.MDC_TRACE_ID, sc.getTraceId());
            MDC.put(ShellyTelemetry.MDC_SPAN_ID, sc.getSpanId());
            MDC.put(ShellyTelemetry.MDC_TRACE_FLAGS, sc.getTraceFlags().asHex());
        } else {
            this.traceId = null;
            this.spanId = null;
            this.flags = null;
        }
    }

    void exit() {
        try {
            span.end();
        } finally {
            scope.close();
            if (mdc) {
                restore(ShellyTelemetry.MDC_TRACE_ID, traceId);
                restore(ShellyTelemetry.MDC_SPAN_ID, spanId);
                restore(ShellyTelemetry.MDC_TRACE_FLAGS, flags);
            }
        }
    }

    /** Puts an MDC entry back as it was: removed when it was not there. */
    static void restore(String key, String value) {
        if (value == null) {
            MDC.remove(key);
        } else {
            MDC.put(key, value);
        }
    }
}
