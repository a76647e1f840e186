package dev.shelly.agent.internal;

import dev.shelly.agent.RunContext;
import dev.shelly.agent.RunInterceptor;
import dev.shelly.chats.Message;
import dev.shelly.chats.ToolResult;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.ModelResponse;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * What a run outside an engine session logs at DEBUG, under the logger {@code dev.shelly.agent.Agent}:
 * each model call (messages and tools sent; stop reason and tokens back) and each tool call (its
 * arguments; how it ended and how long it took), with the run's id in the MDC under
 * {@value #MDC_RUN}, as the engine logs a session's turns. It is a link of the run's chain only
 * when that logger is at DEBUG when the run starts, so a run pays nothing for it otherwise; prompts
 * and replies are not logged.
 */
final class DebugLog implements Links.Own {
    /** The MDC key of the id of the run a thread works for (shelly-otel's key too). */
    static final String MDC_RUN = "shelly.run";
    static final Logger LOG = LoggerFactory.getLogger("dev.shelly.agent.Agent");

    private final String agent;
    private final String runId;

    private DebugLog(String agent, String runId) {
        this.agent = agent;
        this.runId = runId;
    }

    /** Whether a run in a context gets the link: DEBUG is on, and no engine session logs the run. */
    static boolean on(RunContext context) {
        return LOG.isDebugEnabled() && context.sessionId().isEmpty();
    }

    /** The link for a run that {@link #on} said gets one. */
    static DebugLog of(String agent, RunContext context) {
        return new DebugLog(agent, context.runId().orElse(null));
    }

    @Override
    public Message interceptRun(RunChain chain) {
        String before = MDC.get(MDC_RUN);
        if (runId != null) {
            MDC.put(MDC_RUN, runId);
        }
        try {
            return chain.proceed();
        } finally {
            if (before == null) {
                MDC.remove(MDC_RUN);
            } else {
                MDC.put(MDC_RUN, before);
            }
        }
    }

    @Override
    public ModelResponse interceptModelCall(ModelChain chain) {
        ModelRequest request = chain.call().request();
        LOG.debug("agent '{}' calls its model: {} messages, {} tools", agent, request.messages().size(),
                request.tools().size());
        long start = System.nanoTime();
        ModelResponse response = chain.proceed(request);
        LOG.debug("agent '{}' model call done in {} ms: {}, {} input and {} output tokens", agent, millis(start),
                response.stopReason(), response.usage().totalInputTokens(), response.usage().outputTokens());
        return response;
    }

    @Override
    public ToolResult interceptToolCall(ToolChain chain) {
        RunInterceptor.ToolInvocation call = chain.invocation();
        LOG.debug("agent '{}' calls tool '{}' ({}) with {}", agent, call.call().name(), call.call().id(),
                call.call().arguments());
        long start = System.nanoTime();
        ToolResult result = chain.proceed(call.call());
        LOG.debug("agent '{}' tool '{}' ({}) {} in {} ms", agent, call.call().name(), call.call().id(),
                result.isError() ? "failed" : "answered", millis(start));
        return result;
    }

    private static long millis(long start) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }
}
