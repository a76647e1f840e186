package dev.shelly.providers.openai;

import static dev.shelly.providers.internal.WireSupport.invalid;
import static dev.shelly.providers.internal.WireSupport.text;

import dev.shelly.chats.Part;
import dev.shelly.chats.Text;
import dev.shelly.chats.Thinking;
import dev.shelly.chats.ToolCall;
import dev.shelly.modeladapter.Delta;
import dev.shelly.modeladapter.StreamListener;
import dev.shelly.modeladapter.Usage;
import dev.shelly.provider.spi.SseEvent;
import dev.shelly.provider.spi.StreamDecoder;
import dev.shelly.provider.spi.internal.ByteEventDecoder;
import dev.shelly.providers.internal.WireSupport;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * Decodes a Chat Completions stream: {@code data:} chunks until {@code data: [DONE]}. Tool calls
 * are assembled by their {@code index}; a fragment that names a tool with a new id at an index
 * already in use starts a new call (Ollama sends every parallel call at index 0), and an id seen
 * before continues its own call. The usage chunk, which has
 * no choices, may come after the finish reason.
 */
final class ChatCompletionsStreamDecoder implements StreamDecoder, ByteEventDecoder {
    private static final String DONE = "[DONE]";
    private static final byte[] DONE_BYTES = DONE.getBytes(StandardCharsets.US_ASCII);

    /** One tool call being assembled. */
    private static final class Call {
        final int position;
        String id;
        String name;
        final StringBuilder arguments = new StringBuilder();
        boolean started;

        Call(int position) {
            this.position = position;
        }
    }

    private final ChatCompletionsFormat format;
    private final StreamListener listener;
    private final StringBuilder text = new StringBuilder();
    private final StringBuilder reasoning = new StringBuilder(0); // most replies have none
    private final StringBuilder refusal = new StringBuilder(0);
    private final List<Call> calls = new ArrayList<>();
    private final Map<Integer, Call> byIndex = new HashMap<>();
    private String id;
    private String model;
    private String finishReason;
    private Usage usage;
    private boolean sawChunk;
    private int started;
    private ChunkReader chunks;

    ChatCompletionsStreamDecoder(ChatCompletionsFormat format, StreamListener listener) {
        this.format = format;
        this.listener = listener;
    }

    @Override
    public boolean isEnd(SseEvent event) {
        return event.data().strip().equals(DONE);
    }

    @Override
    public boolean isEnd(String event, byte[] data, int offset, int length) {
        int from = start(data, offset, offset + length);
        int to = end(data, from, offset + length);
        boolean end = Arrays.equals(data, from, to, DONE_BYTES, 0, DONE_BYTES.length)
                // white space beyond ASCII around the data: as a string
                || from < to && (data[from] < 0 || data[to - 1] < 0) && isEnd(event(event, data, offset, length));
        if (end && chunks != null) {
            chunks.close();
        }
        return end;
    }

    @Override
    public void onEvent(SseEvent event) {
        String data = event.data().strip();
        if (data.equals(DONE) || data.isEmpty()) {
            return;
        }
        JsonNode chunk = WireSupport.tryParse(data);
        if (chunk == null || !chunk.isObject()) {
            throw invalid(format.provider(), "a stream chunk is not a JSON object", null);
        }
        if (chunk.hasNonNull("error") || event.event().equals("error")) {
            throw format.inStreamError(chunk);
        }
        sawChunk = true;
        if (id == null) {
            id = text(chunk, "id");
        }
        if (model == null) {
            model = text(chunk, "model");
        }
        JsonNode choices = chunk.get("choices");
        if (choices != null && choices.isArray()) {
            for (JsonNode choice : choices) {
                if (choice.path("index").asInt(0) == 0) {
                    onChoice(choice);
                }
            }
        }
        onUsage(ChatCompletionsFormat.usage(chunk.get("usage")));
    }

    /**
     * The same as {@link #onEvent(SseEvent)} with the data as a string, but the chunks of every
     * day are read from the bytes by the stream's {@link ChunkReader}; a chunk it declines is
     * made a string and read as a tree.
     */
    @Override
    public void onEvent(String event, byte[] data, int offset, int length) {
        int from = start(data, offset, offset + length);
        int to = end(data, from, offset + length);
        if (from == to || Arrays.equals(data, from, to, DONE_BYTES, 0, DONE_BYTES.length)) {
            return;
        }
        if (event.equals("error")) {
            onEvent(event(event, data, offset, length));
            return;
        }
        if (chunks == null) {
            chunks = new ChunkReader();
        }
        if (!chunks.read(data, offset, length, id == null, model == null)) {
            onEvent(event(event, data, offset, length));
            return;
        }
        sawChunk = true;
        if (id == null) {
            id = chunks.id;
        }
        if (model == null) {
            model = chunks.model;
        }
        ChunkReader.Choice c = chunks.choice;
        if (c != null) {
            onText(ChatCompletionsFormat.reasoning(c.reasoningContent, c.reasoning), c.content, c.refusal);
            for (int i = 0; i < c.fragmentCount; i++) {
                ChunkReader.Fragment f = c.fragments.get(i);
                onToolCallFragment(f.index, f.id, f.name, f.arguments);
            }
            onFinish(c.finishReason);
        }
        if (chunks.usage) {
            onUsage(ChatCompletionsFormat.usage(chunks.promptTokens, chunks.completionTokens, chunks.totalTokens,
                    chunks.cachedTokens, chunks.reasoningTokens));
        }
    }

    private static SseEvent event(String event, byte[] data, int offset, int length) {
        return new SseEvent(event, new String(data, offset, length, StandardCharsets.UTF_8));
    }

