package dev.shelly.providers.openai;

import static dev.shelly.providers.internal.WireSupport.invalid;
import static dev.shelly.providers.internal.WireSupport.text;

import dev.shelly.modeladapter.Delta;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.StreamListener;
import dev.shelly.provider.spi.SseEvent;
import dev.shelly.provider.spi.StreamDecoder;
import dev.shelly.providers.internal.WireSupport;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;

/**
 * Decodes a Responses API stream: typed events, each with its {@code type} in the data. Text,
 * refusal, reasoning-summary and function-argument deltas reach the listener as they come; the
 * reply itself is the {@code response} of the last event ({@code response.completed} or
 * {@code response.incomplete}), parsed as a non-streamed reply is, so both are equal. When that
 * response carries no output (some compatible servers), the items of the
 * {@code response.output_item.done} events stand in. {@code response.failed} and {@code error}
 * fail the call.
 */
final class ResponsesStreamDecoder implements StreamDecoder {
    private final ResponsesFormat format;
    private final StreamListener listener;
    private final Map<Integer, Integer> callIndexByOutput = new HashMap<>();
    private final TreeMap<Integer, JsonNode> doneItems = new TreeMap<>();
    private JsonNode last;
    private int calls;

    ResponsesStreamDecoder(ResponsesFormat format, StreamListener listener) {
        this.format = format;
        this.listener = listener;
    }

    private static String type(SseEvent event, JsonNode data) {
        String type = data == null ? null : text(data, "type");
        return type != null ? type : event.event();
    }

    @Override
    public boolean isEnd(SseEvent event) {
        String name = event.event();
        if (name.equals("message")) {
            JsonNode data = WireSupport.tryParse(event.data());
            name = data == null ? "" : String.valueOf(text(data, "type"));
        }
        return switch (name) {
            case "response.completed", "response.incomplete", "response.failed", "error" -> true;
            default -> false;
        };
    }

    @Override
    public void onEvent(SseEvent event) {
        String raw = event.data().strip();
        if (raw.isEmpty() || raw.equals("[DONE]")) {
            return;
        }
        JsonNode data = WireSupport.tryParse(raw);
        if (data == null || !data.isObject()) {
            throw invalid(format.provider(), "a stream event is not a JSON object", null);
        }
        switch (type(event, data)) {
            case "response.output_text.delta", "response.refusal.delta" -> {
                String delta = text(data, "delta");
                if (delta != null && !delta.isEmpty()) {
                    listener.onDelta(new Delta.TextDelta(delta));
                }
            }
            case "response.reasoning_summary_text.delta" -> {
                String delta = text(data, "delta");
                if (delta != null && !delta.isEmpty()) {
                    listener.onDelta(new Delta.ThinkingDelta(delta));
                }
            }
            case "response.output_item.added" -> {
                JsonNode item = data.path("item");
                if ("function_call".equals(text(item, "type"))) {
                    int index = calls++;
                    callIndexByOutput.put(data.path("output_index").asInt(-1), index);
                    listener.onDelta(new Delta.ToolCallStart(index, text(item, "call_id"), text(item, "name")));
                    String args = text(item, "arguments");
                    if (args != null && !args.isEmpty()) {
                        listener.onDelta(new Delta.ToolCallArguments(index, args));
                    }
                }
            }
            case "response.function_call_arguments.delta" -> {
                Integer index = callIndexByOutput.get(data.path("output_index").asInt(-1));
                String delta = text(data, "delta");
                if (index != null && delta != null && !delta.isEmpty()) {
                    listener.onDelta(new Delta.ToolCallArguments(index, delta));
                }
            }
            case "response.output_item.done" -> {
                JsonNode item = data.get("item");
                if (item != null && item.isObject()) {
                    doneItems.put(data.path("output_index").asInt(doneItems.size()), item);
                }
            }
            case "response.completed", "response.incomplete" -> last = data.get("response");
            case "response.failed" -> throw format.failed(data.path("response"));
            case "error" -> throw format.errorEvent(data);
            default -> { }
        }
    }

    @Override
    public ModelResponse finish() {
        if (last == null || !last.isObject()) {
            throw invalid(format.provider(), "the stream ended without a completed response", null);
        }
        JsonNode output = last.get("output");
        if ((output == null || !output.isArray() || output.isEmpty()) && !doneItems.isEmpty()) {
            ArrayNode items = WireSupport.JSON.createArrayNode();
            doneItems.values().forEach(items::add);
            output = items;
        }
        ModelResponse response = format.response(last, output);
        listener.onDelta(new Delta.UsageDelta(response.usage()));
        return response;
    }
}
