package dev.shelly.mcp;

import dev.shelly.tools.RunValues;
import dev.shelly.tools.ToolContext;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The MCP side of a {@code tools/call} an {@link McpToolServer} is serving, for a tool handler
 * that wants more than a result: log and progress notifications to the client, sampling and
 * elicitation requests to it, and a reply in MCP's own content blocks. A handler finds it in its
 * {@link ToolContext}: {@code McpServerCall.of(context)} is empty when the tool is not called
 * through an MCP server.
 *
 * <p>Requests to the client block the handler's (virtual) thread until the client answers, the
 * timeout passes ({@link McpException}) or the thread is interrupted (the call was cancelled).
 */
public interface McpServerCall {
    /** Where the call is in a served tool's {@link ToolContext#values()}. */
    RunValues.Key<McpServerCall> KEY = RunValues.Key.of("dev.shelly.mcp.serverCall", McpServerCall.class);

    /**
     * The MCP side of the call a handler runs in.
     *
     * @param context the handler's context
     * @return the call, or empty outside an MCP server
     */
    static Optional<McpServerCall> of(ToolContext context) {
        if (context == null) {
            throw new IllegalArgumentException("McpServerCall.of context must not be null");
        }
        return context.values().get(KEY);
    }

    /**
     * Sends the client a log message ({@code notifications/message}); the client's
     * {@code logging/setLevel} filters it.
     *
     * @param level its level
     * @param logger the logger's name, or null
     * @param message the message
     */
    void log(Level level, String logger, String message);

    /**
     * Sends the client progress ({@code notifications/progress}) when it asked for it with a
     * progress token; does nothing otherwise.
     *
     * @param progress how far, increasing with each call
     * @param total the total, or null when unknown
     * @param message what is being done, or null
     */
    void progress(double progress, Double total, String message);

    /**
     * Asks the client's model for a message ({@code sampling/createMessage}).
     *
     * @param systemPrompt the system prompt, or null
     * @param messages the conversation, text and images
     * @param maxTokens the most tokens to sample
     * @param timeout how long to wait for the answer
     * @return the model's message
     * @throws McpException when the client does not offer sampling, refuses, or does not answer in time
     * @throws InterruptedException when the call is cancelled while waiting
     */
    McpToolClient.Sampling.Reply sample(String systemPrompt, List<McpPrompt.Message> messages, int maxTokens, Duration timeout)
            throws InterruptedException;

    /**
     * Asks the client's user for input ({@code elicitation/create}, form mode).
     *
     * @param message what to ask
     * @param requestedSchema the JSON schema of the answer: an object of primitive properties
     * @param timeout how long to wait for the answer
     * @return the user's answer
     * @throws McpException when the client does not offer elicitation or does not answer in time
     * @throws InterruptedException when the call is cancelled while waiting
     */
    McpElicitation.Answer elicit(String message, Map<String, Object> requestedSchema, Duration timeout) throws InterruptedException;

    /**
     * Replies with MCP content blocks (and structured content) instead of the tool result's
     * parts; the result's {@code isError} is kept.
     *
     * @param content the blocks
     * @param structuredContent a JSON-able value (maps, lists, records), or null
     */
    void reply(List<McpBlock> content, Object structuredContent);

    /**
     * Closes the HTTP event stream this call is answered on (streamable HTTP, SEP-1699): the
     * client reconnects after the server's retry interval with {@code Last-Event-ID} and gets
     * everything sent since, the result included. For long calls behind proxies that cut
     * connections; does nothing over stdio.
     */
    void closeStream();

    /** The levels of MCP log messages (RFC 5424). */
    enum Level {
        /** Detail for debugging. */
        DEBUG,
        /** Progress and facts. */
        INFO,
        /** Normal but significant. */
        NOTICE,
        /** Something to look at. */
        WARNING,
        /** A failure. */
        ERROR,
        /** A critical failure. */
        CRITICAL,
        /** Action needed now. */
        ALERT,
        /** The system is unusable. */
        EMERGENCY
    }
}
