package dev.shelly.otel;

import dev.shelly.agent.Agent;
import dev.shelly.agent.RunContext;
import dev.shelly.agent.RunInterceptor;
import dev.shelly.agent.RunInterceptor.ModelCall;
import dev.shelly.agent.RunInterceptor.ToolInvocation;
import dev.shelly.agent.RunObserver;
import dev.shelly.agent.Runner;
import dev.shelly.chats.Message;
import dev.shelly.chats.ToolResult;
import dev.shelly.modeladapter.FallbackCompleter.FallbackListener;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.ModelTarget;
import dev.shelly.modeladapter.RetryingCompleter.RetryListener;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.metrics.MeterProvider;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.TracerProvider;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapSetter;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.MDC;

/**
 * OpenTelemetry traces and metrics for Shelly's runs, following the OpenTelemetry GenAI semantic
 * conventions: a {@link RunObserver} to add to a run's context.
 *
 * <pre>{@code
 * ShellyTelemetry telemetry = ShellyTelemetry.create(openTelemetry);
 * RunContext scope = RunContext.builder().sessionId("s-42").observers(telemetry).build();
 * agent.run("Book the flight", scope);
 * }</pre>
 *
 * <p><b>Spans.</b> Each agent run is an {@code invoke_agent {agent}} span (INTERNAL), each model
 * call a {@code chat {model}} span (CLIENT) below it, each tool call an
 * {@code execute_tool {tool}} span (INTERNAL), and each team or hand-off group an
 * {@code invoke_workflow {name}} span (INTERNAL) above its members' runs. A delegated child's
 * run is a child of the {@code execute_tool delegate} span that started it, across the virtual
 * threads it runs on; a team member's run is a child of its team's span. The attributes are the
 * conventions' ({@code gen_ai.operation.name}, {@code gen_ai.provider.name},
 * {@code gen_ai.request.model}, {@code gen_ai.response.model}, {@code gen_ai.usage.*} with the
 * cache tokens, {@code gen_ai.response.finish_reasons}, {@code gen_ai.tool.name},
 * {@code gen_ai.tool.call.id}, {@code gen_ai.agent.name}, {@code gen_ai.conversation.id} = the
 * session id, ...) plus {@code shelly.run.id}, {@code shelly.parent_run.id} and
 * {@code shelly.delegation.depth} on agent spans. A failure sets the span's status to ERROR and
 * {@code error.type}: a model error's kind in lower case ({@code rate_limited},
 * {@code authentication}, ...), {@code tool_error} for a tool's error result, else the
 * exception's class name. A run a tool-call hook paused is not a failure: its span ends with
 * {@code shelly.run.paused = true}.
 *
 * <p><b>Content</b> (prompts, replies, tool arguments and results) is recorded only when
 * {@link Builder#captureContent(boolean) turned on}: then {@code gen_ai.system_instructions},
 * {@code gen_ai.input.messages}, {@code gen_ai.output.messages} (JSON strings in the conventions'
 * schemas), {@code gen_ai.tool.call.arguments} and {@code gen_ai.tool.call.result}.
 *
 * <p><b>Metrics.</b> {@code gen_ai.client.token.usage} and {@code gen_ai.client.operation.duration}
 * per model call, with the conventions' bucket boundaries; Shelly's own
 * {@code shelly.model.retries} (through {@link #retryListener()}), {@code shelly.tool.errors} and
 * {@code shelly.cost} (US dollars of each top-level run, delegated children included, priced by
 * the agent's price table).
 *
 * <p><b>Logging.</b> While a span is current on a thread, the slf4j MDC holds
 * {@value #MDC_TRACE_ID}, {@value #MDC_SPAN_ID} and {@value #MDC_TRACE_FLAGS}, and while an agent
 * runs, {@value #MDC_RUN} holds its run id; work handed to
 * another thread (a delegated child, a concurrent tool call, a team member) takes the trace
 * context and the whole MDC with it, so the session and turn ids follow too.
 *
 * <p><b>MCP.</b> {@link #mcpMeta()} gives the trace context to put in an MCP request's
 * {@code _meta} ({@code traceparent}, {@code tracestate}, {@code baggage}, by the configured
 * propagators); {@link #continueMcpCall} runs a served tool call as a SERVER span continuing the
 * trace a request carried.
 *
 * <p>Safe for concurrent runs. {@link #close()} shuts down an SDK this object made itself
 * ({@link #autoConfigured}); one given to it stays the caller's.
 */
public final class ShellyTelemetry implements RunObserver, AutoCloseable {
    /** The instrumentation scope of every span and metric. */
    public static final String SCOPE = "dev.shelly";
    /** The MDC key of the current trace id. */
    public static final String MDC_TRACE_ID = "trace_id";
    /** The MDC key of the current span id. */
    public static final String MDC_SPAN_ID = "span_id";
    /** The MDC key of the current trace flags. */
    public static final String MDC_TRACE_FLAGS = "trace_flags";
    /** The MDC key of the id of the agent run the thread works for. */
    public static final String MDC_RUN = "shelly.run";

