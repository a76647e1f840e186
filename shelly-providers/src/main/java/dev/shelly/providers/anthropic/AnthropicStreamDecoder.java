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
import dev.shelly.providers.internal.WireSupport;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import tools.jackson.databind.JsonNode;

/**
 * Decodes Anthropic's message stream: {@code message_start}, content blocks by index,
 * {@code message_delta}, {@code message_stop}; {@code ping} and unknown events are ignored; an
 * {@code error} event fails the call with the error's kind.
 */
final class AnthropicStreamDecoder implements StreamDecoder {

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

    AnthropicStreamDecoder(AnthropicReply format, StreamListener listener, boolean toolMode) {
        this.format = format;
        this.listener = listener;
        this.toolMode = toolMode;
    }

    @Override
    public boolean isEnd(SseEvent event) {
        return event.event().equals("message_stop") || event.event().equals("error");
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
            case "content_block_delta" -> delta(index(data), data.path("delta"));
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

    private void delta(int index, JsonNode delta) {
        Block block = blocks.get(index);
        if (block == null) {
            throw invalid(format.provider(), "a content_block_delta for block " + index + ", which never started", null);
        }
        String type = text(delta, "type");
        switch (type == null ? "" : type) {
            case "text_delta" -> appendText(block, text(delta, "text"));
            case "input_json_delta" -> appendArguments(block, text(delta, "partial_json"));
            case "thinking_delta" -> appendThinking(block, text(delta, "thinking"));
            case "signature_delta" -> block.signature.append(AnthropicReply.orEmpty(text(delta, "signature")));
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
