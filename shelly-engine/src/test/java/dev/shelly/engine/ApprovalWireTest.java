package dev.shelly.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.agent.Answer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The requests a provider gets after a paused session is resumed in another engine: every tool
 * call of the paused turn is answered once, in call order, in each provider's own format.
 */
@Timeout(60)
class ApprovalWireTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @TempDir
    Path dir;

    private Path config(String kind, String base) throws Exception {
        Path shelly = Files.createDirectories(dir.resolve(".shelly"));
        Files.writeString(shelly.resolve("config.yaml"), """
                providers:
                  - name: m
                    kind: %s
                    model: test-model
                    base_url: "%s"
                    api_key: "k-test"
                    retry: { max_attempts: 1 }
                agents:
                  - name: lead
                    description: Leads
                    toolboxes: [files]
                """.formatted(kind, base));
        return shelly;
    }

    private Engine engine(Path shelly) {
        return Engine.builder().dir(new ShellyDir(shelly)).environment(Map.<String, String>of()::get)
                .toolbox("files", ApprovalEngines.files(dir.resolve("tools.log")))
                .toolPolicy("lead", ApprovalEngines.ASK_WRITES).build();
    }

    private static MockResponse json(String body) {
        return new MockResponse.Builder().addHeader("Content-Type", "application/json").body(body).build();
    }

    private JsonNode pauseResumeAndTakeTheSecondRequest(MockWebServer server, Path shelly) throws Exception {
        try (Engine one = engine(shelly); Session s = one.newSession("w")) {
            assertThat(s.send("x").pending()).extracting(p -> p.id()).containsExactly("t1");
        }
        try (Engine two = engine(shelly); Session s = two.resume("w")) {
            s.answer("t1", Answer.deny("not now"));
            assertThat(s.proceed().text()).isEqualTo("Done.");
        }
        RecordedRequest first = server.takeRequest(5, TimeUnit.SECONDS);
        assertThat(first).isNotNull();
        RecordedRequest second = server.takeRequest(5, TimeUnit.SECONDS);
        assertThat(second).isNotNull();
        assertThat(server.getRequestCount()).isEqualTo(2);
        return JSON.readTree(second.getBody().utf8());
    }

    @Test
    void openAiGetsOneToolMessagePerCallInCallOrder() throws Exception {
        try (MockWebServer server = new MockWebServer()) {
            server.start();
            server.enqueue(json("""
                    {"id":"c-1","object":"chat.completion","created":1,"model":"test-model",
                     "choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,
                       "tool_calls":[
                        {"id":"t1","type":"function","function":{"name":"fs_write","arguments":"{\\"file\\":\\"a\\",\\"text\\":\\"x\\"}"}},
                        {"id":"t2","type":"function","function":{"name":"fs_read","arguments":"{\\"file\\":\\"a\\"}"}}]}}],
                     "usage":{"prompt_tokens":5,"completion_tokens":5,"total_tokens":10}}"""));
            server.enqueue(json("""
                    {"id":"c-2","object":"chat.completion","created":2,"model":"test-model",
                     "choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"Done."}}],
                     "usage":{"prompt_tokens":9,"completion_tokens":1,"total_tokens":10}}"""));

            JsonNode body = pauseResumeAndTakeTheSecondRequest(server, config("openai", server.url("/v1").toString()));

            JsonNode messages = body.get("messages");
            assertThat(messages).hasSize(5);
            assertThat(messages.get(1).toString()).isEqualTo("{\"role\":\"user\",\"content\":\"x\"}");
            assertThat(messages.get(2).get("tool_calls").toString()).isEqualTo(
                    "[{\"id\":\"t1\",\"type\":\"function\",\"function\":{\"name\":\"fs_write\",\"arguments\":"
                            + "\"{\\\"file\\\":\\\"a\\\",\\\"text\\\":\\\"x\\\"}\"}},"
                            + "{\"id\":\"t2\",\"type\":\"function\",\"function\":{\"name\":\"fs_read\",\"arguments\":"
                            + "\"{\\\"file\\\":\\\"a\\\"}\"}}]");
            assertThat(messages.get(3).toString()).isEqualTo(
                    "{\"role\":\"tool\",\"tool_call_id\":\"t1\",\"content\":\"tool 'fs_write' was not run: not now\"}");
            assertThat(messages.get(4).toString()).isEqualTo(
                    "{\"role\":\"tool\",\"tool_call_id\":\"t2\",\"content\":\"read a\"}");
        }
    }

    @Test
    void anthropicGetsOneUserTurnOfToolResultsInCallOrder() throws Exception {
        try (MockWebServer server = new MockWebServer()) {
            server.start();
            server.enqueue(json("""
                    {"id":"msg_1","type":"message","role":"assistant","model":"test-model","stop_reason":"tool_use",
                     "content":[
                      {"type":"tool_use","id":"t1","name":"fs_write","input":{"file":"a","text":"x"}},
                      {"type":"tool_use","id":"t2","name":"fs_read","input":{"file":"a"}}],
                     "usage":{"input_tokens":5,"output_tokens":5}}"""));
            server.enqueue(json("""
                    {"id":"msg_2","type":"message","role":"assistant","model":"test-model","stop_reason":"end_turn",
                     "content":[{"type":"text","text":"Done."}],"usage":{"input_tokens":9,"output_tokens":1}}"""));

            JsonNode body = pauseResumeAndTakeTheSecondRequest(server, config("anthropic", server.url("/").toString()));

            JsonNode messages = body.get("messages");
            assertThat(messages).hasSize(3);
            assertThat(messages.get(1).get("role").asString()).isEqualTo("assistant");
            assertThat(messages.get(1).get("content").toString()).isEqualTo(
                    "[{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"fs_write\",\"input\":{\"file\":\"a\",\"text\":\"x\"}},"
                            + "{\"type\":\"tool_use\",\"id\":\"t2\",\"name\":\"fs_read\",\"input\":{\"file\":\"a\"}}]");
            assertThat(messages.get(2).toString()).isEqualTo("{\"role\":\"user\",\"content\":["
                    + "{\"type\":\"tool_result\",\"tool_use_id\":\"t1\",\"content\":\"tool 'fs_write' was not run: not now\","
                    + "\"is_error\":true},"
                    + "{\"type\":\"tool_result\",\"tool_use_id\":\"t2\",\"content\":\"read a\","
                    + "\"cache_control\":{\"type\":\"ephemeral\"}}]}");
        }
    }
}