    private static final TextMapSetter<Map<String, Object>> META_SETTER = (carrier, key, value) -> carrier.put(key, value);
    private static final TextMapGetter<Map<String, Object>> META_GETTER = new TextMapGetter<>() {
        @Override
        @SuppressWarnings("deprecation") // still abstract in the interface, so it must be there
        public Iterable<String> keys(Map<String, Object> carrier) {
            return carrier.keySet();
        }

        @Override
        public String get(Map<String, Object> carrier, String key) {
            Object value = carrier == null ? null : carrier.get(key);
            return value instanceof String s ? s : null;
        }
    };

    private final OpenTelemetry otel;
    private final OpenTelemetrySdk owned;
    private final Tracer tracer;
    private final boolean captureContent;
    /** Whether there is anything to record: false when tracing and metrics are both no-ops. */
    private final boolean active;
    private final Metrics metrics;
    private final Spans spans;

    private ShellyTelemetry(Builder b) {
        this.otel = b.otel;
        this.owned = b.owned;
        this.captureContent = b.captureContent;
        this.active = otel.getTracerProvider() != TracerProvider.noop() || otel.getMeterProvider() != MeterProvider.noop();
        this.tracer = otel.getTracer(SCOPE);
        this.metrics = new Metrics(otel.getMeter(SCOPE));
        this.spans = new Spans(tracer, metrics, captureContent);
    }

    /**
     * Telemetry on an OpenTelemetry instance the application set up; content is not captured.
     *
     * @param openTelemetry the instance, for example the application's {@code OpenTelemetrySdk}
     * @return the telemetry
     */
    public static ShellyTelemetry create(OpenTelemetry openTelemetry) {
        return builder(openTelemetry).build();
    }

    /**
     * Starts building telemetry on an OpenTelemetry instance the application set up.
     *
     * @param openTelemetry the instance
     * @return a builder
     */
    public static Builder builder(OpenTelemetry openTelemetry) {
        if (openTelemetry == null) {
            throw new IllegalArgumentException("ShellyTelemetry openTelemetry must not be null");
        }
        return new Builder(openTelemetry, null);
    }

    /**
     * Starts building telemetry on an SDK made by the OpenTelemetry SDK's autoconfiguration: the
     * {@code OTEL_*} environment variables and {@code otel.*} system properties as usual, with
     * {@code properties} (such as {@code otel.exporter.otlp.endpoint},
     * {@code otel.service.name}) taking their place where given. The OTLP exporter is on the class
     * path with this module. The SDK is not made global; {@link #close()} shuts it down, which
     * exports what is still buffered.
     *
     * @param properties autoconfiguration properties, by their {@code otel.*} names
     * @return a builder
     * @throws io.opentelemetry.sdk.autoconfigure.spi.ConfigurationException when a property is invalid
     */
    public static Builder autoConfigured(Map<String, String> properties) {
        if (properties == null) {
            throw new IllegalArgumentException("ShellyTelemetry.autoConfigured properties must not be null");
        }
        Map<String, String> copy = Map.copyOf(properties);
        OpenTelemetrySdk sdk = AutoConfiguredOpenTelemetrySdk.builder()
                .addPropertiesSupplier(() -> copy)
                .build()
                .getOpenTelemetrySdk();
        return new Builder(sdk, sdk);
    }

    /**
     * The OpenTelemetry instance the telemetry records to.
     *
     * @return the instance
     */
    public OpenTelemetry openTelemetry() {
        return otel;
    }

    /**
     * Whether prompts, replies, tool arguments and results are recorded on spans.
     *
     * @return true when content is captured
     */
    public boolean capturesContent() {
        return captureContent;
    }

    // ------------------------------------------------------------------ RunObserver

    /**
     * False when the OpenTelemetry instance records nothing (its tracer and meter providers are
     * the API's no-ops, as in {@link OpenTelemetry#noop()} or an unset
     * {@code GlobalOpenTelemetry}): runs then leave this observer out, so that telemetry that is
     * off costs nothing, and the MDC gets no run id from it.
     *
     * @return whether runs are traced or measured
     */
    @Override
    public boolean active() {
        return active;
    }

    @Override
    public Observation<Message> runStarted(RunInterceptor.RunChain chain) {
        return spans.run(chain.agent(), chain.context());
    }

    @Override
    public Observation<Message> workflowStarted(Runner workflow, RunContext context) {
        return spans.workflow(workflow, context);
    }

    @Override
    public Observation<ModelResponse> modelCallStarted(ModelCall call, ModelTarget target) {
        return spans.modelCall(call, target);
    }

    @Override
    public Observation<ToolResult> toolCallStarted(ToolInvocation call) {
        return spans.toolCall(call);
    }

