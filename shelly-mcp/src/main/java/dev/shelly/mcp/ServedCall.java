package dev.shelly.mcp;

import io.modelcontextprotocol.server.McpAsyncServerExchange;
import io.modelcontextprotocol.spec.McpSchema;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/** {@link McpServerCall} on the SDK's exchange of one session, for one {@code tools/call}. */
final class ServedCall implements McpServerCall {
    private static final Logger log = LoggerFactory.getLogger(ServedCall.class);

    private final String server;
    private final String tool;
    private final McpAsyncServerExchange exchange;
    private final Object progressToken;
    private volatile McpSchema.CallToolResult reply;

    ServedCall(String server, String tool, McpAsyncServerExchange exchange, Object progressToken) {
        this.server = server;
        this.tool = tool;
        this.exchange = exchange;
        this.progressToken = progressToken;
    }

    @Override
    public void log(Level level, String logger, String message) {
        if (level == null || message == null) {
            throw new IllegalArgumentException("McpServerCall.log needs a level and a message");
        }
        McpSchema.LoggingLevel wire = McpSchema.LoggingLevel.valueOf(level.name());
        send(exchange.loggingNotification(new McpSchema.LoggingMessageNotification(wire, logger, message)), "a log message");
    }

    @Override
    public void progress(double progress, Double total, String message) {
        if (progressToken == null) {
            return;
        }
        send(exchange.progressNotification(McpSchema.ProgressNotification.builder(progressToken, progress)
                .total(total).message(message).build()),
                "progress");
    }

    /** Notifications wait for the transport, so that they reach the client before the result. */
    private void send(Mono<Void> notification, String what) {
        try {
            notification.block(Duration.ofSeconds(10));
        } catch (RuntimeException e) {
            log.debug("MCP server '{}': tool '{}' could not send {}: {}", server, tool, what, e.toString());
        }
    }

    @Override
    public McpToolClient.Sampling.Reply sample(String systemPrompt, List<McpPrompt.Message> messages, int maxTokens, Duration timeout)
            throws InterruptedException {
        if (messages == null || messages.isEmpty() || maxTokens < 1 || timeout == null) {
            throw new IllegalArgumentException("McpServerCall.sample needs messages, a positive maxTokens and a timeout");
        }
        if (exchange.getClientCapabilities() == null || exchange.getClientCapabilities().sampling() == null) {
            throw new McpException("the client of MCP server '" + server + "' does not offer sampling (tool '" + tool + "')");
        }
        List<McpSchema.SamplingMessage> wire = new ArrayList<>();
        for (McpPrompt.Message m : messages) {
            wire.add(new McpSchema.SamplingMessage(m.assistant() ? McpSchema.Role.ASSISTANT : McpSchema.Role.USER,
                    McpContent.toMcp(m.content())));
        }
        McpSchema.CreateMessageRequest.Builder request = McpSchema.CreateMessageRequest.builder(wire, maxTokens);
        if (systemPrompt != null) {
            request.systemPrompt(systemPrompt);
        }
        McpSchema.CreateMessageResult result = await(exchange.createMessage(request.build()), timeout, "sampling");
        String text = result.content() instanceof McpSchema.TextContent t && t.text() != null ? t.text() : "";
        return new McpToolClient.Sampling.Reply(text, result.model(), result.stopReason() == null ? null : switch (result.stopReason()) {
            case END_TURN -> "endTurn";
            case STOP_SEQUENCE -> "stopSequence";
            case MAX_TOKENS -> "maxTokens";
            case UNKNOWN -> "unknown";
        });
    }

    @Override
    public McpElicitation.Answer elicit(String message, Map<String, Object> requestedSchema, Duration timeout) throws InterruptedException {
        if (message == null || requestedSchema == null || timeout == null) {
            throw new IllegalArgumentException("McpServerCall.elicit needs a message, a schema and a timeout");
        }
        if (exchange.getClientCapabilities() == null || exchange.getClientCapabilities().elicitation() == null) {
            throw new McpException("the client of MCP server '" + server + "' does not offer elicitation (tool '" + tool + "')");
        }
        McpSchema.ElicitResult result = await(exchange.createElicitation(
                McpSchema.ElicitFormRequest.builder(message, requestedSchema).build()), timeout, "elicitation");
        return new McpElicitation.Answer(McpElicitation.Action.valueOf(result.action().name()), result.content());
    }

    private <T> T await(Mono<T> request, Duration timeout, String what) throws InterruptedException {
        CompletableFuture<T> future = request.toFuture();
        try {
            T result = future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (result == null) {
                throw new McpException("the client of MCP server '" + server + "' gave no answer to " + what
                        + " for tool '" + tool + "'");
            }
            return result;
        } catch (TimeoutException e) {
            future.cancel(true);
            throw new McpException("the client of MCP server '" + server + "' did not answer " + what + " for tool '"
                    + tool + "' within " + timeout.toMillis() + " ms");
        } catch (InterruptedException e) {
            future.cancel(true);
            throw e;
        } catch (ExecutionException | CancellationException e) {
            Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
            throw new McpException("the client of MCP server '" + server + "' refused " + what + " for tool '" + tool
                    + "': " + cause.getMessage(), cause);
        }
    }

    @Override
    public void closeStream() {
        Object stream = exchange.transportContext() == null ? null : exchange.transportContext().get(StreamableHttpHandler.STREAM_KEY);
        if (stream instanceof Runnable close) {
            log.debug("MCP server '{}': tool '{}' closes its event stream; the client resumes it", server, tool);
            close.run();
        }
    }

    @Override
    public void reply(List<McpBlock> content, Object structuredContent) {
        if (content == null) {
            throw new IllegalArgumentException("McpServerCall.reply content must not be null");
        }
        List<McpSchema.Content> wire = new ArrayList<>();
        for (McpBlock block : content) {
            wire.add(McpContent.toMcp(block));
        }
        reply = new McpSchema.CallToolResult(List.copyOf(wire), null, structuredContent, null);
    }

    /** The reply the handler gave, with the result's error flag; null when it gave none. */
    McpSchema.CallToolResult reply(boolean isError) {
        McpSchema.CallToolResult given = reply;
        return given == null ? null : new McpSchema.CallToolResult(given.content(), isError, given.structuredContent(), null);
    }
}
