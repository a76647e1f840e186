package dev.shelly.providers.gemini;

import static dev.shelly.providers.internal.WireSupport.invalid;

import dev.shelly.modeladapter.Delta;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.StreamListener;
import dev.shelly.modeladapter.Usage;
import dev.shelly.provider.spi.SseEvent;
import dev.shelly.provider.spi.StreamDecoder;
import dev.shelly.providers.internal.WireSupport;
import tools.jackson.databind.JsonNode;

/**
 * Decodes {@code streamGenerateContent?alt=sse}: each {@code data:} event is a whole
 * {@code GenerateContentResponse} holding the next parts. The stream has no last event: it ends
 * when the server closes it after the chunk that carries the finish reason, so a close before
 * that chunk is a cut stream. Usage comes with every chunk, cumulative; the last one counts and
 * reaches the listener once, at the end.
 */
final class GeminiStreamDecoder implements StreamDecoder {
    private final GeminiFormat format;
    private final GeminiErrors errors;
    private final GeminiReply reply;
    private final StreamListener listener;
    private String responseId;
    private String modelVersion;
    private String finishReason;
    private Usage usage;
    private boolean sawChunk;
    private boolean blocked;
    private JsonNode lastChunk;

    GeminiStreamDecoder(GeminiFormat format, GeminiErrors errors, GeminiReply reply, StreamListener listener) {
        this.format = format;
        this.errors = errors;
        this.reply = reply;
        this.listener = listener;
    }

    @Override
    public boolean isEnd(SseEvent event) {
        return false;
    }

    @Override
    public void onEvent(SseEvent event) {
        String data = event.data().strip();
        if (data.isEmpty()) {
            return;
        }
        JsonNode chunk = WireSupport.tryParse(data);
        if (chunk == null || !chunk.isObject()) {
            throw invalid(format.provider(), "a stream chunk is not a JSON object", null);
        }
        if (chunk.hasNonNull("error")) {
            throw errors.inStreamError(chunk);
        }
        sawChunk = true;
        lastChunk = chunk;
        if (responseId == null) {
            responseId = GeminiFormat.field(chunk, "responseId", "response_id");
        }
        String version = GeminiFormat.field(chunk, "modelVersion", "model_version");
        if (version != null) {
            modelVersion = version;
        }
        Usage u = GeminiFormat.usage(GeminiFormat.node(chunk, "usageMetadata", "usage_metadata"));
        if (u != null) {
            usage = u;
        }
        JsonNode candidate = GeminiFormat.firstCandidate(chunk);
        if (candidate == null) {
            JsonNode feedback = GeminiFormat.node(chunk, "promptFeedback", "prompt_feedback");
            if (feedback != null && GeminiFormat.field(feedback, "blockReason", "block_reason") != null) {
                blocked = true;
            }
            return;
        }
        JsonNode content = candidate.get("content");
        if (content != null) {
            reply.add(content.get("parts"), responseId);
        }
        String finish = GeminiFormat.field(candidate, "finishReason", "finish_reason");
        if (finish != null) {
            finishReason = finish;
        }
    }

    @Override
    public boolean completeAtClose() {
        return finishReason != null || blocked;
    }

    @Override
    public ModelResponse finish() {
        if (!sawChunk) {
            throw invalid(format.provider(), "the stream ended without a single chunk", null);
        }
        if (blocked && finishReason == null) {
            throw format.blockedOrEmpty(lastChunk);
        }
        if (usage != null) {
            listener.onDelta(new Delta.UsageDelta(usage));
        }
        return format.response(reply, finishReason, modelVersion, responseId, usage);
    }
}
