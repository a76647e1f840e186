package dev.shelly.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.agent.PendingCall;
import dev.shelly.storage.spi.FileSessionStore;
import dev.shelly.storage.testing.CrashingStore;
import dev.shelly.tools.ToolBox;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
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
import tools.jackson.databind.node.ObjectNode;

/**
 * The request a provider gets after a turn cut short by a crash is taken up in another engine:
 * the recorded reply is not asked for again, and the next request answers every call of it once,
 * in call order, in each provider's own format (OpenAI chat completions and Anthropic messages
 * both refuse a request with a call left unanswered).
 */
@Timeout(60)
class ResumeWireTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String UNKNOWN = "the process stopped while tool 'fs_write' was running (call t1); whether it "
            + "took effect is unknown";

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

    private Engine engine(Path shelly, CrashingStore store) {
        // fs_read only reads: a read cut short runs again by itself, so only the write is asked about.
        ToolBox files = ApprovalEngines.files(dir.resolve("tools.log"));
        files.replaceAll(List.of(files.get("fs_write").orElseThrow(), files.get("fs_read").orElseThrow().idempotent(true)));
        Engine.Builder b = Engine.builder().dir(new ShellyDir(shelly)).environment(Map.<String, String>of()::get)
                .toolbox("files", files);
        return (store == null ? b : b.sessionStore(store)).build();
    }

    private static MockResponse json(String body) {
        return new MockResponse.Builder().addHeader("Content-Type", "application/json").body(body).build();
    }

    /**
     * The second request of the turn {@code x} run without a crash, its answer to {@code t1} put
     * as a resumed turn's reads: what the resumed turn must send.
     */
    private JsonNode uninterrupted(MockWebServer server, Path shelly, String t1) throws Exception {
        try (Engine one = engine(shelly, null); Session s = one.newSession("w")) {
            assertThat(s.send("x").text()).isEqualTo("Done.");
        }
        server.takeRequest(5, TimeUnit.SECONDS);
        String body = server.takeRequest(5, TimeUnit.SECONDS).getBody().utf8();
        assertThat(body).contains(t1);
        forget(dir.resolve("tools.log"));
        return JSON.readTree(body.replace(t1, UNKNOWN));
    }

    private static void forget(Path file) throws Exception {
        Files.deleteIfExists(file);
    }

    /** Writes, then dies before the write is recorded as finished; resumes elsewhere; returns the second request. */
    private JsonNode crashResumeAndTakeTheSecondRequest(MockWebServer server, Path shelly) throws Exception {
        Path sessions = shelly.resolve("sessions");
        forget(sessions.resolve("w.json"));
        CrashingStore dying = new CrashingStore(FileSessionStore.in(sessions))
                .crashBefore(e -> e.startsWith("{\"type\":\"finished\"") && e.contains("\"call\":\"t1\""));
        try (Engine one = engine(shelly, dying); Session s = one.newSession("w")) {
            assertThatThrownBy(() -> s.send("x")).isNotNull();
        }
        try (Engine two = engine(shelly, null); Session s = two.resume("w")) {
            assertThat(s.pending()).extracting(PendingCall::id).containsExactly("t1");
            assertThat(s.proceed().text()).isEqualTo("Done.");
        }
        assertThat(ApprovalEngines.log(dir.resolve("tools.log"))).filteredOn(l -> l.contains("fs_write")).hasSize(1);
        int before = server.getRequestCount() - 2;
        RecordedRequest first = server.takeRequest(5, TimeUnit.SECONDS);
        assertThat(first).isNotNull();
        RecordedRequest second = server.takeRequest(5, TimeUnit.SECONDS);
        assertThat(second).isNotNull();
        assertThat(server.getRequestCount() - before).as("the recorded reply is not asked for again").isEqualTo(2);
        return JSON.readTree(second.getBody().utf8());
    }

    @Test
    void openAiGetsOneToolMessagePerCallInCallOrder() throws Exception {
        try (MockWebServer server = new MockWebServer()) {
            server.start();
            for (int run = 0; run < 2; run++) {
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
            }
            Path shelly = config("openai", server.url("/v1").toString());
            JsonNode expected = uninterrupted(server, shelly, "wrote x");

            JsonNode body = crashResumeAndTakeTheSecondRequest(server, shelly);
            assertThat(body).as("the request of the uninterrupted turn, its t1 answer aside").isEqualTo(expected);

            JsonNode messages = body.get("messages");
            assertThat(messages).hasSize(5);
            assertThat(messages.get(0).get("role").asString()).isEqualTo("system");
            assertThat(messages.get(1).toString()).isEqualTo("{\"role\":\"user\",\"content\":\"x\"}");
            assertThat(messages.get(2).get("tool_calls").toString()).isEqualTo(
                    "[{\"id\":\"t1\",\"type\":\"function\",\"function\":{\"name\":\"fs_write\",\"arguments\":"
                            + "\"{\\\"file\\\":\\\"a\\\",\\\"text\\\":\\\"x\\\"}\"}},"
                            + "{\"id\":\"t2\",\"type\":\"function\",\"function\":{\"name\":\"fs_read\",\"arguments\":"
                            + "\"{\\\"file\\\":\\\"a\\\"}\"}}]");
            assertThat(messages.get(3).toString()).isEqualTo(
                    "{\"role\":\"tool\",\"tool_call_id\":\"t1\",\"content\":\"" + UNKNOWN + "\"}");
            assertThat(messages.get(4).toString()).isEqualTo(
                    "{\"role\":\"tool\",\"tool_call_id\":\"t2\",\"content\":\"read a\"}");
        }
    }

    @Test
    void anthropicGetsOneUserTurnOfToolResultsInCallOrder() throws Exception {
        try (MockWebServer server = new MockWebServer()) {
            server.start();
            for (int run = 0; run < 2; run++) {
                server.enqueue(json("""
                        {"id":"msg_1","type":"message","role":"assistant","model":"test-model","stop_reason":"tool_use",
                         "content":[
                          {"type":"tool_use","id":"t1","name":"fs_write","input":{"file":"a","text":"x"}},
                          {"type":"tool_use","id":"t2","name":"fs_read","input":{"file":"a"}}],
                         "usage":{"input_tokens":5,"output_tokens":5}}"""));
                server.enqueue(json("""
                        {"id":"msg_2","type":"message","role":"assistant","model":"test-model","stop_reason":"end_turn",
                         "content":[{"type":"text","text":"Done."}],"usage":{"input_tokens":9,"output_tokens":1}}"""));
            }
            Path shelly = config("anthropic", server.url("/").toString());
            JsonNode expected = uninterrupted(server, shelly, "wrote x");
            ((ObjectNode) expected.at("/messages/2/content/0")).put("is_error", true); // an unknown outcome is an error

            JsonNode body = crashResumeAndTakeTheSecondRequest(server, shelly);
            assertThat(body).as("the request of the uninterrupted turn, its t1 answer aside").isEqualTo(expected);

            JsonNode messages = body.get("messages");
            assertThat(messages).hasSize(3);
            assertThat(messages.get(0).get("role").asString()).isEqualTo("user");
            assertThat(messages.get(1).get("role").asString()).isEqualTo("assistant");
            assertThat(messages.get(1).get("content").toString()).isEqualTo(
                    "[{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"fs_write\",\"input\":{\"file\":\"a\",\"text\":\"x\"}},"
                            + "{\"type\":\"tool_use\",\"id\":\"t2\",\"name\":\"fs_read\",\"input\":{\"file\":\"a\"}}]");
            assertThat(messages.get(2).toString()).isEqualTo("{\"role\":\"user\",\"content\":["
                    + "{\"type\":\"tool_result\",\"tool_use_id\":\"t1\",\"content\":\"" + UNKNOWN + "\",\"is_error\":true},"
                    + "{\"type\":\"tool_result\",\"tool_use_id\":\"t2\",\"content\":\"read a\","
                    + "\"cache_control\":{\"type\":\"ephemeral\"}}]}");
        }
    }
}
