package dev.shelly.providers.anthropic;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolDefinition;
import dev.shelly.chats.ToolResult;
import dev.shelly.modeladapter.ModelOptions;
import dev.shelly.modeladapter.ModelOptions.CacheHints;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.RetryPolicy;
import dev.shelly.modeladapter.Usage;
import java.util.List;
import mockwebserver3.MockWebServer;
import mockwebserver3.junit5.StartStop;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * How much of a ten-turn tool-using session's input the breakpoints let it read from the cache,
 * against {@link AnthropicCacheFake}. The loop is the one an agent runs: request, append the
 * reply, answer its tool call, request again, until a reply calls no tool.
 */
class PromptCacheShareTest {
    private static final ToolDefinition LOOKUP = new ToolDefinition("lookup", "Look a fact up in the handbook",
            "{\"type\":\"object\",\"properties\":{\"q\":{\"type\":\"integer\"}},\"required\":[\"q\"]}");

    @StartStop
    private final MockWebServer server = new MockWebServer();

    @BeforeEach
    void fake() {
        server.setDispatcher(new AnthropicCacheFake());
    }

    private AnthropicCompleter completer() {
        return AnthropicCompleter.builder().model("claude-sonnet-4-5").apiKey("sk-ant-test-key-0123456789")
                .baseUrl(server.url("/").toString()).environment(n -> null).retry(RetryPolicy.none()).build();
    }

    /** A system prompt of about 5 KB. */
    private static String systemPrompt() {
        StringBuilder sb = new StringBuilder("You are the support desk of a large airline. Follow the handbook.\n");
        for (int i = 1; sb.length() < 5_000; i++) {
            sb.append("Rule ").append(i).append(": answer politely, cite the handbook section, and never promise a "
                    + "refund the fare rules do not allow.\n");
        }
        return sb.toString();
    }

    private Usage session(CacheHints cache) {
        AnthropicCompleter model = completer();
        Chat chat = Chat.of(Message.system(systemPrompt()));
        ModelOptions options = ModelOptions.builder().cache(cache).build();
        Usage total = Usage.ZERO;
        for (int turn = 1; turn <= 10; turn++) {
            chat.append(Message.user("Question " + turn + ": what does the handbook say about change fees on route "
                    + turn + "?"));
            for (int step = 0; step < 5; step++) {
                ModelResponse r = model.complete(new ModelRequest(chat.messages(), List.of(LOOKUP), options, chat.id()));
                total = total.plus(r.usage());
                chat.append(r.message());
                List<ToolCall> calls = r.message().toolCalls();
                if (calls.isEmpty()) {
                    break;
                }
                chat.append(Message.of("tools", Role.TOOL, ToolResult.of(calls.getFirst().id(),
                        "Section " + turn + ".4: a change costs 50 EUR before departure.")));
            }
        }
        return total;
    }

    @Test
    void tenTurnsWithOneToolCallEachReadMostOfTheirInputFromTheCache() {
        Usage total = session(CacheHints.ON);
        double share = (double) total.cacheReadTokens() / total.totalInputTokens();
        System.out.printf("10-turn session, prompt caching on: cache-read share %.3f (%d of %d input tokens read, "
                + "%d written, %d uncached) over %d calls%n", share, total.cacheReadTokens(), total.totalInputTokens(),
                total.cacheWriteTokens(), total.inputTokens(), server.getRequestCount());
        assertThat(server.getRequestCount()).isEqualTo(20);
        assertThat(share).isGreaterThanOrEqualTo(0.7);
    }

    @Test
    void withoutHintsNothingIsReadFromTheCache() {
        assertThat(session(null).cacheReadTokens()).isZero();
        assertThat(session(CacheHints.OFF).cacheReadTokens()).isZero();
    }

    private int post(String body) throws Exception {
        try (java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient()) {
            return http.send(java.net.http.HttpRequest.newBuilder(server.url("/v1/messages").uri())
                            .POST(java.net.http.HttpRequest.BodyPublishers.ofString(body)).build(),
                    java.net.http.HttpResponse.BodyHandlers.discarding()).statusCode();
        }
    }

    @Test
    void theFakeRefusesWhatTheApiRefuses() throws Exception {
        assertThat(post("{\"model\":\"m\",\"max_tokens\":10,\"messages\":[{\"role\":\"user\",\"content\":["
                + "{\"type\":\"text\",\"text\":\"a\",\"cache_control\":{\"type\":\"persistent\"}}]}]}")).isEqualTo(400);
        StringBuilder five = new StringBuilder("{\"model\":\"m\",\"max_tokens\":10,\"messages\":[{\"role\":\"user\","
                + "\"content\":[");
        for (int i = 0; i < 5; i++) {
            five.append(i == 0 ? "" : ",").append("{\"type\":\"text\",\"text\":\"").append(i)
                    .append("\",\"cache_control\":{\"type\":\"ephemeral\"}}");
        }
        assertThat(post(five.append("]}]}").toString())).isEqualTo(400);
        ModelResponse ok = completer().complete(ModelRequest.builder().message(Message.user("x"))
                .cache(new CacheHints(true, true, java.time.Duration.ofHours(1))).build());
        assertThat(ok.message().text()).as("the client's own breakpoints are accepted").isEqualTo("Done.");
    }
}
