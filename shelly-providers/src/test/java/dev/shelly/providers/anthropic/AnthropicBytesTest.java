package dev.shelly.providers.anthropic;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.modeladapter.Delta;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.provider.spi.StreamDecoder;
import dev.shelly.providers.DecoderFeed;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * An Anthropic stream decoded from each event's bytes (as a virtual thread reads it) gives
 * exactly what it gives from strings: the same deltas in the same order, the same end, the same
 * reply or the same failure, whatever the events hold.
 */
class AnthropicBytesTest {
    private static final String START = "message_start|{\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\","
            + "\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-x\",\"content\":[],\"stop_reason\":null,"
            + "\"usage\":{\"input_tokens\":25,\"output_tokens\":1,\"cache_read_input_tokens\":4}}}";
    private static final String STOP = "message_stop|{\"type\":\"message_stop\"}";

    private static String blockStart(int index, String block) {
        return "content_block_start|{\"type\":\"content_block_start\",\"index\":" + index + ",\"content_block\":" + block + "}";
    }

    private static String delta(int index, String delta) {
        return "content_block_delta|{\"type\":\"content_block_delta\",\"index\":" + index + ",\"delta\":" + delta + "}";
    }

    private static String text(int index, String text) {
        return delta(index, "{\"type\":\"text_delta\",\"text\":" + text + "}");
    }

    private static String blockStop(int index) {
        return "content_block_stop|{\"type\":\"content_block_stop\",\"index\":" + index + "}";
    }

