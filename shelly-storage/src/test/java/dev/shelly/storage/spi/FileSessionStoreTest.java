package dev.shelly.storage.spi;

import dev.shelly.storage.SessionNotFoundException;
import dev.shelly.storage.SessionRecord;
import dev.shelly.storage.internal.LockFile;
import dev.shelly.storage.internal.SessionIds;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.chats.Message;
import dev.shelly.chats.ShellyException;
import dev.shelly.modeladapter.Cost;
import dev.shelly.modeladapter.Usage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

/** The file store: the {@link SessionStoreContract}, and what is particular to files. */
class FileSessionStoreTest extends SessionStoreContract {
    @TempDir
    Path places;

    @Override
    protected SessionStore openStore(String place) {
        return new FileSessionStore(places.resolve(place), JSON);
    }

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private static List<String> files(Path dir) throws Exception {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
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
        FileSessionStore store = FileSessionStore.in(dir);
        SessionRecord old = store.read("old");
        assertThat(old.version()).isZero();
        assertThat(old.usage()).isEqualTo(Usage.of(7, 3));
        assertThat(old.cost()).as("a file from before costs were kept").isEqualTo(Cost.ZERO);
        assertThat(old.messages()).extracting(Message::text).containsExactly("hi", "hello");
        try (SessionStore.Lease lease = store.open("old", Duration.ZERO)) {
            assertThat(lease.save(old.withId("old"))).as("the same version again is not newer").isFalse();
            assertThat(lease.save(new SessionRecord("old", "echo", old.created(), T0, old.messages(), 1, old.usage())))
                    .isTrue();
        }
        assertThat(store.read("old").version()).isEqualTo(1);
    }

    @Test
    void aSessionIsOneFileAndHoldingItTakesNoFileButTheLockFile(@TempDir Path dir) throws Exception {
        FileSessionStore one = new FileSessionStore(dir, JSON);
        FileSessionStore two = new FileSessionStore(dir, JSON);
        SessionStore.Lease held = one.open("s", Duration.ZERO);
        assertThat(files(dir)).containsExactly(".sessions.lock");
        held.save(record("s", 1, "first"));
        held.save(record("s", 2, "second"));
        held.close();
        try (SessionStore.Lease next = two.open("s", Duration.ZERO)) {
            assertThat(next.load().orElseThrow().version()).isEqualTo(2);
        }
        assertThat(files(dir)).containsExactly(".sessions.lock", "s.json");
        assertThat(LockFile.openCount()).as("the lock file is closed when nothing is held").isZero();
    }

    @Test
    @SuppressWarnings("try") // the lease is held while another store starts, not used
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
        }
        assertThat(store.read("original").messages()).extracting(Message::text).containsExactly("one");
        assertThat(store.read("fork").messages()).extracting(Message::text).containsExactly("one", "two");
        assertThat(Files.readString(dir.resolve("fork.json"))).contains("\"id\" : \"fork\"");
    }

    @Test
    void readOfAMissingSessionNamesOnlyTheIdAskedFor(@TempDir Path dir) {
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
    void readChecksTheIdNamingTheParameter(@TempDir Path dir) {
        FileSessionStore store = new FileSessionStore(dir, JSON);
        assertThatThrownBy(() -> store.read(null)).hasMessageStartingWith("FileSessionStore.read id null is not a valid");
        assertThatThrownBy(() -> store.read("../x")).hasMessageStartingWith("FileSessionStore.read id '../x' is not a valid");
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
