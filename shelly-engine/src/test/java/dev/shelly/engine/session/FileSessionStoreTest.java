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
import dev.shelly.modeladapter.Cost;
import dev.shelly.modeladapter.StopReason;
import dev.shelly.modeladapter.Usage;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

class FileSessionStoreTest {

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
                        .withMeta("usage", new Usage(120, 30, 1000, 5))
                        .withMeta("stop_reason", StopReason.TOOL_USE)
                        .withMeta("model", "claude-x")
                        .withMeta("latency_ms", 412L)
                        .withMeta("tags", List.of("a", "b"))
                        .withMeta("nested", Map.of("k", true)),
                Message.of("tools", Role.TOOL, ToolResult.of("call_1", "18C"),
                        new ToolResult("call_2", List.of(new Text("no clock"), Image.ofUrl("https://x/y.png")), true)),
                Message.of("assistant", Role.ASSISTANT, new Text("See "), new Citation("book")));
    }

    private static final Instant T0 = Instant.parse("2026-11-22T10:00:00Z");

    private static SessionRecord record(String id, long version, String... texts) {
        List<Message> messages = new ArrayList<>();
        for (String t : texts) {
            messages.add(Message.user(t));
        }
        return new SessionRecord(id, "a", T0, T0.plusSeconds(version), messages, version, Usage.of(version, 1));
    }

    private static List<String> files(Path dir) throws Exception {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void savesAndLoadsEveryPartAndMetadata(@TempDir Path dir) {
        FileSessionStore store = new FileSessionStore(dir.resolve("sessions"), JSON);
        try (SessionStore.Lease lease = store.open("s1", Duration.ZERO)) {
            assertThat(lease.load()).isEmpty();
            assertThat(lease.save(new SessionRecord("s1", "lead", T0, T0.plusSeconds(5), conversation(), 3,
                    new Usage(1, 2, 3, 4), new Cost(new BigDecimal("0.000123450"), 17)))).isTrue();
        }
        SessionRecord loaded;
        try (SessionStore.Lease lease = store.open("s1", Duration.ZERO)) {
            loaded = lease.load().orElseThrow();
        }
        assertThat(loaded.id()).isEqualTo("s1");
        assertThat(loaded.entryAgent()).isEqualTo("lead");
        assertThat(loaded.created()).isEqualTo(T0);
        assertThat(loaded.updated()).isEqualTo(T0.plusSeconds(5));
        assertThat(loaded.version()).isEqualTo(3);
        assertThat(loaded.usage()).isEqualTo(new Usage(1, 2, 3, 4));
        assertThat(loaded.cost()).isEqualTo(new Cost(new BigDecimal("0.000123450"), 17));
        List<Message> expected = conversation();
        assertThat(loaded.messages()).hasSize(expected.size());
        for (int i = 0; i < 4; i++) {
            assertThat(loaded.messages().get(i).parts()).as("message %d", i).isEqualTo(expected.get(i).parts());
            assertThat(loaded.messages().get(i).sender()).isEqualTo(expected.get(i).sender());
            assertThat(loaded.messages().get(i).role()).isEqualTo(expected.get(i).role());
        }
        Message reply = loaded.messages().get(2);
        assertThat(reply.meta("usage")).contains(Map.of("input_tokens", 120, "output_tokens", 30,
                "cache_read_tokens", 1000, "cache_write_tokens", 5));
        assertThat(reply.meta("stop_reason")).contains("TOOL_USE");
        assertThat(reply.meta("model")).contains("claude-x");
        assertThat(reply.meta("latency_ms")).contains(412);
        assertThat(reply.meta("tags")).contains(List.of("a", "b"));
        assertThat(reply.meta("nested")).contains(Map.of("k", true));
        assertThat(loaded.messages().get(4).parts())
                .containsExactly(new Text("See "), new OpaquePart("citation", "Citation[source=book]"));
        assertThat(store.ids()).containsExactly("s1");
    }

    @Test
    void aFileSavedBeforeVersionsLoadsAsVersionZeroWithTheUsageOfItsReplies(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("old.json"), """
                {
                  "id" : "old",
                  "entry_agent" : "echo",
                  "created" : "2026-11-22T10:00:00Z",
                  "updated" : "2026-11-22T10:00:05Z",
                  "messages" : [ {
                    "sender" : "user", "role" : "user", "parts" : [ { "type" : "text", "text" : "hi" } ]
                  }, {
                    "sender" : "echo", "role" : "assistant", "parts" : [ { "type" : "text", "text" : "hello" } ],
                    "metadata" : { "usage" : { "input_tokens" : 7, "output_tokens" : 3, "cache_read_tokens" : 0,
                      "cache_write_tokens" : 0 } }
                  } ]
                }""");
        FileSessionStore store = new FileSessionStore(dir, JSON);
        SessionRecord old = store.read("old");
        assertThat(old.version()).isZero();
        assertThat(old.usage()).isEqualTo(Usage.of(7, 3));
        assertThat(old.cost()).isEqualTo(Cost.ZERO);
        assertThat(old.messages()).extracting(Message::text).containsExactly("hi", "hello");
        try (SessionStore.Lease lease = store.open("old", Duration.ZERO)) {
            assertThat(lease.save(old.withId("old"))).as("the same version again is not newer").isFalse();
            assertThat(lease.save(new SessionRecord("old", "echo", old.created(), T0, old.messages(), 1, old.usage())))
                    .isTrue();
        }
        assertThat(store.read("old").version()).isEqualTo(1);
    }

    @Test
    void anOlderVersionNeverReplacesANewerOneUnderConcurrentSaves(@TempDir Path dir) throws Exception {
        FileSessionStore store = new FileSessionStore(dir, JSON);
        int versions = 200;
        List<Long> order = new ArrayList<>();
        for (long v = 1; v <= versions; v++) {
            order.add(v);
        }
        Collections.shuffle(order, new java.util.Random(7));
        List<Boolean> written = Collections.synchronizedList(new ArrayList<>());
        try (SessionStore.Lease lease = store.open("s", Duration.ZERO);
                ExecutorService pool = Executors.newFixedThreadPool(8)) {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<?>> saves = new ArrayList<>();
            for (long v : order) {
                saves.add(pool.submit(() -> {
                    go.await();
                    written.add(lease.save(record("s", v, "turn " + v)));
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> f : saves) {
                f.get(30, TimeUnit.SECONDS);
            }
        }
        SessionRecord last = store.read("s");
        assertThat(last.version()).isEqualTo(versions);
        assertThat(last.messages()).extracting(Message::text).containsExactly("turn " + versions);
        assertThat(written).contains(true, false);
        assertThat(files(dir)).containsExactly(".sessions.lock", "s.json");
    }

    @Test
    void aLeaseIsExclusiveAcrossStoresOnOneFolderAndWaitsBounded(@TempDir Path dir) throws Exception {
        FileSessionStore one = new FileSessionStore(dir, JSON);
        FileSessionStore two = new FileSessionStore(dir, JSON);
        SessionStore.Lease held = one.open("s", Duration.ZERO);
        assertThat(files(dir)).containsExactly(".sessions.lock");
        long start = System.nanoTime();
        assertThatThrownBy(() -> two.open("s", Duration.ofMillis(200)))
                .isInstanceOfSatisfying(SessionBusyException.class, e -> assertThat(e.id()).isEqualTo("s"))
                .hasMessage("session 's' is held by another engine or process and did not come free within 200 ms");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(200));
        assertThatThrownBy(() -> one.open("s", Duration.ZERO))
                .isInstanceOf(SessionBusyException.class)
                .hasMessage("session 's' is held by another engine or process");
        try (SessionStore.Lease other = one.open("t", Duration.ZERO)) {
            assertThat(other.id()).isEqualTo("t");
        }
        Future<SessionStore.Lease> waiting;
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            waiting = pool.submit(() -> two.open("s", Duration.ofSeconds(30)));
            held.save(record("s", 1, "first"));
            held.close();
            try (SessionStore.Lease next = waiting.get(30, TimeUnit.SECONDS)) {
                assertThat(next.load().orElseThrow().messages()).extracting(Message::text).containsExactly("first");
                assertThatThrownBy(() -> held.save(record("s", 2, "late")))
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessage("the lease of session 's' is closed");
            }
        }
        assertThat(files(dir)).containsExactly(".sessions.lock", "s.json");
        assertThat(LockFile.openCount()).as("the lock file is closed when nothing is held").isZero();
    }

    @Test
    void leftoverTemporaryFilesAreRemovedWhenAStoreStartsUnlessTheirSessionIsHeld(@TempDir Path dir) throws Exception {
        FileSessionStore store = new FileSessionStore(dir, JSON);
        try (SessionStore.Lease lease = store.open("s1", Duration.ZERO)) {
            lease.save(record("s1", 1, "first"));
        }
        Files.writeString(dir.resolve(".s1-123.tmp"), "{\"id\":\"s1\",\"mess");
        Files.writeString(dir.resolve(".s1-456.tmp"), "");
        Files.writeString(dir.resolve(".held-789.tmp"), "{");
        assertThat(store.ids()).containsExactly("s1");
        assertThat(store.read("s1").messages()).extracting(Message::text).containsExactly("first");
        try (SessionStore.Lease held = store.open("held", Duration.ZERO)) {
            new FileSessionStore(dir, JSON);
            assertThat(files(dir)).containsExactly(".held-789.tmp", ".sessions.lock", "s1.json");
        }
        new FileSessionStore(dir, JSON);
        assertThat(files(dir)).containsExactly(".sessions.lock", "s1.json");
    }

    @Test
    void theIdIsTheFileNameSoACopiedFileIsAForkUnderItsNewName(@TempDir Path dir) throws Exception {
        FileSessionStore store = new FileSessionStore(dir, JSON);
        try (SessionStore.Lease lease = store.open("original", Duration.ZERO)) {
            lease.save(record("original", 4, "one"));
        }
        Files.copy(dir.resolve("original.json"), dir.resolve("fork.json"));
        try (SessionStore.Lease lease = store.open("fork", Duration.ZERO)) {
            SessionRecord fork = lease.load().orElseThrow();
            assertThat(fork.id()).isEqualTo("fork");
            assertThat(lease.save(record("fork", 5, "one", "two"))).isTrue();
            assertThatThrownBy(() -> lease.save(record("original", 6, "x")))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("the lease of session 'fork' cannot save another session");
        }
        assertThat(store.read("original").messages()).extracting(Message::text).containsExactly("one");
        assertThat(store.read("fork").messages()).extracting(Message::text).containsExactly("one", "two");
        assertThat(Files.readString(dir.resolve("fork.json"))).contains("\"id\" : \"fork\"");
    }

    @Test
    void aMissingSessionNamesOnlyTheIdAskedFor(@TempDir Path dir) {
        FileSessionStore store = new FileSessionStore(dir, JSON);
        assertThatThrownBy(() -> store.read("nope"))
                .isInstanceOfSatisfying(SessionNotFoundException.class, e -> assertThat(e.id()).isEqualTo("nope"))
                .hasMessage("no saved session 'nope'");
        try (SessionStore.Lease lease = store.open("secret-a", Duration.ZERO)) {
            lease.save(record("secret-a", 1, "x"));
        }
        assertThatThrownBy(() -> store.read("c")).hasMessage("no saved session 'c'");
        assertThatThrownBy(() -> store.delete("c", Duration.ZERO))
                .isInstanceOf(SessionNotFoundException.class)
                .hasMessage("no saved session 'c'");
        store.delete("secret-a", Duration.ZERO);
        assertThat(store.ids()).isEmpty();
    }

    @Test
    void idsAreCheckedNamingTheParameter(@TempDir Path dir) {
        FileSessionStore store = new FileSessionStore(dir, JSON);
        for (String bad : List.of("../etc/passwd", "a/b", "a\\b", "..", "a..b", ".hidden", "", "x".repeat(129))) {
            assertThatThrownBy(() -> store.open(bad, Duration.ZERO))
                    .as(bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("FileSessionStore.open id '")
                    .hasMessageEndingWith("' is not a valid session id: use 1 to 128 letters, digits, '.', '_' and '-', "
                            + "starting with a letter or digit, without '..'");
        }
        assertThatThrownBy(() -> store.read(null)).hasMessageStartingWith("FileSessionStore.read id null is not a valid");
        assertThat(SessionIds.isValid("x".repeat(128))).isTrue();
        assertThat(SessionIds.isValid("v1.2_b-3")).isTrue();
    }

    @Test
    void newIdsSortByTimeAndCarry128RandomBits() {
        var clock = java.time.Clock.fixed(T0, java.time.ZoneOffset.UTC);
        java.util.Set<String> ids = new java.util.HashSet<>();
        for (int i = 0; i < 1000; i++) {
            String id = SessionIds.newId(clock);
            assertThat(id).matches("20261122-100000-[a-z2-7]{26}");
            ids.add(id);
        }
        assertThat(ids).hasSize(1000);
    }

    @Test
    void aCorruptFileIsNamed(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("bad.json"), "{\"id\":\"bad\",\"entry_agent\":\"a\",\"created\":\"2026-11-22T10:00:00Z\","
                + "\"updated\":\"2026-11-22T10:00:00Z\",\"messages\":[{\"sender\":\"u\",\"role\":\"wizard\",\"parts\":[]}]}");
        Path real = dir.toAbsolutePath().normalize();
        assertThatThrownBy(() -> new FileSessionStore(dir, JSON).read("bad"))
                .isInstanceOf(ShellyException.class)
                .hasMessage("session file " + real.resolve("bad.json") + " is not a valid session: " + real.resolve("bad.json")
                        + ": messages[0]: unknown role 'wizard'; expected one of system, user, assistant, tool");
        Files.writeString(dir.resolve("cut.json"), "{\"id\":\"cut\",\"mess");
        assertThatThrownBy(() -> new FileSessionStore(dir, JSON).read("cut"))
                .hasMessageStartingWith("session file " + real.resolve("cut.json") + " is not a valid session: ");
    }
}