    private static String messageDelta(String stop) {
        return "message_delta|{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"" + stop
                + "\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":15}}";
    }

    static Stream<Arguments> streams() {
        String ping = "ping|{\"type\": \"ping\"}";
        String answer = blockStart(0, "{\"type\":\"tool_use\",\"id\":\"toolu_a\",\"name\":\"final_answer\",\"input\":{}}");
        List<String> json = List.of(START, answer, delta(0, "{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"a\\\":\"}"),
                delta(0, "{\"type\":\"input_json_delta\",\"partial_json\":\"1}\"}"), blockStop(0), messageDelta("tool_use"), STOP);
        return Stream.of(
                // the everyday reply: text in pieces, pings between
                List.of(START, blockStart(0, "{\"type\":\"text\",\"text\":\"\"}"), ping, text(0, "\"Hel\""),
                        text(0, "\"lo \\\"w\\u00f6rld\\\"\\n\""), ping, text(0, "\"\u00e9\u4e16\ud83d\ude00\""), blockStop(0),
                        messageDelta("end_turn"), STOP),
                // thinking with its signature, then a tool call with its input in pieces
                List.of(START, blockStart(0, "{\"type\":\"thinking\",\"thinking\":\"\",\"signature\":\"\"}"),
                        delta(0, "{\"type\":\"thinking_delta\",\"thinking\":\"Let me think\"}"),
                        delta(0, "{\"type\":\"signature_delta\",\"signature\":\"EqQBCgIYAh\"}"), blockStop(0),
                        blockStart(1, "{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"get_weather\",\"input\":{}}"),
                        delta(1, "{\"type\":\"input_json_delta\",\"partial_json\":\"\"}"),
                        delta(1, "{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"city\\\": \\\"Par\"}"),
                        delta(1, "{\"type\":\"input_json_delta\",\"partial_json\":\"is\\\"}\"}"), blockStop(1),
                        messageDelta("tool_use"), STOP),
                // fields twice: the last one counts; fields in any order; unknown fields
                List.of(START, blockStart(0, "{\"type\":\"text\",\"text\":\"\"}"),
                        "content_block_delta|{\"index\":0,\"delta\":{\"text\":\"a\",\"type\":\"text_delta\"},\"type\":\"content_block_delta\"}",
                        "content_block_delta|{\"type\":\"content_block_delta\",\"index\":5,\"index\":0,"
                                + "\"delta\":{\"type\":\"text_delta\",\"text\":\"b\",\"text\":\"c\",\"x\":[{\"text\":\"no\"}]}}",
                        "content_block_delta|{\"type\":\"content_block_delta\",\"index\":0,"
                                + "\"delta\":{\"type\":\"text_delta\",\"text\":\"d\"},\"delta\":{\"type\":\"text_delta\"}}",
                        blockStop(0), messageDelta("end_turn"), STOP),
                // shapes the decoder reads its own way
                List.of(START, blockStart(0, "{\"type\":\"text\",\"text\":\"\"}"), text(0, "5"), text(0, "null"),
                        delta(0, "{\"type\":\"citations_delta\",\"citation\":{\"cited_text\":\"x\"}}"), delta(0, "{\"text\":\"untyped\"}"),
                        delta(0, "null"), delta(0, "\"x\""), delta(0, "[]"),
                        "content_block_delta|{\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"by its name\"}}",
                        "message|{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"unnamed\"}}",
                        "content_block_delta|{\"type\":\"content_block_delta\",\"index\":0.0,\"delta\":{\"type\":\"text_delta\",\"text\":\"f\"}}",
                        "content_block_delta|  {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"sp\"}} ",
                        blockStart(1, "{\"type\":\"server_tool_use\",\"id\":\"s\",\"name\":\"web_search\"}"), text(1, "\"ignored\""),
                        blockStop(0), "unknown_event|{\"type\":\"unknown_event\",\"index\":0}", messageDelta("end_turn"), STOP),
                // a delta for a block that never started; an index too large for an int
                List.of(START, text(3, "\"a\""), STOP),
                List.of(START, blockStart(0, "{\"type\":\"text\",\"text\":\"\"}"), text(0, "\"a\""),
                        "content_block_delta|{\"type\":\"content_block_delta\",\"index\":9999999999,\"delta\":{\"type\":\"text_delta\",\"text\":\"b\"}}",
                        STOP),
                // data that is not one object, then the stream goes on
                List.of(START, blockStart(0, "{\"type\":\"text\",\"text\":\"\"}"), text(0, "\"a\"") + " x", text(0, "\"b\""), STOP),
                List.of(START, blockStart(0, "{\"type\":\"text\",\"text\":\"\"}"), text(0, "\"a\"") + text(0, "\"b\"").substring(20), STOP),
                List.of(START, blockStart(0, "{\"type\":\"text\",\"text\":\"\"}"),
                        "content_block_delta|{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{", text(0, "\"b\""), STOP),
                List.of(START, blockStart(0, "{\"type\":\"text\",\"text\":\"\"}"), "content_block_delta|[1]", STOP),
                List.of(START, blockStart(0, "{\"type\":\"text\",\"text\":\"\"}"), text(0, "\"\\ud83d\""), STOP),
                // errors inside the stream, a stream cut short
                List.of(START, blockStart(0, "{\"type\":\"text\",\"text\":\"\"}"), text(0, "\"a\""),
                        "error|{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}"),
                List.of(START, blockStart(0, "{\"type\":\"text\",\"text\":\"\"}"), text(0, "\"a\"")),
                List.of(text(0, "\"a\"")),
                // a JSON reply through the forced answer tool (its input is the reply's text in tool mode)
                json).flatMap(s -> Stream.of(Arguments.of(s, false), Arguments.of(s, true)));
    }

    @ParameterizedTest
    @MethodSource("streams")
    void bytesAndStringsGiveTheSameDeltasEndAndReply(List<String> stream, boolean toolMode) {
        assertThat(decode(stream, toolMode, true)).isEqualTo(decode(stream, toolMode, false));
    }

    @Test
    void theEverydayDeltasAreReadWithoutATree() {
        DeltaReader reader = new DeltaReader();
        for (String delta : List.of("{\"type\":\"text_delta\",\"text\":\"Hel\"}", "{\"type\":\"input_json_delta\",\"partial_json\":\"{\"}",
                "{\"type\":\"thinking_delta\",\"thinking\":\"hm\"}", "{\"type\":\"signature_delta\",\"signature\":\"s\"}")) {
            byte[] bytes = data(delta(2, delta)).getBytes(StandardCharsets.UTF_8);
            assertThat(reader.read(bytes, 0, bytes.length)).as(delta).isTrue();
            assertThat(reader.index).isEqualTo(2);
        }
        assertThat(reader.deltaType).isEqualTo("signature_delta");
        assertThat(reader.signature).isEqualTo("s");
        assertThat(reader.text).isNull();
        for (String declined : List.of(data(START), data(STOP), data(blockStop(0)), "{\"type\":\"ping\"}", "[1]", "{\"a\":1} x",
                "{\"a\":", data(delta(0, "{\"type\":\"citations_delta\"}")), data(delta(0, "null")),
                "{\"type\":\"content_block_delta\",\"delta\":{\"type\":\"text_delta\",\"text\":\"no index\"}}")) {
            byte[] bytes = declined.getBytes(StandardCharsets.UTF_8);
            assertThat(reader.read(bytes, 0, bytes.length)).as(declined).isFalse();
        }
        byte[] after = data(text(0, "\"again\"")).getBytes(StandardCharsets.UTF_8);
        assertThat(reader.read(after, 0, after.length)).as("a new parser after a declined event").isTrue();
        assertThat(reader.text).isEqualTo("again");
    }

    private static String data(String event) {
        return event.substring(event.indexOf('|') + 1);
    }

    /** Everything a decoder gave for a stream: its deltas, each event's end, and the reply or failure. */
    private static List<String> decode(List<String> stream, boolean toolMode, boolean bytes) {
        List<String> seen = new ArrayList<>();
        StreamDecoder decoder = new AnthropicStreamDecoder(new AnthropicReply("anthropic"),
                (Delta d) -> seen.add(d.toString()), toolMode);
        DecoderFeed feed = new DecoderFeed(decoder, bytes);
        try {
            for (String event : stream) {
                String name = event.substring(0, event.indexOf('|'));
                String data = data(event);
                seen.add("end=" + feed.feed(name, data));
            }
            ModelResponse r = decoder.finish();
            seen.add(DecoderFeed.describe(r));
        } catch (RuntimeException e) {
            seen.add(e.getClass().getName() + ": " + e.getMessage());
        }
        return seen;
    }
}