    /** The first byte after the leading ASCII white space. */
    private static int start(byte[] data, int from, int to) {
        int i = from;
        while (i < to && data[i] >= 0 && Character.isWhitespace(data[i])) {
            i++;
        }
        return i;
    }

    /** The end before the trailing ASCII white space. */
    private static int end(byte[] data, int from, int to) {
        int i = to;
        while (i > from && data[i - 1] >= 0 && Character.isWhitespace(data[i - 1])) {
            i--;
        }
        return i;
    }

    private void onUsage(Usage u) {
        if (u != null) {
            usage = u;
            listener.onDelta(new Delta.UsageDelta(u));
        }
    }

    private void onChoice(JsonNode choice) {
        JsonNode delta = choice.path("delta");
        onText(ChatCompletionsFormat.reasoning(delta), text(delta, "content"), text(delta, "refusal"));
        JsonNode toolCalls = delta.get("tool_calls");
        if (toolCalls != null && toolCalls.isArray()) {
            for (JsonNode fragment : toolCalls) {
                onToolCallFragment(fragment);
            }
        }
        onFinish(text(choice, "finish_reason"));
    }

    private void onText(String r, String content, String refused) {
        if (r != null && !r.isEmpty()) {
            reasoning.append(r);
            listener.onDelta(new Delta.ThinkingDelta(r));
        }
        if (content != null && !content.isEmpty()) {
            text.append(content);
            listener.onDelta(new Delta.TextDelta(content));
        }
        if (refused != null && !refused.isEmpty()) {
            refusal.append(refused);
            listener.onDelta(new Delta.TextDelta(refused));
        }
    }

    private void onFinish(String finish) {
        if (finish != null) {
            finishReason = finish;
        }
    }

    private void onToolCallFragment(JsonNode fragment) {
        JsonNode indexNode = fragment.get("index");
        JsonNode function = fragment.path("function");
        onToolCallFragment(indexNode != null && indexNode.isIntegralNumber() ? indexNode.asInt() : -1,
                text(fragment, "id"), text(function, "name"), ChatCompletionsFormat.arguments(function.get("arguments")));
    }

    /** A fragment: its index (-1 for none), id and name (null for none) and arguments ("" for none). */
    private void onToolCallFragment(int index, String idSent, String nameSent, String args) {
        String fragmentId = idSent != null && idSent.isEmpty() ? null : idSent;
        String name = nameSent != null && nameSent.isEmpty() ? null : nameSent;
        Call call = index >= 0 ? byIndex.get(index) : (fragmentId == null && !calls.isEmpty() ? calls.getLast() : null);
        if (fragmentId != null && call != null && call.id != null && !fragmentId.equals(call.id)) {
            // Another id at an index in use: the same id seen before continues its call; a fragment
            // that names a tool starts a new call (Ollama sends every parallel call at index 0); a
            // nameless one continues the call at that index (servers that change ids mid-call).
            Call known = byId(fragmentId);
            if (known != null) {
                call = known;
            } else if (name != null) {
                call = null;
            }
        } else if (fragmentId != null && call == null) {
            call = byId(fragmentId);
        }
        if (call == null) {
            call = new Call(calls.size());
            calls.add(call);
            byIndex.put(index, call);
        }
        if (call.id == null && fragmentId != null) {
            call.id = fragmentId;
        }
        if (call.name == null && name != null) {
            call.name = name;
        }
        if (!args.isEmpty()) {
            call.arguments.append(args);
            if (call.started) {
                listener.onDelta(new Delta.ToolCallArguments(indexOf(call), args));
            }
        }
        if (!call.started && call.name != null) {
            call.started = true;
            if (call.id == null) {
                call.id = "call_" + call.position;
            }
            listener.onDelta(new Delta.ToolCallStart(started++, call.id, call.name));
            if (!call.arguments.isEmpty()) {
                listener.onDelta(new Delta.ToolCallArguments(indexOf(call), call.arguments.toString()));
            }
        }
    }

    /** The call that first came with this id, or null. */
    private Call byId(String callId) {
        for (Call c : calls) {
            if (callId.equals(c.id)) {
                return c;
            }
        }
        return null;
    }

    /** The call's index among the calls announced so far (calls without a name are never announced). */
    private int indexOf(Call call) {
        int n = 0;
        for (Call c : calls) {
            if (c == call) {
                return n;
            }
            if (c.started) {
                n++;
            }
        }
        return n;
    }

    @Override
    public dev.shelly.modeladapter.ModelResponse finish() {
        if (chunks != null) {
            chunks.close();
        }
        if (!sawChunk) {
            throw invalid(format.provider(), "the stream ended without a single chunk", null);
        }
        List<Part> parts = new ArrayList<>();
        if (!reasoning.isEmpty()) {
            parts.add(Thinking.of(reasoning.toString(), null).withOrigin(ChatCompletionsFormat.ORIGIN));
        }
        String all = refusal.isEmpty() ? text.toString() : text.toString() + refusal;
        if (!all.isEmpty()) {
            parts.add(new Text(all));
        }
        for (Call c : calls) {
            ToolCall call = format.toolCall(c.position, c.id, c.name, c.arguments.toString());
            if (call != null) {
                parts.add(call);
            }
        }
        return dev.shelly.providers.internal.WireSupport.reply(format.provider(), parts, model, id,
                ChatCompletionsFormat.stopReason(finishReason, !refusal.isEmpty(), ChatCompletionsFormat.hasToolCalls(parts)),
                finishReason, usage);
    }
}
