package dev.shelly.storage.spi;

import dev.shelly.storage.SessionBusyException;
import dev.shelly.storage.SessionNotFoundException;
import dev.shelly.storage.SessionRecord;
import dev.shelly.storage.internal.JournalLines;
import dev.shelly.storage.internal.OpaquePart;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.chats.Chat;
import dev.shelly.chats.Image;
import dev.shelly.chats.Message;
import dev.shelly.chats.Part;
import dev.shelly.chats.Role;
import dev.shelly.chats.Text;
import dev.shelly.chats.Thinking;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import dev.shelly.modeladapter.Cost;
import dev.shelly.modeladapter.StopReason;
import dev.shelly.modeladapter.Usage;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The {@link SessionStore} contract, as the engine relies on it: every store runs it unchanged
 * ({@link FileSessionStore} here, the Redis store in shelly-redis). Published in shelly-engine's
 * test jar.
 */
public abstract class SessionStoreContract {

    /** A part of an application's own kind, which stores keep as an {@link OpaquePart}. */
    record Citation(String source) implements Part {
        @Override
        public String kind() {
            return "citation";
        }
    }

    /** A time for records. */
    protected static final Instant T0 = Instant.parse("2026-11-22T10:00:00Z");

    /**
     * A store on a place: stores made on the same place share their sessions (one folder, one
     * server and prefix), as engines of several processes do; stores on different places share
     * nothing.
     *
     * @param place a name unique to the test, the same for every store of the test that shares
     * @return the store
     */
    protected abstract SessionStore openStore(String place);

    /**
     * What a crash between a save and the removal of the journal leaves behind: takes the journal
     * of a session as it is stored now, and returns what puts it back, as it was, after a save.
     *
     * @param place the place of the test's stores
     * @param id the session
     * @return what puts the journal back
     */
    protected abstract Runnable keepJournal(String place, String id);

    /**
     * Adds the start of a journal line, as a crash in the middle of an append leaves it.
     *
     * @param place the place of the test's stores
     * @param id the session
     * @param torn the start of a line, without a line break
     */
    protected abstract void tearJournal(String place, String id, String torn);

    /**
     * Takes a lease away from its holder as its expiry would, when a store's leases can lapse.
     *
     * @param place the place of the test's stores
     * @param id the session
     * @return false when the store's leases cannot lapse (they end only with their holder)
     */
    protected boolean expireLease(String place, String id) {
        return false;
    }

    /** A new place for one test. */
    private static String newPlace() {
        return "p" + UUID.randomUUID().toString().substring(0, 8);
    }

    /**
     * A record of user messages.
     *
     * @param id the session
     * @param version its version
     * @param texts the user messages
     * @return the record
     */
    protected static SessionRecord record(String id, long version, String... texts) {
        List<Message> messages = new ArrayList<>();
        for (String t : texts) {
            messages.add(Message.user(t));
        }
        return new SessionRecord(id, "a", T0, T0.plusSeconds(version), messages, version, Usage.of(version, 1));
    }

    /**
     * What is saved under an id, read under a lease.
     *
     * @param store the store
     * @param id the session
     * @return the record
     */
    protected static SessionRecord loaded(SessionStore store, String id) {
        try (SessionStore.Lease lease = store.open(id, Duration.ofSeconds(30))) {
            return lease.load().orElseThrow(() -> new AssertionError("nothing saved under " + id));
        }
    }

