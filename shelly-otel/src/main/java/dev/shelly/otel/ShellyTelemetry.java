package dev.shelly.otel;

import dev.shelly.agent.Agent;
import dev.shelly.agent.RunContext;
import dev.shelly.agent.RunInterceptor;
import dev.shelly.agent.RunInterceptor.ModelCall;
import dev.shelly.agent.RunInterceptor.ToolInvocation;
import dev.shelly.agent.RunObserver;
import dev.shelly.agent.RunPausedException;
import dev.shelly.agent.Runner;
import dev.shelly.chats.Message;
import dev.shelly.chats.ToolResult;
import dev.shelly.modeladapter.Cost;
import dev.shelly.modeladapter.FallbackCompleter.FallbackListener;
import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.ModelOptions;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.ModelTarget;
import dev.shelly.modeladapter.RetryingCompleter.RetryListener;
import dev.shelly.modeladapter.Usage;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.metrics.DoubleCounter;
import io.opentelemetry.api.metrics.DoubleHistogram;
import io.opentelemetry.api.metrics.LongCounter;
import io.opentelemetry.api.metrics.LongHistogram;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.metrics.MeterProvider;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
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
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
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
    private final LongHistogram tokenUsage;
    private final DoubleHistogram duration;
    private final LongCounter retries;
    private final LongCounter fallbacks;
    private final LongCounter toolErrors;
    private final DoubleCounter cost;
    /** Whether there is anything to record: false when tracing and metrics are both no-ops. */
    private final boolean active;
    /** The attributes of the model-call metrics, by what they are made of; bounded. */
    private final Map<CallKey, CallAttributes> callAttributes = new ConcurrentHashMap<>();

    private ShellyTelemetry(Builder b) {
        this.otel = b.otel;
        this.owned = b.owned;
        this.captureContent = b.captureContent;
        this.active = otel.getTracerProvider() != TracerProvider.noop() || otel.getMeterProvider() != MeterProvider.noop();
        this.tracer = otel.getTracer(SCOPE);
        Meter meter = otel.getMeter(SCOPE);
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
        Agent agent = chain.agent();
        RunContext run = chain.context();
        ModelTarget target = agent.completer().target();
        String name = agent.name();
        SpanBuilder builder = tracer.spanBuilder(GenAi.INVOKE_AGENT + " " + name)
                .setSpanKind(SpanKind.INTERNAL)
                .setAttribute(GenAi.OPERATION_NAME, GenAi.INVOKE_AGENT);
        if (target.provider() != null) {
            builder.setAttribute(GenAi.PROVIDER_NAME, GenAi.provider(target.provider()));
        }
        builder.setAttribute(GenAi.AGENT_NAME, name);
        if (!agent.description().isBlank()) {
            builder.setAttribute(GenAi.AGENT_DESCRIPTION, agent.description());
        }
        if (target.model() != null) {
            builder.setAttribute(GenAi.REQUEST_MODEL, target.model());
        }
        String session = run.sessionId().orElse(null);
        if (session != null) {
            builder.setAttribute(GenAi.CONVERSATION_ID, session);
        }
        String runId = run.runId().orElse(null);
        if (runId != null) {
            builder.setAttribute(GenAi.SHELLY_RUN_ID, runId);
        }
        String parentRun = run.parentRunId().orElse(null);
        if (parentRun != null) {
            builder.setAttribute(GenAi.SHELLY_PARENT_RUN_ID, parentRun);
        }
        builder.setAttribute(GenAi.SHELLY_DEPTH, (long) run.depth());
        Current current = enter(builder.startSpan());
        String outerRun = MDC.get(MDC_RUN);
        if (runId != null) {
            MDC.put(MDC_RUN, runId);
        }
        return (reply, failure) -> {
            Current.restore(MDC_RUN, outerRun);
            Span span = current.span;
            Usage used = run.usage();
            if (!used.equals(Usage.ZERO)) {
                usage(span, used);
            }
            if (failure instanceof RunPausedException) {
                span.setAttribute(GenAi.SHELLY_PAUSED, true); // waiting for a decision is not a failure
            } else if (failure != null) {
                failed(span, failure);
            }
            if (run.parentRunId().isEmpty()) {
                Cost spent = run.cost();
                if (spent.usd().signum() > 0) {
                    cost.add(spent.usd().doubleValue(), Attributes.of(GenAi.AGENT_NAME, name));
                }
            }
            current.exit();
        };
    }

    @Override
    public Observation<Message> workflowStarted(Runner workflow, RunContext context) {
        SpanBuilder builder = tracer.spanBuilder(GenAi.INVOKE_WORKFLOW + " " + workflow.name())
                .setSpanKind(SpanKind.INTERNAL)
                .setAttribute(GenAi.OPERATION_NAME, GenAi.INVOKE_WORKFLOW)
                .setAttribute(GenAi.WORKFLOW_NAME, workflow.name());
        String session = context.sessionId().orElse(null);
        if (session != null) {
            builder.setAttribute(GenAi.CONVERSATION_ID, session);
        }
        Current current = enter(builder.startSpan());
        return (reply, failure) -> {
            if (failure != null) {
                failed(current.span, failure);
            }
            current.exit();
        };
    }

    @Override
    public Observation<ModelResponse> modelCallStarted(ModelCall call, ModelTarget target) {
        ModelRequest request = call.request();
        String provider = GenAi.provider(target.provider());
        String model = target.model();
        SpanBuilder builder = tracer.spanBuilder(model == null ? GenAi.CHAT : GenAi.CHAT + " " + model)
                .setSpanKind(SpanKind.CLIENT)
                .setAttribute(GenAi.OPERATION_NAME, GenAi.CHAT);
        if (provider != null) {
            builder.setAttribute(GenAi.PROVIDER_NAME, provider);
        }
        if (model != null) {
            builder.setAttribute(GenAi.REQUEST_MODEL, model);
        }
        String session = call.run().sessionId().orElse(null);
        if (session != null) {
            builder.setAttribute(GenAi.CONVERSATION_ID, session);
        }
        options(builder, request.options());
        if (captureContent) {
            String system = Content.systemInstructions(request.messages());
            if (system != null) {
                builder.setAttribute(GenAi.SYSTEM_INSTRUCTIONS, system);
            }
            builder.setAttribute(GenAi.INPUT_MESSAGES, Content.inputMessages(request.messages()));
        }
        long start = System.nanoTime();
        Current current = enter(builder.startSpan());
        return (response, failure) -> {
            Span span = current.span;
            String answeredBy = provider;
            String responseModel = null;
            String errorType = null;
            if (response != null) {
                if (answeredBy == null && response.provider() != null) {
                    answeredBy = GenAi.provider(response.provider());
                    span.setAttribute(GenAi.PROVIDER_NAME, answeredBy);
                }
                if (response.model() != null) {
                    responseModel = response.model();
                    span.setAttribute(GenAi.RESPONSE_MODEL, responseModel);
                }
                if (response.responseId() != null) {
                    span.setAttribute(GenAi.RESPONSE_ID, response.responseId());
                }
                String finish = finishReason(response);
                span.setAttribute(GenAi.RESPONSE_FINISH_REASONS, List.of(finish));
                if (!response.usage().equals(Usage.ZERO)) {
                    usage(span, response.usage());
                }
                if (captureContent) {
                    span.setAttribute(GenAi.OUTPUT_MESSAGES, Content.outputMessages(response.message(), finish));
                }
            }
            if (failure != null) {
                errorType = errorType(failure);
                failed(span, failure);
            }
            CallAttributes attributes = callAttributes(new CallKey(answeredBy, model, responseModel, errorType));
            duration.record((System.nanoTime() - start) / 1e9, attributes.call);
            if (response != null && !response.usage().equals(Usage.ZERO)) {
                tokenUsage.record(response.usage().totalInputTokens(), attributes.input);
                tokenUsage.record(response.usage().outputTokens(), attributes.output);
            }
            current.exit();
        };
    }

    @Override
    public Observation<ToolResult> toolCallStarted(ToolInvocation call) {
        String tool = call.call().name();
        SpanBuilder builder = tracer.spanBuilder(GenAi.EXECUTE_TOOL + " " + tool)
                .setSpanKind(SpanKind.INTERNAL)
                .setAttribute(GenAi.OPERATION_NAME, GenAi.EXECUTE_TOOL)
                .setAttribute(GenAi.TOOL_NAME, tool)
                .setAttribute(GenAi.TOOL_CALL_ID, call.call().id())
                .setAttribute(GenAi.TOOL_TYPE, "function");
        if (captureContent) {
            builder.setAttribute(GenAi.TOOL_CALL_ARGUMENTS, call.call().arguments());
        }
        Current current = enter(builder.startSpan());
        return (result, failure) -> {
            Span span = current.span;
            if (result != null) {
                if (captureContent) {
                    span.setAttribute(GenAi.TOOL_CALL_RESULT, Content.toolResult(result));
                }
                if (result.isError()) {
                    span.setAttribute(GenAi.ERROR_TYPE, GenAi.TOOL_ERROR);
                    span.setStatus(StatusCode.ERROR);
                    toolErrors.add(1, Attributes.of(GenAi.TOOL_NAME, tool, GenAi.ERROR_TYPE, GenAi.TOOL_ERROR));
                }
            }
            if (failure != null) {
                failed(span, failure);
                toolErrors.add(1, Attributes.of(GenAi.TOOL_NAME, tool, GenAi.ERROR_TYPE, errorType(failure)));
            }
            current.exit();
        };
    }

    @Override
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
        return event -> {
            ModelException failure = event.failure();
            String type = errorType(failure);
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
        Current current = enter(span);
        try {
            ToolResult result = call.get();
            if (result != null && result.isError()) {
                span.setAttribute(GenAi.ERROR_TYPE, GenAi.TOOL_ERROR);
                span.setStatus(StatusCode.ERROR);
            }
            return result;
        } catch (RuntimeException | Error e) {
            failed(span, e);
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

    // ------------------------------------------------------------------ plumbing

    /** What a model call's metric attributes are made of. */
    private record CallKey(String provider, String requestModel, String responseModel, String errorType) {}

    /** A model call's metric attributes: for its duration, and for its input and output tokens. */
    private record CallAttributes(Attributes call, Attributes input, Attributes output) {}

    /** At most this many kinds of model call keep their metric attributes. */
    private static final int CACHED_CALL_ATTRIBUTES = 1_024;

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

    /** A span made current on this thread, with the MDC entries it replaced. */
    private static final class Current {
        final Span span;
        private final Scope scope;
        private final String traceId;
        private final String spanId;
        private final String flags;
        /** Whether the span is a real one, whose ids went into the MDC (a no-op tracer's are not). */
        private final boolean mdc;

        Current(Span span) {
            this.span = span;
            this.scope = span.makeCurrent();
            SpanContext sc = span.getSpanContext();
            this.mdc = sc.isValid();
            if (mdc) {
                this.traceId = MDC.get(MDC_TRACE_ID);
                this.spanId = MDC.get(MDC_SPAN_ID);
                this.flags = MDC.get(MDC_TRACE_FLAGS);
                MDC.put(MDC_TRACE_ID, sc.getTraceId());
                MDC.put(MDC_SPAN_ID, sc.getSpanId());
                MDC.put(MDC_TRACE_FLAGS, sc.getTraceFlags().asHex());
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
                    restore(MDC_TRACE_ID, traceId);
                    restore(MDC_SPAN_ID, spanId);
                    restore(MDC_TRACE_FLAGS, flags);
                }
            }
        }

        static void restore(String key, String value) {
            if (value == null) {
                MDC.remove(key);
            } else {
                MDC.put(key, value);
            }
        }
    }

    private static Current enter(Span span) {
        return new Current(span);
    }

    private static void options(SpanBuilder builder, ModelOptions options) {
        if (options.maxTokens() != null) {
            builder.setAttribute(GenAi.REQUEST_MAX_TOKENS, options.maxTokens().longValue());
        }
        if (options.temperature() != null) {
            builder.setAttribute(GenAi.REQUEST_TEMPERATURE, options.temperature());
        }
        if (options.topP() != null) {
            builder.setAttribute(GenAi.REQUEST_TOP_P, options.topP());
        }
        if (options.stop() != null && !options.stop().isEmpty()) {
            builder.setAttribute(GenAi.REQUEST_STOP_SEQUENCES, options.stop());
        }
        if (options.responseFormat() != null) {
            builder.setAttribute(GenAi.OUTPUT_TYPE, "json");
        }
    }

    private static void usage(Span span, Usage usage) {
        span.setAttribute(GenAi.USAGE_INPUT_TOKENS, usage.totalInputTokens());
        span.setAttribute(GenAi.USAGE_OUTPUT_TOKENS, usage.outputTokens());
        span.setAttribute(GenAi.USAGE_CACHE_READ_INPUT_TOKENS, usage.cacheReadTokens());
        span.setAttribute(GenAi.USAGE_CACHE_CREATION_INPUT_TOKENS, usage.cacheWriteTokens());
        if (usage.reasoningTokens() > 0) {
            span.setAttribute(GenAi.USAGE_REASONING_OUTPUT_TOKENS, usage.reasoningTokens());
        }
    }

    /** The provider's own stop reason where it gave one, else Shelly's in lower case. */
    private static String finishReason(ModelResponse response) {
        return response.providerStopReason() != null ? response.providerStopReason()
                : response.stopReason().name().toLowerCase(Locale.ROOT);
    }

    private static void failed(Span span, Throwable failure) {
        span.setAttribute(GenAi.ERROR_TYPE, errorType(failure));
        span.setStatus(StatusCode.ERROR, failure.getMessage() == null ? failure.getClass().getName() : failure.getMessage());
    }

    /** A model error's kind in lower case, else the exception's class name. */
    static String errorType(Throwable failure) {
        if (failure instanceof ModelException m) {
            return m.kind().name().toLowerCase(Locale.ROOT);
        }
        return failure.getClass().getName();
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
