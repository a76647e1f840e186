package dev.shelly.otel;

import dev.shelly.agent.Agent;
import dev.shelly.agent.RunContext;
import dev.shelly.agent.RunInterceptor.ModelCall;
import dev.shelly.agent.RunInterceptor.ToolInvocation;
import dev.shelly.agent.RunObserver.Observation;
import dev.shelly.agent.RunPausedException;
import dev.shelly.agent.Runner;
import dev.shelly.chats.Message;
import dev.shelly.chats.ToolResult;
import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.ModelOptions;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.ModelTarget;
import dev.shelly.modeladapter.Usage;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import java.util.List;
import java.util.Locale;
import org.slf4j.MDC;

/**
 * The spans of {@link ShellyTelemetry}: an agent run, a workflow, a model call and a tool call
 * each start one, current on the thread until the observation that is returned ends it, with the
 * conventions' attributes; a model call and a tool call also feed the metrics.
 */
final class Spans {
    private final Tracer tracer;
    private final Metrics metrics;
    private final boolean captureContent;

    Spans(Tracer tracer, Metrics metrics, boolean captureContent) {
        this.tracer = tracer;
        this.metrics = metrics;
        this.captureContent = captureContent;
    }

    Observation<Message> run(Agent agent, RunContext run) {
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
        session(builder, run);
        String runId = run.runId().orElse(null);
        if (runId != null) {
            builder.setAttribute(GenAi.SHELLY_RUN_ID, runId);
        }
        String parentRun = run.parentRunId().orElse(null);
        if (parentRun != null) {
            builder.setAttribute(GenAi.SHELLY_PARENT_RUN_ID, parentRun);
        }
        builder.setAttribute(GenAi.SHELLY_DEPTH, (long) run.depth());
        CurrentSpan current = new CurrentSpan(builder.startSpan());
        String outerRun = MDC.get(ShellyTelemetry.MDC_RUN);
        if (runId != null) {
            MDC.put(ShellyTelemetry.MDC_RUN, runId);
        }
        return (reply, failure) -> {
            CurrentSpan.restore(ShellyTelemetry.MDC_RUN, outerRun);
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
                metrics.cost(name, run.cost().usd());
            }
            current.exit();
        };
    }

    Observation<Message> workflow(Runner workflow, RunContext context) {
        SpanBuilder builder = tracer.spanBuilder(GenAi.INVOKE_WORKFLOW + " " + workflow.name())
                .setSpanKind(SpanKind.INTERNAL)
                .setAttribute(GenAi.OPERATION_NAME, GenAi.INVOKE_WORKFLOW)
                .setAttribute(GenAi.WORKFLOW_NAME, workflow.name());
        session(builder, context);
        CurrentSpan current = new CurrentSpan(builder.startSpan());
        return (reply, failure) -> {
            if (failure != null) {
                failed(current.span, failure);
            }
            current.exit();
        };
    }

    Observation<ModelResponse> modelCall(ModelCall call, ModelTarget target) {
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
        session(builder, call.run());
        options(builder, request.options());
        if (captureContent) {
            String system = Content.systemInstructions(request.messages());
            if (system != null) {
                builder.setAttribute(GenAi.SYSTEM_INSTRUCTIONS, system);
            }
            builder.setAttribute(GenAi.INPUT_MESSAGES, Content.inputMessages(request.messages()));
        }
        long start = System.nanoTime();
        CurrentSpan current = new CurrentSpan(builder.startSpan());
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
            metrics.modelCall(new Metrics.CallKey(answeredBy, model, responseModel, errorType), System.nanoTime() - start,
                    response == null ? null : response.usage());
            current.exit();
        };
    }

    Observation<ToolResult> toolCall(ToolInvocation call) {
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
        CurrentSpan current = new CurrentSpan(builder.startSpan());
        return (result, failure) -> {
            Span span = current.span;
            if (result != null) {
                if (captureContent) {
                    span.setAttribute(GenAi.TOOL_CALL_RESULT, Content.toolResult(result));
                }
                if (result.isError()) {
                    span.setAttribute(GenAi.ERROR_TYPE, GenAi.TOOL_ERROR);
                    span.setStatus(StatusCode.ERROR);
                    metrics.toolError(tool, GenAi.TOOL_ERROR);
                }
            }
            if (failure != null) {
                failed(span, failure);
                metrics.toolError(tool, errorType(failure));
            }
            current.exit();
        };
    }

    /** The run's session as the conversation's id, when it has one. */
    private static void session(SpanBuilder builder, RunContext run) {
        String session = run.sessionId().orElse(null);
        if (session != null) {
            builder.setAttribute(GenAi.CONVERSATION_ID, session);
        }
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

    /** Marks a span failed: ERROR status with the failure's message, and its error type. */
    static void failed(Span span, Throwable failure) {
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
}
