package dev.shelly.mcp;

import dev.shelly.tools.ToolContext;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Answers what an MCP server asks an {@link McpToolClient}: elicitation and sampling go to the
 * application's handlers, each on a virtual thread of its own, since they wait for a person or a
 * model. An elicitation answer is completed with the schema's defaults and checked against it
 * before it is sent.
 */
final class ClientRequests implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ClientRequests.class);

    private final String server;
    private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
    private final Scheduler scheduler = Schedulers.fromExecutor(threads);

    ClientRequests(String server) {
        this.server = server;
    }

    Mono<McpSchema.ElicitResult> elicit(McpElicitation.Handler handler, McpSchema.ElicitFormRequest request, ToolContext caller) {
        return Mono.fromCallable(() -> {
            Map<String, Object> schema = request.requestedSchema() == null ? Map.of() : request.requestedSchema();
            McpElicitation.Answer answer = handler.answer(new McpElicitation(server, request.message(), schema, caller));
            if (answer == null) {
                throw error(McpSchema.ErrorCodes.INTERNAL_ERROR, "the elicitation handler gave no answer");
            }
            if (answer.action() != McpElicitation.Action.ACCEPT) {
                return new McpSchema.ElicitResult(McpSchema.ElicitResult.Action.valueOf(answer.action().name()), null);
            }
            Map<String, Object> content = withDefaults(schema, answer.content());
            String problem = ElicitationCheck.problem(schema, content);
            if (problem != null) {
                log.warn("MCP server '{}': the answer to \"{}\" does not fit its schema: {}", server, request.message(), problem);
                throw error(McpSchema.ErrorCodes.INVALID_PARAMS, "the answer does not fit the requested schema: " + problem);
            }
            return new McpSchema.ElicitResult(McpSchema.ElicitResult.Action.ACCEPT, content);
        }).subscribeOn(scheduler);
    }

    /** The answer with every property the user left out that has a default set to it (SEP-1034). */
    @SuppressWarnings("unchecked")
    static Map<String, Object> withDefaults(Map<String, Object> schema, Map<String, Object> content) {
        Map<String, Object> complete = new LinkedHashMap<>(content);
        if (schema.get("properties") instanceof Map<?, ?> properties) {
            ((Map<String, Object>) properties).forEach((name, property) -> {
                if (property instanceof Map<?, ?> p && p.containsKey("default") && !complete.containsKey(name)) {
                    complete.put(name, p.get("default"));
                }
            });
        }
        return complete;
    }

    Mono<McpSchema.CreateMessageResult> sample(McpToolClient.Sampling.Handler handler, McpSchema.CreateMessageRequest request,
            ToolContext caller) {
        return Mono.fromCallable(() -> {
            List<McpPrompt.Message> messages = new ArrayList<>();
            for (McpSchema.SamplingMessage m : request.messages()) {
                messages.add(new McpPrompt.Message(m.role() == McpSchema.Role.ASSISTANT, block(m.content())));
            }
            McpToolClient.Sampling.Reply reply;
            try {
                reply = handler.sample(new McpToolClient.Sampling(server, request.systemPrompt(), messages,
                        request.maxTokens() == null ? 0 : request.maxTokens(), caller));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw error(McpSchema.ErrorCodes.INTERNAL_ERROR, "sampling was interrupted");
            } catch (Exception e) {
                throw error(McpSchema.ErrorCodes.INVALID_REQUEST, "sampling refused: " + e.getMessage());
            }
            if (reply == null) {
                throw error(McpSchema.ErrorCodes.INTERNAL_ERROR, "the sampling handler gave no reply");
            }
            McpSchema.CreateMessageResult.StopReason stop = reply.stopReason() == null
                    ? McpSchema.CreateMessageResult.StopReason.END_TURN
                    : McpSchema.CreateMessageResult.StopReason.of(reply.stopReason());
            return new McpSchema.CreateMessageResult(McpSchema.Role.ASSISTANT,
                    McpSchema.TextContent.builder(reply.text()).build(), reply.model() == null ? "unknown" : reply.model(), stop);
        }).subscribeOn(scheduler);
    }

    static McpBlock block(McpSchema.Content content) {
        return switch (content) {
            case McpSchema.TextContent t -> new McpBlock.Text(t.text() == null ? "" : t.text());
            case McpSchema.ImageContent i -> new McpBlock.Image(i.data(), i.mimeType());
            case McpSchema.AudioContent a -> new McpBlock.Audio(a.data(), a.mimeType());
            default -> new McpBlock.Text("[" + content.type() + " content]");
        };
    }

    private McpError error(int code, String message) {
        return McpError.builder(code).message(message).build();
    }

    @Override
    public void close() {
        threads.shutdownNow();
    }
}
