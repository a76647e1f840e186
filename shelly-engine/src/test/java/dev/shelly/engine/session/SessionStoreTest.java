package dev.shelly.engine.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.chats.Image;
import dev.shelly.chats.Message;
import dev.shelly.chats.Part;
import dev.shelly.chats.Role;
import dev.shelly.chats.ShellyException;
import dev.shelly.chats.Text;
import dev.shelly.chats.Thinking;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import dev.shelly.modeladapter.ReplyMetadata;
import dev.shelly.modeladapter.StopReason;
import dev.shelly.modeladapter.Usage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

class SessionStoreTest {

    record Citation(String source) implements Part {
        @Override
        public String kind() {
            return "citation";
        }
    }

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private static List<Message> conversation() {
        return List.of(
                Message.system("You are terse."),
                Message.of("user", Role.USER, new Text("Look: "), Image.ofBase64("iVBORw0KGgo=", "image/png"),
                        Image.ofUrl("https://example.com/cat.jpg")),
                Message.of("assistant", Role.ASSISTANT, Thinking.of("Need the weather.", "sig-123"),
                                Thinking.redacted("opaque-data"), new Text("Checking."),
                                new ToolCall("call_1", "get_weather", "{\"city\":\"Paris\"}"),
                                new ToolCall("call_2", "get_time", "{}"))
                        .withMeta(ReplyMetadata.USAGE, new Usage(120, 30, 1000, 5))
                        .withMeta(ReplyMetadata.STOP_REASON, StopReason.TOOL_USE)
                        .withMeta("model", "claude-x")
                        .withMeta("latency_ms", 412L)
                        .withMeta("tags", List.of("a", "b"))
                        .withMeta("nested", Map.of("k", true)),
                Message.of("tools", Role.TOOL, ToolResult.of("call_1", "18C"),
                        new ToolResult("call_2", List.of(new Text("no clock"), Image.ofUrl("https://x/y.png")), true)),
                Message.of("assistant", Role.ASSISTANT, new Text("See "), new Citation("book")));
    }

    @Test
    void savesAndLoadsEveryPartAndMetadata(@TempDir Path dir) {
        SessionStore store = new SessionStore(dir.resolve("sessions"), JSON);
        Instant t0 = Instant.parse("2026-11-22T10:00:00Z");
        store.save(new SessionRecord("s1", "lead", t0, t0.plusSeconds(5), conversation()));
        SessionRecord loaded = store.load("s1");
        assertThat(loaded.id()).isEqualTo("s1");
        assertThat(loaded.entryAgent()).isEqualTo("lead");
        assertThat(loaded.created()).isEqualTo(t0);
        assertThat(loaded.updated()).isEqualTo(t0.plusSeconds(5));
        List<Message> expected = conversation();
        assertThat(loaded.messages()).hasSize(expected.size());
        for (int i = 0; i < 4; i++) {
            assertThat(loaded.messages().get(i).parts()).as("message %d", i).isEqualTo(expected.get(i).parts());
            assertThat(loaded.messages().get(i).sender()).isEqualTo(expected.get(i).sender());
            assertThat(loaded.messages().get(i).role()).isEqualTo(expected.get(i).role());
        }
        Message reply = loaded.messages().get(2);
        assertThat(ReplyMetadata.usage(reply)).contains(new Usage(120, 30, 1000, 5));
        assertThat(ReplyMetadata.stopReason(reply)).contains(StopReason.TOOL_USE);
        assertThat(reply.meta("model")).contains("claude-x");
        assertThat(reply.meta("latency_ms")).contains(412);
        assertThat(reply.meta("tags")).contains(List.of("a", "b"));
        assertThat(reply.meta("nested")).contains(Map.of("k", true));
        assertThat(loaded.messages().get(4).parts())
                .containsExactly(new Text("See "), new OpaquePart("citation", "Citation[source=book]"));
        assertThat(store.ids()).containsExactly("s1");
    }

    @Test
    void aLeftoverTemporaryFileIsNeverASession(@TempDir Path dir) throws Exception {
        SessionStore store = new SessionStore(dir, JSON);
        Instant t = Instant.parse("2026-11-22T10:00:00Z");
        store.save(new SessionRecord("s1", "a", t, t, List.of(Message.user("first"))));
        Files.writeString(dir.resolve(".s1-123.tmp"), "{\"id\":\"s1\",\"mess");
        store.save(new SessionRecord("s1", "a", t, t, List.of(Message.user("first"), Message.user("second"))));
        assertThat(store.ids()).containsExactly("s1");
        assertThat(store.load("s1").messages()).extracting(Message::text).containsExactly("first", "second");
        try (var files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString()).sorted()).containsExactly(".s1-123.tmp", "s1.json");
        }
    }

    @Test
    void unknownIdsListTheSavedOnes(@TempDir Path dir) {
        SessionStore store = new SessionStore(dir, JSON);
        assertThatThrownBy(() -> store.load("nope"))
                .isInstanceOf(ShellyException.class)
                .hasMessage("no saved session 'nope' in " + dir + "; there are none");
        Instant t = Instant.parse("2026-11-22T10:00:00Z");
        store.save(new SessionRecord("b", "a", t, t, List.of()));
        store.save(new SessionRecord("a", "a", t, t, List.of()));
        assertThatThrownBy(() -> store.load("c")).hasMessage("no saved session 'c' in " + dir + "; saved sessions: a, b");
        assertThatThrownBy(() -> store.load("../etc/passwd"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("invalid session id '../etc/passwd'");
    }

    @Test
    void aCorruptFileIsNamed(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("bad.json"), "{\"id\":\"bad\",\"entry_agent\":\"a\",\"created\":\"2026-11-22T10:00:00Z\","
                + "\"updated\":\"2026-11-22T10:00:00Z\",\"messages\":[{\"sender\":\"u\",\"role\":\"wizard\",\"parts\":[]}]}");
        assertThatThrownBy(() -> new SessionStore(dir, JSON).load("bad"))
                .isInstanceOf(ShellyException.class)
                .hasMessage("session file " + dir.resolve("bad.json") + " is not a valid session: " + dir.resolve("bad.json")
                        + ": messages[0]: unknown role 'wizard'; expected one of system, user, assistant, tool");
        Files.writeString(dir.resolve("cut.json"), "{\"id\":\"cut\",\"mess");
        assertThatThrownBy(() -> new SessionStore(dir, JSON).load("cut"))
                .hasMessageStartingWith("session file " + dir.resolve("cut.json") + " is not a valid session: ");
    }
}
