package dev.shelly.providers.anthropic;

import static dev.shelly.providers.internal.WireSupport.invalid;
import static dev.shelly.providers.internal.WireSupport.text;

import dev.shelly.chats.Part;
import dev.shelly.chats.Thinking;
import dev.shelly.modeladapter.Delta;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.StreamListener;
import dev.shelly.provider.spi.SseEvent;
import dev.shelly.provider.spi.StreamDecoder;
import dev.shelly.provider.spi.internal.ByteEventDecoder;
import dev.shelly.providers.internal.WireSupport;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import tools.jackson.databind.JsonNode;

/**
 * Decodes Anthropic's message stream: {@code message_start}, content blocks by index,
 * {@code message_delta}, {@code message_stop}; {@code ping} and unknown events are ignored; an
 * {@code error} event fails the call with the error's kind. Read as bytes, the
 * {@code content_block_delta} events are read by the stream's {@link DeltaReader}.
 */
final class AnthropicStreamDecoder implements StreamDecoder, ByteEventDecoder {

    /** One content block being assembled. */
    private static final class Block {
        final String type;
        final StringBuilder text = new StringBuilder();
        final StringBuilder signature = new StringBuilder();
        String id;
        String name;
        int toolIndex = -1;
        boolean answer;

        Block(String type) {
            this.type = type;
        }
    }

    private final AnthropicReply format;
    private final StreamListener listener;
    private final boolean toolMode;
    private final Map<Integer, Block> blocks = new TreeMap<>();
    private final AnthropicReply.UsageCounts usage = new AnthropicReply.UsageCounts();
    private String id;
    private String model;
    private String stopReason;
    private boolean started;
    private boolean stopped;
    private int tools;
    private DeltaReader deltas;

    AnthropicStreamDecoder(AnthropicReply format, StreamListener listener, boolean toolMode) {
        this.format = format;
        this.listener = listener;
        this.toolMode = toolMode;
    }

    @Override
    public boolean isEnd(SseEvent event) {
        return isEnd(event.event());
    }

    @Override
    public boolean isEnd(String event, byte[] data, int offset, int length) {
        boolean end = isEnd(event);
        if (end && deltas != null) {
            deltas.close();
        }
        return end;
    }

    private static boolean isEnd(String event) {
        return event.equals("message_stop") || event.equals("error");
    }

    @Override
    public void onEvent(SseEvent event) {
        if (event.event().equals("ping")) {
            return;
        }
        JsonNode data = WireSupport.tryParse(event.data());
        if (data == null || !data.isObject()) {
            throw invalid(format.provider(), "the " + event.event() + " event holds no JSON object", null);
        }
        String type = text(data, "type");
        switch (type == null ? event.event() : type) {
            case "message_start" -> {
                JsonNode message = data.path("message");
                id = text(message, "id");
                model = text(message, "model");
                started = true;
                updateUsage(message.get("usage"));
            }
            case "content_block_start" -> startBlock(index(data), data.path("content_block"));
            case "content_block_delta" -> {
                JsonNode delta = data.path("delta");
                delta(index(data), text(delta, "type"), text(delta, "text"), text(delta, "partial_json"),
                        text(delta, "thinking"), text(delta, "signature"));
            }
            case "message_delta" -> {
                String stop = text(data.path("delta"), "stop_reason");
                if (stop != null) {
                    stopReason = stop;
                }
                updateUsage(data.get("usage"));
            }
            case "message_stop" -> stopped = true;
            case "error" -> throw format.streamError(data);
            default -> { } // content_block_stop, ping, and event types this version does not know
        }
    }

    /**
     * The same as {@link #onEvent(SseEvent)} with the data as a string, but a
     * {@code content_block_delta} is read from the bytes; any other event is made a string and
     * read as a tree.
     */
    @Override
    public void onEvent(String event, byte[] data, int offset, int length) {
        if (event.equals("ping")) {
            return;
        }
        if (deltas == null) {
            deltas = new DeltaReader();
        }
        if (deltas.read(data, offset, length)) {
            delta(deltas.index, deltas.deltaType, deltas.text, deltas.partialJson, deltas.thinking, deltas.signature);
        } else {
            onEvent(new SseEvent(event, new String(data, offset, length, StandardCharsets.UTF_8)));
        }
    }

