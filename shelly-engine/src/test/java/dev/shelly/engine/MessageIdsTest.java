package dev.shelly.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.chats.Chat;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
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

/**
 * Every message of a session has an id and a creation time: kept in the session's file, the same
 * after a resume in another engine, and never sent to the model.
 */
@Timeout(60)
class MessageIdsTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @TempDir
    Path dir;

    private Engine engine(String base) throws Exception {
        Path shelly = Files.createDirectories(dir.resolve(".shelly"));
        Files.writeString(shelly.resolve("config.yaml"), """
                providers:
                  - name: m
                    kind: openai
                    model: test-model
                    base_url: "%s"
                    api_key: "k-test"
                    retry: { max_attempts: 1 }
                agents:
                  - name: lead
                    description: Leads
                """.formatted(base));
        return Engine.builder().dir(new ShellyDir(shelly)).environment(Map.<String, String>of()::get).build();
    }

    private static MockResponse answer(String text) {
        return new MockResponse.Builder().addHeader("Content-Type", "application/json").body("""
                {"id":"c","object":"chat.completion","created":1,"model":"test-model",
                 "choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"%s"}}],
                 "usage":{"prompt_tokens":5,"completion_tokens":1,"total_tokens":6}}""".formatted(text)).build();
    }

    @Test
    void messagesKeepTheirIdsAndTimesAcrossAResumeAndTheModelNeverSeesThem() throws Exception {
        try (MockWebServer server = new MockWebServer()) {
            server.start();
            server.enqueue(answer("one"));
            server.enqueue(answer("two"));
            String base = server.url("/v1").toString();
            Instant start = Instant.now();
            List<Chat.Entry> first;
            try (Engine engine = engine(base); Session s = engine.newSession("ids")) {
                s.send("hello");
                first = s.chat().entries();
            }
            assertThat(first).extracting(e -> e.message().text()).containsExactly("You are lead. Leads", "hello", "one");
            assertThat(first).extracting(Chat.Entry::id).doesNotHaveDuplicates();
            assertThat(first).extracting(Chat.Entry::created).allMatch(t -> !t.isBefore(start));
            String file = Files.readString(dir.resolve(".shelly/sessions/ids.json"));
            for (Chat.Entry e : first) {
                assertThat(file).contains("\"" + e.id() + "\"", "\"" + e.created() + "\"");
            }

            List<Chat.Entry> second;
            try (Engine engine = engine(base); Session s = engine.resume("ids")) {
                assertThat(s.chat().entries()).as("restored from the file").isEqualTo(first);
                s.send("again");
                second = s.chat().entries();
            }
            assertThat(second.subList(0, 3)).isEqualTo(first);
            assertThat(second).extracting(Chat.Entry::id).doesNotHaveDuplicates().hasSize(5);

            List<String> bodies = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                RecordedRequest request = server.takeRequest(5, TimeUnit.SECONDS);
                assertThat(request).isNotNull();
                bodies.add(request.getBody().utf8());
            }
            JsonNode last = JSON.readTree(bodies.get(1));
            assertThat(last.get("messages")).hasSize(4);
            for (JsonNode m : last.get("messages")) {
                assertThat(m.propertyNames()).as("a message on the wire").containsOnly("role", "content");
            }
            for (Chat.Entry e : second) {
                assertThat(bodies).noneMatch(b -> b.contains(e.id()) || b.contains(e.created().toString()));
            }
        }
    }
}
