package dev.shelly.providers.openai;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.chats.Message;
import dev.shelly.modeladapter.Delta;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.provider.spi.StreamDecoder;
import dev.shelly.providers.DecoderFeed;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A Chat Completions stream decoded from each event's bytes (as a virtual thread reads it) gives
 * exactly what it gives from strings: the same deltas in the same order, the same end, the same
 * reply or the same failure, whatever the chunks hold.
 */
class ChatCompletionsBytesTest {
    private static final String HEAD = "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,"
            + "\"model\":\"gpt-x\",\"system_fingerprint\":\"fp_1\",\"choices\":[";

    private static String text(String content) {
        return HEAD + "{\"index\":0,\"delta\":{\"content\":" + content + "},\"logprobs\":null,\"finish_reason\":null}]}";
    }

    private static String choice(String choice) {
        return HEAD + choice + "]}";
    }

    static Stream<List<String>> streams() {
        String usage = HEAD + "],\"usage\":{\"prompt_tokens\":20,\"completion_tokens\":9,\"total_tokens\":29,"
                + "\"prompt_tokens_details\":{\"cached_tokens\":5},\"completion_tokens_details\":{\"reasoning_tokens\":2}}}";
        String finish = choice("{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}");
        return Stream.of(
                // the everyday reply: a role chunk, text, the finish, the usage
                List.of(choice("{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\",\"refusal\":null},"
                        + "\"finish_reason\":null}"), text("\"Hel\""), text("\"lo \\\"w\\u00f6rld\\\"\\n\""),
                        text("\"\u00e9\u4e16\ud83d\ude00\""), finish, usage, "[DONE]"),
                // tool calls assembled by index, arguments in pieces
                List.of(choice("{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":null,\"tool_calls\":["
                        + "{\"index\":0,\"id\":\"call_a\",\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"arguments\":\"\"}}]}}"),
                        choice("{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"ci\"}}]}}"),
                        choice("{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"ty\\\":\\\"Paris\\\"}\"}}]}}"),
                        choice("{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"call_b\",\"function\":{\"name\":\"get_time\",\"arguments\":\"{}\"}}]}}"),
                        choice("{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}"), usage, "[DONE]"),
                // parallel calls at index 0 with distinct ids (Ollama), an empty id, a nameless call
                List.of(choice("{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"a\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]}}"),
                        choice("{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"b\",\"function\":{\"name\":\"g\",\"arguments\":null}}]}}"),
                        choice("{\"index\":0,\"delta\":{\"tool_calls\":[{\"id\":\"\",\"function\":{\"name\":\"\",\"arguments\":\"x\"}}]}}"),
                        choice("{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":\"2\",\"function\":\"none\"}]}}"),
                        finish, "[DONE]"),
                // reasoning (xAI, DeepSeek; vLLM), a refusal
                List.of(choice("{\"index\":0,\"delta\":{\"reasoning_content\":\"think\",\"reasoning\":\"other\"}}"),
                        choice("{\"index\":0,\"delta\":{\"reasoning\":\"more\"}}"),
                        choice("{\"index\":0,\"delta\":{\"refusal\":\"I can't\"}}"), finish, " [DONE] "),
                // fields twice: the last one counts
                List.of(HEAD + "{\"index\":0,\"delta\":{\"content\":\"a\"}}],\"choices\":[{\"index\":0,\"delta\":{\"content\":\"b\"}}]}",
                        choice("{\"index\":0,\"delta\":{\"content\":\"c\",\"content\":null}}"),
                        choice("{\"index\":0,\"delta\":{\"content\":\"d\"},\"delta\":{\"refusal\":\"e\"}}"),
                        choice("{\"index\":0,\"delta\":{\"content\":\"f\"},\"index\":1}"),
                        HEAD + "],\"usage\":{\"prompt_tokens\":1},\"usage\":{\"completion_tokens\":2,"
                                + "\"prompt_tokens_details\":{\"cached_tokens\":1},\"prompt_tokens_details\":{}}}",
                        "{\"id\":\"late\",\"id\":\"later\",\"model\":7,\"choices\":[]}", finish, "[DONE]"),
                // types the decoder reads its own way
                List.of(choice("{\"index\":\"0\",\"delta\":{\"content\":\"string index\"}}"),
                        choice("{\"index\":1,\"delta\":{\"content\":\"other choice\"}}"),
                        choice("{\"index\":0.0,\"delta\":{\"content\":\"float index\"}}"),
                        choice("{\"index\":0,\"delta\":null}"), choice("{\"index\":0,\"delta\":\"x\"}"),
                        choice("{\"index\":0,\"delta\":{\"content\":5,\"tool_calls\":{}}}"),
                        choice("{\"index\":0,\"delta\":{\"content\":\"a\"}},{\"index\":0,\"delta\":{\"content\":\"b\"}}"),
                        choice("7"), HEAD.replace("\"choices\":[", "\"choices\":{}, \"x\":[") + "]}",
                        choice("{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"j\",\"function\":{\"name\":\"h\","
                                + "\"arguments\":{\"a\":[1,2]}}}]}}"),
                        choice("{\"index\":0,\"delta\":{\"tool_calls\":[3]}}"),
                        choice("{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1.5,\"id\":\"k\",\"function\":{\"name\":\"h\"}}]}}"),
                        choice("{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":9999999999,\"id\":\"m\",\"function\":{\"name\":\"h\"}}]}}"),
                        HEAD + "],\"usage\":{\"prompt_tokens\":1.5,\"completion_tokens\":-3,\"total_tokens\":\"9\"}}",
                        HEAD + "],\"usage\":{\"prompt_tokens\":99999999999999999999}}",
                        HEAD + "],\"usage\":null}", HEAD + "],\"usage\":{\"prompt_tokens_details\":null,"
                                + "\"completion_tokens_details\":[1]}}",
                        "  \t" + text("\"spaced\"") + " \r", "\u2003" + text("\"wide space\""), "", "  ",
                        finish, "\u2003[DONE]"),
                // a chunk that is not one object, then the stream goes on
                List.of(text("\"a\""), "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"b\"}}]} x", text("\"c\""), "[DONE]"),
                List.of(text("\"a\""), "{\"choices\":[]}{\"choices\":[]}", "[DONE]"),
                List.of(text("\"a\""), "[1,2]", "[DONE]"),
                List.of(text("\"a\""), "{\"choices\":[{\"index\":0,", "[DONE]"),
                List.of("{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\\ud83d\"}}]}", "[DONE]"),
                // errors inside the stream
                List.of(text("\"a\""), "{\"error\":{\"message\":\"The server had an error\",\"type\":\"server_error\"}}"),
                List.of(text("\"a\""), "{\"error\":null,\"choices\":[{\"index\":0,\"delta\":{\"content\":\"b\"}}]}", "[DONE]"),
                List.of("event: error", "{\"message\":\"overloaded\",\"code\":529}"),
                // no chunk at all
                List.of("[DONE]"));
    }

    @ParameterizedTest
    @MethodSource("streams")
    void bytesAndStringsGiveTheSameDeltasEndAndReply(List<String> stream) {
        assertThat(decode(stream, true)).isEqualTo(decode(stream, false));
    }

    @Test
    void theEverydayChunksAreReadWithoutATree() {
        ChunkReader reader = new ChunkReader();
        for (String chunk : List.of(text("\"Hel\""), choice("{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}"),
                choice("{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c\",\"function\":{\"name\":\"f\",\"arguments\":\"{\"}}]}}"),
                choice("{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}"),
                HEAD + "],\"usage\":{\"prompt_tokens\":20,\"completion_tokens\":9,\"total_tokens\":29}}")) {
            byte[] bytes = chunk.getBytes(StandardCharsets.UTF_8);
            assertThat(reader.read(bytes, 0, bytes.length, true, true)).as(chunk).isTrue();
        }
        assertThat(reader.usage).isTrue();
        assertThat(reader.totalTokens).isEqualTo(29);
        for (String declined : List.of("{\"error\":{}}", "[1]", "{\"a\":1} x", "{\"a\":", choice("{\"index\":\"0\"}"),
                choice("{\"index\":0,\"delta\":{\"tool_calls\":[{\"function\":{\"arguments\":{}}}]}}"))) {
            byte[] bytes = declined.getBytes(StandardCharsets.UTF_8);
            assertThat(reader.read(bytes, 0, bytes.length, true, true)).as(declined).isFalse();
        }
        byte[] after = text("\"again\"").getBytes(StandardCharsets.UTF_8);
        assertThat(reader.read(after, 0, after.length, false, false)).as("a new parser after a declined chunk").isTrue();
        assertThat(reader.choice.content).isEqualTo("again");
        assertThat(reader.id).as("not read when not asked for").isNull();
    }

    /** Everything a decoder gave for a stream: its deltas, each event's end, and the reply or failure. */
    private static List<String> decode(List<String> stream, boolean bytes) {
        ChatCompletionsFormat format = (ChatCompletionsFormat) OpenAiCompleter.builder().model("gpt-x").apiKey("sk-x")
                .environment(name -> null).wireFormat();
        List<String> seen = new ArrayList<>();
        StreamDecoder decoder = format.decoder(ModelRequest.of(List.of(Message.user("hi"))),
                (Delta d) -> seen.add(d.toString()));
        DecoderFeed feed = new DecoderFeed(decoder, bytes);
        String name = "message";
        try {
            for (String data : stream) {
                if (data.startsWith("event: ")) {
                    name = data.substring(7);
                    continue;
                }
                seen.add("end=" + feed.feed(name, data));
                name = "message";
            }
            ModelResponse r = decoder.finish();
            seen.add(DecoderFeed.describe(r));
        } catch (RuntimeException e) {
            seen.add(e.getClass().getName() + ": " + e.getMessage());
        }
        return seen;
    }
}