    private static List<Message> conversation() {
        return List.of(
                Message.system("You are terse."),
                Message.of("user", Role.USER, new Text("Look: "), Image.ofBase64("iVBORw0KGgo=", "image/png"),
                        Image.ofUrl("https://example.com/cat.jpg")),
                Message.of("assistant", Role.ASSISTANT, Thinking.of("Need the weather.", "sig-123").withOrigin("anthropic"),
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

    @Test
    void keepsEachMessagesIdAndCreationTime() {
        SessionStore store = openStore(newPlace());
        Chat chat = new Chat(List.of(Message.system("sys")));
        chat.append(Message.user("hi"), Message.user("hi"));
        List<Chat.Entry> entries = new ArrayList<>(chat.entries());
        entries.add(new Chat.Entry("old#3", T0.plusNanos(123_456_789), Message.user("later")));
        SessionRecord saved = new SessionRecord("s1", "lead", T0, T0.plusSeconds(1), entries, 1, Usage.ZERO, Cost.ZERO,
                null);
        try (SessionStore.Lease lease = store.open("s1", Duration.ZERO)) {
            assertThat(lease.save(saved)).isTrue();
        }
        SessionRecord loaded = loaded(store, "s1");
        assertThat(loaded.entries()).containsExactlyElementsOf(entries);
        assertThat(loaded).isEqualTo(saved);
    }

    @Test
    void savesAndLoadsEveryPartAndMetadata() {
        SessionStore store = openStore(newPlace());
        try (SessionStore.Lease lease = store.open("s1", Duration.ZERO)) {
            assertThat(lease.id()).isEqualTo("s1");
            assertThat(lease.load()).isEmpty();
            assertThat(lease.save(new SessionRecord("s1", "lead", T0, T0.plusSeconds(5), conversation(), 3,
                    new Usage(1, 2, 3, 4), new Cost(new BigDecimal("0.000123450"), 17)))).isTrue();
        }
        SessionRecord loaded = loaded(store, "s1");
        assertThat(loaded.id()).isEqualTo("s1");
        assertThat(loaded.entryAgent()).isEqualTo("lead");
        assertThat(loaded.created()).isEqualTo(T0);
        assertThat(loaded.updated()).isEqualTo(T0.plusSeconds(5));
        assertThat(loaded.version()).isEqualTo(3);
        assertThat(loaded.usage()).isEqualTo(new Usage(1, 2, 3, 4));
        assertThat(loaded.cost()).isEqualTo(new Cost(new BigDecimal("0.00012345"), 17));
        List<Message> expected = conversation();
        assertThat(loaded.messages()).hasSize(expected.size());
        for (int i = 0; i < 4; i++) {
            assertThat(loaded.messages().get(i).parts()).as("message %d", i).isEqualTo(expected.get(i).parts());
            assertThat(loaded.messages().get(i).sender()).isEqualTo(expected.get(i).sender());
            assertThat(loaded.messages().get(i).role()).isEqualTo(expected.get(i).role());
        }
        Message reply = loaded.messages().get(2);
        // Replies carry no usage or stop reason since the typed model call; older sessions' keys
        // load as plain values.
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
    void aSaveOfTheSameOrALowerVersionIsSkippedAndTheNewerOneStays() {
        SessionStore store = openStore(newPlace());
        try (SessionStore.Lease lease = store.open("s", Duration.ZERO)) {
            assertThat(lease.save(record("s", 2, "two"))).isTrue();
            assertThat(lease.save(record("s", 2, "two again"))).isFalse();
            assertThat(lease.save(record("s", 1, "one"))).isFalse();
        }
        try (SessionStore.Lease lease = store.open("s", Duration.ZERO)) {
            assertThat(lease.save(record("s", 1, "one, by the next holder"))).isFalse();
            assertThat(lease.load().orElseThrow().messages()).extracting(Message::text).containsExactly("two");
            assertThat(lease.save(record("s", 3, "two", "three"))).isTrue();
        }
        assertThat(loaded(store, "s").messages()).extracting(Message::text).containsExactly("two", "three");
    }

    @Test
    void anOlderVersionNeverReplacesANewerOneUnderConcurrentSaves() throws Exception {
        SessionStore store = openStore(newPlace());
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
        SessionRecord last = loaded(store, "s");
        assertThat(last.version()).isEqualTo(versions);
        assertThat(last.messages()).extracting(Message::text).containsExactly("turn " + versions);
        assertThat(written).contains(true, false);
    }

    @Test
    void aLeaseIsExclusiveAcrossStoresOnOnePlaceAndWaitsBounded() throws Exception {
        String place = newPlace();
        SessionStore one = openStore(place);
        SessionStore two = openStore(place);
        SessionStore.Lease held = one.open("s", Duration.ZERO);
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
            held.close();
            try (SessionStore.Lease next = waiting.get(30, TimeUnit.SECONDS)) {
                assertThat(next.load().orElseThrow().messages()).extracting(Message::text).containsExactly("first");
                assertThatThrownBy(() -> held.save(record("s", 2, "late")))
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessage("the lease of session 's' is closed");
                assertThatThrownBy(held::load).isInstanceOf(IllegalStateException.class)
                        .hasMessage("the lease of session 's' is closed");
                assertThatThrownBy(held::delete).isInstanceOf(IllegalStateException.class)
                        .hasMessage("the lease of session 's' is closed");
            }
        }
    }

    @Test
    void holdersOfTwoStoresTakingTurnsLoseNoTurn() throws Exception {
        String place = newPlace();
        List<SessionStore> stores = List.of(openStore(place), openStore(place));
        int workers = 6;
        int turnsEach = 15;
        try (ExecutorService pool = Executors.newFixedThreadPool(workers)) {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<?>> done = new ArrayList<>();
            for (int w = 0; w < workers; w++) {
                SessionStore store = stores.get(w % 2);
                String name = "w" + w;
                done.add(pool.submit(() -> {
                    go.await();
                    for (int t = 0; t < turnsEach; t++) {
                        try (SessionStore.Lease lease = store.open("shared", Duration.ofSeconds(60))) {
                            SessionRecord before = lease.load().orElse(null);
                            List<Message> messages = new ArrayList<>(before == null ? List.of() : before.messages());
                            messages.add(Message.user(name + " " + t));
                            long version = before == null ? 1 : before.version() + 1;
                            assertThat(lease.save(new SessionRecord("shared", "a", T0, T0, messages, version, Usage.ZERO)))
                                    .isTrue();
                        }
                    }
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> f : done) {
                f.get(120, TimeUnit.SECONDS);
            }
        }
        SessionRecord last = loaded(stores.getFirst(), "shared");
        assertThat(last.messages()).hasSize(workers * turnsEach);
        assertThat(last.version()).isEqualTo(workers * turnsEach);
        for (int w = 0; w < workers; w++) {
            List<String> mine = new ArrayList<>();
            for (Message m : last.messages()) {
                if (m.text().startsWith("w" + w + " ")) {
                    mine.add(m.text());
                }
            }
            List<String> expected = new ArrayList<>();
            for (int t = 0; t < turnsEach; t++) {
                expected.add("w" + w + " " + t);
            }
            assertThat(mine).as("worker %d's turns, in order", w).isEqualTo(expected);
        }
    }

    @Test
    void aWaitingOpenAnswersAnInterruptWithCancellation() throws Exception {
        String place = newPlace();
        SessionStore one = openStore(place);
        SessionStore two = openStore(place);
        try (SessionStore.Lease held = one.open("s", Duration.ZERO)) {
            AtomicBoolean flagKept = new AtomicBoolean();
            FutureTask<SessionStore.Lease> waiting = new FutureTask<>(() -> {
                try {
                    return two.open("s", Duration.ofSeconds(60));
                } finally {
                    flagKept.set(Thread.currentThread().isInterrupted());
                }
            });
            Thread thread = Thread.ofVirtual().start(waiting);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (thread.getState() != Thread.State.WAITING && thread.getState() != Thread.State.TIMED_WAITING) {
                assertThat(System.nanoTime()).as("the opener started waiting").isLessThan(deadline);
                Thread.sleep(1);
            }
            thread.interrupt();
            assertThatThrownBy(() -> waiting.get(30, TimeUnit.SECONDS))
                    .cause()
                    .isInstanceOf(CancellationException.class)
                    .hasMessage("interrupted while waiting for session 's'");
            assertThat(flagKept).isTrue();
            held.save(record("s", 1, "kept"));
        }
        assertThat(loaded(two, "s").messages()).extracting(Message::text).containsExactly("kept");
    }

    @Test
    void aLeaseSavesOnlyItsOwnSession() {
        SessionStore store = openStore(newPlace());
        try (SessionStore.Lease lease = store.open("fork", Duration.ZERO)) {
            assertThatThrownBy(() -> lease.save(record("original", 6, "x")))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("the lease of session 'fork' cannot save another session");
            assertThatThrownBy(() -> lease.save(null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("the lease of session 'fork' cannot save null");
        }
        assertThat(store.ids()).isEmpty();
    }

    @Test
    void journalEntriesAreDurableInOrderUntilASaveCompactsThem() {
        String place = newPlace();
        SessionStore first = openStore(place);
        try (SessionStore.Lease lease = first.open("s", Duration.ZERO)) {
            assertThat(lease.journal()).isEmpty();
            lease.append("{\"type\":\"turn\"}");
            assertThat(lease.journal()).as("entries before the first save").containsExactly("{\"type\":\"turn\"}");
            assertThat(lease.save(record("s", 1, "hi"))).isTrue();
            assertThat(lease.journal()).as("compacted by the save").isEmpty();
            for (int i = 1; i <= 3; i++) {
                lease.append("{\"step\":" + i + ",\"text\":\"é\\u0000\"}");
            }
            assertThat(lease.journal()).containsExactly("{\"step\":1,\"text\":\"é\\u0000\"}",
                    "{\"step\":2,\"text\":\"é\\u0000\"}", "{\"step\":3,\"text\":\"é\\u0000\"}");
            // The holder stops here, as a killed process would: nothing more is saved.
        }
        SessionStore next = openStore(place);
        try (SessionStore.Lease lease = next.open("s", Duration.ZERO)) {
            assertThat(lease.journal()).as("acknowledged entries outlive their holder").hasSize(3);
            assertThat(lease.load().orElseThrow().version()).isEqualTo(1);
            lease.append("{\"step\":4}");
            assertThat(lease.journal()).hasSize(4).last().isEqualTo("{\"step\":4}");
            assertThat(lease.save(record("s", 1, "not newer"))).isFalse();
            assertThat(lease.journal()).as("a save that writes nothing compacts nothing").hasSize(4);
            assertThat(lease.save(record("s", 2, "hi", "there"))).isTrue();
            assertThat(lease.journal()).isEmpty();
            lease.append("{\"step\":5}");
        }
        try (SessionStore.Lease lease = first.open("s", Duration.ZERO)) {
            assertThat(lease.journal()).containsExactly("{\"step\":5}");
            assertThat(lease.load().orElseThrow().messages()).extracting(Message::text).containsExactly("hi", "there");
        }
    }

    @Test
    void entriesAppendedFromManyThreadsAreEachKeptOnce() throws Exception {
        SessionStore store = openStore(newPlace());
        try (SessionStore.Lease lease = store.open("s", Duration.ZERO);
                ExecutorService pool = Executors.newFixedThreadPool(8)) {
            lease.save(record("s", 1, "hi"));
            List<Future<?>> appends = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                int thread = t;
                appends.add(pool.submit(() -> {
                    for (int i = 0; i < 25; i++) {
                        lease.append("{\"t\":" + thread + ",\"i\":" + i + "}");
                    }
                    return null;
                }));
            }
            for (Future<?> f : appends) {
                f.get(60, TimeUnit.SECONDS);
            }
            List<String> journal = lease.journal();
            assertThat(journal).hasSize(200).doesNotHaveDuplicates();
            for (int t = 0; t < 8; t++) {
                String prefix = "{\"t\":" + t + ",";
                assertThat(journal.stream().filter(e -> e.startsWith(prefix)).toList()).as("thread %d in order", t)
                        .isSortedAccordingTo((a, b) -> Integer.compare(number(a), number(b)));
            }
        }
    }

    private static int number(String entry) {
        return Integer.parseInt(entry.substring(entry.lastIndexOf(':') + 1, entry.length() - 1));
    }

    @Test
    void aJournalLeftBehindByACrashBetweenASaveAndItsRemovalIsNeverReadAgain() {
        String place = newPlace();
        SessionStore store = openStore(place);
        try (SessionStore.Lease lease = store.open("s", Duration.ZERO)) {
            lease.save(record("s", 1, "hi"));
            lease.append("{\"old\":1}");
            lease.append("{\"old\":2}");
            Runnable putBack = keepJournal(place, "s");
            assertThat(lease.save(record("s", 2, "hi", "done"))).isTrue();
            putBack.run();
            assertThat(lease.journal()).as("entries of the turn the record holds now").isEmpty();
        }
        try (SessionStore.Lease lease = openStore(place).open("s", Duration.ZERO)) {
            assertThat(lease.journal()).isEmpty();
            lease.append("{\"new\":1}");
            assertThat(lease.journal()).containsExactly("{\"new\":1}");
        }
    }

    @Test
    void aTornLastEntryIsNotReadAndTheNextEntryIsWhole() {
        String place = newPlace();
        SessionStore store = openStore(place);
        try (SessionStore.Lease lease = store.open("s", Duration.ZERO)) {
            lease.save(record("s", 1, "hi"));
            lease.append("{\"a\":1}");
        }
        String line = JournalLines.format(1, "{\"type\":\"model\",\"text\":\"cut off here\"}");
        tearJournal(place, "s", line.substring(0, line.length() - 7));
        try (SessionStore.Lease lease = openStore(place).open("s", Duration.ZERO)) {
            assertThat(lease.journal()).containsExactly("{\"a\":1}");
            lease.append("{\"b\":2}");
            assertThat(lease.journal()).containsExactly("{\"a\":1}", "{\"b\":2}");
        }
        try (SessionStore.Lease lease = openStore(place).open("s", Duration.ZERO)) {
            assertThat(lease.journal()).containsExactly("{\"a\":1}", "{\"b\":2}");
        }
    }

    @Test
    void entriesAreOneLineAndAClosedOrLostLeaseAppendsNothing() {
        String place = newPlace();
        SessionStore store = openStore(place);
        SessionStore.Lease lease = store.open("s", Duration.ZERO);
        lease.save(record("s", 1, "hi"));
        for (String bad : new String[] {null, " ", "{\n}", "{\r}"}) {
            assertThatThrownBy(() -> lease.append(bad)).as(String.valueOf(bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("a journal entry of session 's' must");
        }
        lease.append("{\"kept\":1}");
        lease.close();
        assertThatThrownBy(() -> lease.append("{}")).isInstanceOf(IllegalStateException.class)
                .hasMessage("the lease of session 's' is closed");
        assertThatThrownBy(lease::journal).isInstanceOf(IllegalStateException.class)
                .hasMessage("the lease of session 's' is closed");
        try (SessionStore.Lease next = store.open("s", Duration.ZERO)) {
            assertThat(next.journal()).containsExactly("{\"kept\":1}");
            next.delete();
            assertThat(next.journal()).as("deleted with the session").isEmpty();
        }
        try (SessionStore.Lease next = store.open("s", Duration.ZERO)) {
            assertThat(next.journal()).isEmpty();
        }
    }

    @Test
    void aLostLeaseAppendsNothingAndReadsNoJournal() {
        String place = newPlace();
        SessionStore store = openStore(place);
        try (SessionStore.Lease held = store.open("s", Duration.ZERO)) {
            held.save(record("s", 1, "hi"));
            held.append("{\"kept\":1}");
            Assumptions.assumeTrue(expireLease(place, "s"), "this store's leases end only with their holder");
            assertThatThrownBy(() -> held.append("{\"late\":1}"))
                    .isInstanceOfSatisfying(SessionBusyException.class, e -> assertThat(e.id()).isEqualTo("s"))
                    .hasMessageStartingWith("session 's' was not appended to: its lease expired");
            assertThatThrownBy(held::journal).isInstanceOf(SessionBusyException.class)
                    .hasMessageStartingWith("session 's' was not read: its lease expired");
        }
        try (SessionStore.Lease next = store.open("s", Duration.ofSeconds(30))) {
            assertThat(next.journal()).as("nothing written by the lost lease").containsExactly("{\"kept\":1}");
        }
    }

    @Test
    void idsAreSortedAndDeleteRemovesOneSession() {
        SessionStore store = openStore(newPlace());
        for (String id : List.of("c", "a", "b")) {
            try (SessionStore.Lease lease = store.open(id, Duration.ZERO)) {
                lease.save(record(id, 1, id));
            }
        }
        assertThat(store.ids()).containsExactly("a", "b", "c");
        store.delete("b", Duration.ZERO);
        assertThat(store.ids()).containsExactly("a", "c");
        try (SessionStore.Lease lease = store.open("b", Duration.ZERO)) {
            assertThat(lease.load()).isEmpty();
            lease.delete();
            assertThat(lease.save(record("b", 1, "again"))).as("a deleted session starts over").isTrue();
            lease.delete();
            assertThat(lease.load()).isEmpty();
        }
        assertThat(store.ids()).containsExactly("a", "c");
    }

    @Test
    void aSessionHeldElsewhereIsNotDeleted() {
        String place = newPlace();
        SessionStore one = openStore(place);
        SessionStore two = openStore(place);
        try (SessionStore.Lease held = one.open("s", Duration.ZERO)) {
            held.save(record("s", 1, "mine"));
            assertThatThrownBy(() -> two.delete("s", Duration.ofMillis(50)))
                    .isInstanceOf(SessionBusyException.class)
                    .hasMessage("session 's' is held by another engine or process and did not come free within 50 ms");
        }
        assertThat(loaded(two, "s").messages()).extracting(Message::text).containsExactly("mine");
    }

    @Test
    void peekReadsWhatIsSavedWithoutHoldingTheSession() {
        String place = newPlace();
        SessionStore one = openStore(place);
        SessionStore two = openStore(place);
        try (SessionStore.Lease held = one.open("s", Duration.ZERO)) {
            assertThat(two.peek("s")).isEmpty();
            held.save(record("s", 1, "first"));
            assertThat(two.peek("s")).as("read while another store holds it").get()
                    .satisfies(r -> assertThat(r.messages()).extracting(Message::text).containsExactly("first"))
                    .satisfies(r -> assertThat(r.version()).isEqualTo(1));
            held.save(record("s", 2, "first", "second"));
            assertThat(two.peek("s").orElseThrow().messages()).hasSize(2);
        }
        try (SessionStore.Lease lease = two.open("s", Duration.ZERO)) {
            assertThat(lease.load().orElseThrow().version()).as("peeking took no lease").isEqualTo(2);
        }
        assertThatThrownBy(() -> two.peek("../s")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("is not a valid session id");
    }

    @Test
    void aMissingSessionNamesOnlyTheIdAskedFor() {
        SessionStore store = openStore(newPlace());
        try (SessionStore.Lease lease = store.open("secret-a", Duration.ZERO)) {
            lease.save(record("secret-a", 1, "x"));
        }
        assertThatThrownBy(() -> store.delete("c", Duration.ZERO))
                .isInstanceOfSatisfying(SessionNotFoundException.class, e -> assertThat(e.id()).isEqualTo("c"))
                .hasMessage("no saved session 'c'");
        store.delete("secret-a", Duration.ZERO);
        assertThat(store.ids()).isEmpty();
        assertThatThrownBy(() -> store.delete("secret-a", Duration.ZERO)).hasMessage("no saved session 'secret-a'");
    }

    @Test
    void idsAndWaitsAreCheckedNamingTheParameter() {
        SessionStore store = openStore(newPlace());
        String name = store.getClass().getSimpleName();
        for (String bad : List.of("../etc/passwd", "a/b", "a\\b", "..", "a..b", ".hidden", "", "a b", "x".repeat(129))) {
            assertThatThrownBy(() -> store.open(bad, Duration.ZERO))
                    .as(bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith(name + ".open id '")
                    .hasMessageEndingWith("' is not a valid session id: use 1 to 128 letters, digits, '.', '_' and '-', "
                            + "starting with a letter or digit, without '..'");
        }
        assertThatThrownBy(() -> store.open(null, Duration.ZERO)).hasMessageStartingWith(name + ".open id null is not a valid");
        assertThatThrownBy(() -> store.open("s", Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(name + ".open wait for session 's' must be zero or positive, was PT-0.001S");
        assertThatThrownBy(() -> store.open("s", null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(name + ".open wait for session 's' must be zero or positive, was null");
    }
}