    private int index(JsonNode data) {
        JsonNode index = data.get("index");
        if (index == null || !index.isIntegralNumber()) {
            throw invalid(format.provider(), "a " + text(data, "type") + " event has no index", null);
        }
        return index.asInt();
    }

    private void updateUsage(JsonNode node) {
        if (node != null && node.isObject()) {
            usage.update(node);
            listener.onDelta(new Delta.UsageDelta(usage.usage()));
        }
    }

    private void startBlock(int index, JsonNode content) {
        String type = text(content, "type");
        Block block = new Block(type == null ? "" : type);
        blocks.put(index, block);
        switch (block.type) {
            case "text" -> appendText(block, text(content, "text"));
            case "thinking" -> {
                appendThinking(block, text(content, "thinking"));
                block.signature.append(AnthropicReply.orEmpty(text(content, "signature")));
            }
            case "redacted_thinking" -> block.text.append(AnthropicReply.orEmpty(text(content, "data")));
            case "tool_use" -> {
                block.id = text(content, "id");
                block.name = text(content, "name");
                format.toolCall(index, block.id, block.name, "{}");
                if (toolMode && AnthropicFormat.FINAL_ANSWER.equals(block.name)) {
                    // The forced answer tool: its input is the reply's text, streamed as text.
                    block.answer = true;
                } else {
                    block.toolIndex = tools++;
                    listener.onDelta(new Delta.ToolCallStart(block.toolIndex, block.id, block.name));
                }
                JsonNode input = content.get("input");
                if (input != null && input.isObject() && !input.isEmpty()) {
                    appendArguments(block, WireSupport.compact(input));
                }
            }
            default -> { } // a block type this version does not know: its deltas are ignored
        }
    }

    /** A delta: its block's index, and its type and string fields (null for none). */
    private void delta(int index, String type, String text, String partialJson, String thinking, String signature) {
        Block block = blocks.get(index);
        if (block == null) {
            throw invalid(format.provider(), "a content_block_delta for block " + index + ", which never started", null);
        }
        switch (type == null ? "" : type) {
            case "text_delta" -> appendText(block, text);
            case "input_json_delta" -> appendArguments(block, partialJson);
            case "thinking_delta" -> appendThinking(block, thinking);
            case "signature_delta" -> block.signature.append(AnthropicReply.orEmpty(signature));
            default -> { } // citations and delta types this version does not know
        }
    }

    private void appendText(Block block, String s) {
        if (s != null && !s.isEmpty()) {
            block.text.append(s);
            listener.onDelta(new Delta.TextDelta(s));
        }
    }

    private void appendThinking(Block block, String s) {
        if (s != null && !s.isEmpty()) {
            block.text.append(s);
            listener.onDelta(new Delta.ThinkingDelta(s));
        }
    }

    private void appendArguments(Block block, String s) {
        if (s != null && !s.isEmpty() && block.answer) {
            block.text.append(s);
            listener.onDelta(new Delta.TextDelta(s));
        } else if (s != null && !s.isEmpty() && block.toolIndex >= 0) {
            block.text.append(s);
            listener.onDelta(new Delta.ToolCallArguments(block.toolIndex, s));
        }
    }

    @Override
    public ModelResponse finish() {
        if (deltas != null) {
            deltas.close();
        }
        if (!started) {
            throw invalid(format.provider(), "the stream held no message_start event", null);
        }
        if (!stopped) {
            throw invalid(format.provider(), "the stream ended without a message_stop event", null);
        }
        List<Part> parts = new ArrayList<>(blocks.size());
        for (Map.Entry<Integer, Block> e : blocks.entrySet()) {
            Block b = e.getValue();
            Part part = switch (b.type) {
                case "text" -> AnthropicReply.textPart(b.text.toString());
                case "tool_use" -> format.toolCall(e.getKey(), b.id, b.name,
                        WireSupport.canonicalArguments(b.text.toString()));
                case "thinking" -> Thinking.of(b.text.toString(), AnthropicReply.emptyToNull(b.signature.toString()))
                        .withOrigin(AnthropicFormat.ORIGIN);
                case "redacted_thinking" -> format.redacted(e.getKey(), b.text.toString());
                default -> null;
            };
            if (part != null) {
                parts.add(part);
            }
        }
        return format.response(parts, model, id, stopReason, usage.usage(), toolMode);
    }
}