    @Override
    @SuppressWarnings("try") // the scope is held while the task runs
    public Runnable propagate(Runnable task) {
        Context context = Context.current();
        Map<String, String> mdc = MDC.getCopyOfContextMap();
        return () -> {
            Map<String, String> before = MDC.getCopyOfContextMap();
            if (mdc != null) {
                MDC.setContextMap(mdc);
            }
            try (Scope ignored = context.makeCurrent()) {
                task.run();
            } finally {
                if (before == null) {
                    MDC.clear();
                } else {
                    MDC.setContextMap(before);
                }
            }
        };
    }

    // ------------------------------------------------------------------ retries and MCP

    /**
     * A retry listener for the completers an application builds (a provider's
     * {@code retryListener}): counts {@code shelly.model.retries} by provider and error type, and
     * adds a {@code retry} event (attempt, error type, delay) to the current model call's span.
     *
     * @return the listener
     */
    public RetryListener retryListener() {
        return metrics.retryListener();
    }

    /**
     * A fallback listener for the {@link dev.shelly.modeladapter.FallbackCompleter}s an application
     * builds: counts {@code shelly.model.fallbacks} by the provider left, the provider asked next
     * and the reason, adds a {@code fallback} event with the same attributes to the current model
     * call's span, and sets the span's {@code shelly.fallback.provider} to the provider asked
     * last.
     *
     * @return the listener
     */
    public FallbackListener fallbackListener() {
        return metrics.fallbackListener();
    }

    /**
     * The trace context of the calling thread as entries for an MCP request's {@code _meta}
     * ({@code traceparent} and, when set, {@code tracestate} and {@code baggage}, by the
     * configured propagators): the client side of MCP trace propagation. Give it to an MCP
     * client as its request metadata ({@code telemetry::mcpMeta}).
     *
     * @return the entries; empty when no span is current
     */
    public Map<String, Object> mcpMeta() {
        Map<String, Object> meta = new LinkedHashMap<>(4);
        otel.getPropagators().getTextMapPropagator().inject(Context.current(), meta, META_SETTER);
        return meta;
    }

    /**
     * Runs a tool call an MCP server serves as a SERVER span {@code tools/call {tool}}, whose
     * parent is the trace context the request carried in its {@code _meta}: the server side of
     * MCP trace propagation. The span is current while the call runs, so the tool's own spans
     * (an agent the tool runs, say) belong to the caller's trace. Give it to an MCP server as its
     * call wrapper ({@code telemetry::continueMcpCall}).
     *
     * @param tool the tool's name
     * @param meta the request's {@code _meta}, or null
     * @param call runs the tool
     * @return the tool's result
     */
    public ToolResult continueMcpCall(String tool, Map<String, Object> meta, Supplier<ToolResult> call) {
        Context parent = meta == null || meta.isEmpty() ? Context.current()
                : otel.getPropagators().getTextMapPropagator().extract(Context.root(), meta, META_GETTER);
        Span span = tracer.spanBuilder("tools/call " + tool)
                .setParent(parent)
                .setSpanKind(SpanKind.SERVER)
                .setAttribute(GenAi.MCP_METHOD_NAME, "tools/call")
                .setAttribute(GenAi.TOOL_NAME, tool)
                .setAttribute(GenAi.OPERATION_NAME, GenAi.EXECUTE_TOOL)
                .startSpan();
        CurrentSpan current = new CurrentSpan(span);
        try {
            ToolResult result = call.get();
            if (result != null && result.isError()) {
                span.setAttribute(GenAi.ERROR_TYPE, GenAi.TOOL_ERROR);
                span.setStatus(StatusCode.ERROR);
            }
            return result;
        } catch (RuntimeException | Error e) {
            Spans.failed(span, e);
            throw e;
        } finally {
            current.exit();
        }
    }

    /**
     * Shuts down the SDK this telemetry made ({@link #autoConfigured}), exporting what is still
     * buffered; does nothing for an OpenTelemetry instance the application gave.
     */
    @Override
    public void close() {
        if (owned != null) {
            owned.shutdown().join(10, TimeUnit.SECONDS);
        }
    }

    @Override
    public String toString() {
        return "ShellyTelemetry[" + (owned != null ? "autoconfigured SDK" : otel) + (captureContent ? ", content" : "") + "]";
    }

    /** Collects the telemetry's settings. */
    public static final class Builder {
        private final OpenTelemetry otel;
        private final OpenTelemetrySdk owned;
        private boolean captureContent;

        private Builder(OpenTelemetry otel, OpenTelemetrySdk owned) {
            this.otel = otel;
            this.owned = owned;
        }

        /**
         * Whether to record prompts, replies, tool arguments and tool results on spans; off
         * unless set. They may hold personal data and secrets the user typed: turn this on only
         * where the trace backend may keep them.
         *
         * @param value true to capture content
         * @return this builder
         */
        public Builder captureContent(boolean value) {
            this.captureContent = value;
            return this;
        }

        /**
         * Builds the telemetry.
         *
         * @return the telemetry
         */
        public ShellyTelemetry build() {
            return new ShellyTelemetry(this);
        }
    }
}
