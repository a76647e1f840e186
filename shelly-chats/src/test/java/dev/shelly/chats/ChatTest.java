package dev.shelly.chats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

class ChatTest {

    private static Message msg(String sender, String text) {
        return Message.text(sender, Role.USER, text);
    }

    @Test
    void appendsInOrderAndReads() {
        Chat chat = new Chat();
        assertThat(chat.isEmpty()).isTrue();
        assertThat(chat.last()).isEmpty();
        assertThat(chat.append(Message.system("sys"), msg("a", "1"))).isEqualTo(2);
        assertThat(chat.append(msg("b", "2"))).isEqualTo(3);
        assertThat(chat.size()).isEqualTo(3);
        assertThat(chat.get(1).text()).isEqualTo("1");
        assertThat(chat.last()).map(Message::text).contains("2");
        assertThat(chat.messages()).extracting(Message::text).containsExactly("sys", "1", "2");
        assertThat(chat.since(1)).extracting(Message::text).containsExactly("1", "2");
        assertThat(chat.since(3)).isEmpty();
        assertThat(chat.since(99)).isEmpty();
        assertThat(chat.bySender("a")).extracting(Message::text).containsExactly("1");
        assertThat(chat.bySender("nobody")).isEmpty();
    }

    @Test
    void readsAreCopies() {
        Chat chat = Chat.of(msg("a", "1"));
        List<Message> snapshot = chat.messages();
        chat.append(msg("a", "2"));
        assertThat(snapshot).hasSize(1);
        assertThatThrownBy(() -> snapshot.add(msg("a", "3"))).isInstanceOf(UnsupportedOperationException.class);
        List<Message> source = new ArrayList<>(List.of(msg("a", "x")));
        Chat fromList = new Chat(source);
        source.clear();
        assertThat(fromList.size()).isEqualTo(1);
    }

    @Test
    void everyAppendedMessageIsStampedWithAnIdAndItsTimeWhileMessagesStayValues() {
        Instant before = Instant.now();
        Chat chat = new Chat(List.of(Message.system("sys")));
        chat.append(msg("a", "1"), msg("a", "1"));
        Instant after = Instant.now();
        List<Chat.Entry> entries = chat.entries();
        assertThat(entries).extracting(Chat.Entry::message).containsExactlyElementsOf(chat.messages());
        assertThat(entries).extracting(Chat.Entry::id).doesNotHaveDuplicates().allMatch(id -> id.matches("[0-9a-f]{16}-[0-9a-z]+"));
        assertThat(entries).extracting(Chat.Entry::created).allMatch(t -> !t.isBefore(before) && !t.isAfter(after));
        assertThat(entries.get(1).message()).as("equal messages stay equal; their entries differ by id")
                .isEqualTo(entries.get(2).message());
        assertThat(entries.get(1)).isNotEqualTo(entries.get(2));
        assertThat(chat.entriesSince(2)).containsExactly(entries.get(2));
        assertThat(chat.entriesSince(3)).isEmpty();
        assertThat(new Chat(List.of(Message.system("sys"))).entries().getFirst().id())
                .as("another chat, the same message: another id").isNotEqualTo(entries.getFirst().id());
    }

    @Test
    void anEntryReadLaterKeepsItsAppendTimeAndOnceReadKeepsItsId() throws InterruptedException {
        Chat chat = new Chat(List.of(Message.system("sys")));
        Instant betweenFirst = Instant.now();
        Thread.sleep(5);
        chat.append(msg("a", "1"));
        chat.append(msg("a", "2"), msg("a", "3"));
        Instant appended = Instant.now();
        Thread.sleep(5);
        List<Chat.Entry> read = chat.entries();
        assertThat(read.get(0).created()).as("the initial message's time").isBefore(betweenFirst);
        assertThat(read.subList(1, 4)).extracting(Chat.Entry::created)
                .allMatch(t -> t.isAfter(betweenFirst) && !t.isAfter(appended), "between its append and the next read");
        assertThat(read.get(2).created()).as("one append, one time").isEqualTo(read.get(3).created());
        chat.append(msg("a", "4"));
        assertThat(chat.entries().subList(0, 4)).as("read again: the same ids and times").isEqualTo(read);
        assertThat(chat.entriesSince(1).subList(0, 3)).isEqualTo(read.subList(1, 4));
    }

    @Test
    void eachEntryKeepsTheTimeOfItsOwnAppendAcrossManyAppendsAndReads() throws InterruptedException {
        Chat chat = new Chat();
        List<Instant> after = new ArrayList<>();
        for (int i = 0; i < 5; i++) { // the first append's time is kept apart from the others'
            chat.append(msg("a", Integer.toString(i)));
            after.add(Instant.now());
            Thread.sleep(2);
        }
        List<Chat.Entry> read = chat.entries();
        chat.append(msg("a", "5"), msg("a", "6"));
        after.add(Instant.now());
        List<Chat.Entry> all = chat.entries();
        assertThat(all.subList(0, 5)).as("read again: the same entries").isEqualTo(read);
        for (int i = 0; i < 5; i++) {
            Instant created = all.get(i).created();
            assertThat(created).as("entry %d", i).isBeforeOrEqualTo(after.get(i));
            if (i > 0) {
                assertThat(created).as("entry %d after the previous append", i).isAfter(after.get(i - 1));
            }
        }
        assertThat(all.get(5).created()).as("an append after a read").isAfter(after.get(4))
                .isEqualTo(all.get(6).created());
    }

    @Test
    void messagesIsASnapshotThatLaterAppendsLeaveAsItWas() {
        Chat chat = new Chat();
        chat.append(msg("a", "0"), msg("a", "1"), msg("a", "2"));
        List<Message> snapshot = chat.messages();
        for (int i = 3; i < 40; i++) { // the chat's array grows several times
            chat.append(msg("a", Integer.toString(i)));
        }
        assertThat(snapshot).extracting(Message::text).containsExactly("0", "1", "2");
        assertThat(snapshot).isEqualTo(List.of(msg("a", "0"), msg("a", "1"), msg("a", "2")));
        assertThatThrownBy(() -> snapshot.add(msg("a", "x"))).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> snapshot.set(0, msg("a", "x"))).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> snapshot.get(3)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThat(Chat.isSnapshot(snapshot)).isTrue();
        assertThat(Chat.isSnapshot(chat.since(1))).as("a part of the chat is a copy").isFalse();
        assertThat(chat.since(1)).hasSize(39).first().extracting(Message::text).isEqualTo("1");
        assertThat(Chat.isSnapshot(List.copyOf(snapshot))).isFalse();
        assertThat(new Chat().messages()).isEmpty();
        assertThatThrownBy(() -> Chat.isSnapshot(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Chat.isSnapshot list must not be null");
    }

    /** Readers that first read the same messages at once all see one id per message. */
    @RepeatedTest(10)
    void concurrentFirstReadsAgreeOnTheIds() throws Exception {
        Chat chat = new Chat();
        for (int i = 0; i < 50; i++) {
            chat.append(msg("a", Integer.toString(i)));
        }
        CountDownLatch start = new CountDownLatch(1);
        List<Future<List<Chat.Entry>>> reads = new ArrayList<>();
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int r = 0; r < 8; r++) {
                int offset = r;
                reads.add(pool.submit(() -> {
                    start.await();
                    chat.append(msg("b", Integer.toString(offset)));
                    return chat.entriesSince(0);
                }));
            }
            start.countDown();
        }
        List<Chat.Entry> all = chat.entries();
        assertThat(all).hasSize(58).extracting(Chat.Entry::id).doesNotHaveDuplicates();
        for (Future<List<Chat.Entry>> f : reads) {
            List<Chat.Entry> seen = f.get();
            assertThat(all.subList(0, seen.size())).isEqualTo(seen);
        }
    }

    @Test
    void aChatRestoredFromEntriesKeepsTheirIdsAndTimes() {
        Chat.Entry first = new Chat.Entry("s1#0", Instant.parse("2026-01-02T03:04:05Z"), msg("a", "1"));
        Chat chat = Chat.ofEntries(List.of(first));
        chat.append(msg("a", "2"));
        assertThat(chat.entries().getFirst()).isEqualTo(first);
        assertThat(chat.messages()).extracting(Message::text).containsExactly("1", "2");
        assertThat(chat.entries().get(1).id()).isNotEqualTo("s1#0");
        assertThatThrownBy(() -> new Chat.Entry(" ", Instant.now(), msg("a", "1")))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("Chat.Entry.id must not be null or blank");
        assertThatThrownBy(() -> chat.entriesSince(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Chat.entriesSince offset must not be negative, was -1");
    }

    @Test
    void systemPromptIsTheFirstSystemMessage() {
        assertThat(new Chat().systemPrompt()).isEmpty();
        Chat chat = Chat.of(msg("u", "hi"), Message.system("first"), Message.system("second"));
        assertThat(chat.systemPrompt()).contains("first");
    }

    @Test
    void badIndexAndOffsetAreReported() {
        Chat chat = Chat.of(msg("a", "1"));
        assertThatThrownBy(() -> chat.get(1))
                .isInstanceOf(IndexOutOfBoundsException.class)
                .hasMessage("no message at index 1; the chat holds 1");
        assertThatThrownBy(() -> chat.since(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Chat.since offset must not be negative, was -1");
        assertThatThrownBy(() -> chat.append((Message) null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Chat.append more[0] must not be null");
        List<Message> withNull = new ArrayList<>();
        withNull.add(msg("a", "2"));
        withNull.add(null);
        assertThatThrownBy(() -> chat.append(withNull))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Chat.append more[1] must not be null");
        assertThat(chat.size()).as("a rejected append adds nothing").isEqualTo(1);
    }

    @Test
    void awaitReturnsAtOnceWhenAlreadyLarger() throws InterruptedException {
        Chat chat = Chat.of(msg("a", "1"), msg("a", "2"));
        assertThat(chat.await(1, Duration.ofDays(1))).isEqualTo(2);
    }

    @Test
    void awaitTimesOutWithTheCurrentSize() throws InterruptedException {
        Chat chat = Chat.of(msg("a", "1"));
        assertThat(chat.await(1, Duration.ofMillis(20))).isEqualTo(1);
        assertThat(chat.await(1, Duration.ZERO)).isEqualTo(1);
        assertThat(chat.await(1, Duration.ofMillis(-5))).isEqualTo(1);
    }

    @Test
    void awaitWakesOnAppend() throws Exception {
        Chat chat = new Chat();
        CountDownLatch waiting = new CountDownLatch(1);
        AtomicInteger seen = new AtomicInteger(-1);
        Thread waiter = Thread.ofVirtual().start(() -> {
            try {
                waiting.countDown();
                seen.set(chat.await(0, Duration.ofMinutes(1)));
            } catch (InterruptedException e) {
                seen.set(-2);
            }
        });
        waiting.await();
        chat.append(msg("a", "1"));
        assertThat(waiter.join(Duration.ofSeconds(10))).isTrue();
        assertThat(seen.get()).isEqualTo(1);
    }

    @Test
    void awaitAnswersInterruptAtOnce() throws Exception {
        Chat chat = new Chat();
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        CountDownLatch started = new CountDownLatch(1);
        Thread waiter = Thread.ofVirtual().start(() -> {
            started.countDown();
            try {
                chat.await(0, Duration.ofHours(1));
            } catch (InterruptedException e) {
                thrown.set(e);
            }
        });
        started.await();
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (waiter.getState() != Thread.State.TIMED_WAITING && System.nanoTime() - deadline < 0) {
            Thread.sleep(1);
        }
        assertThat(waiter.getState()).as("waiter blocked in await").isEqualTo(Thread.State.TIMED_WAITING);
        waiter.interrupt();
        assertThat(waiter.join(Duration.ofSeconds(10))).as("waiter returned promptly").isTrue();
        assertThat(thrown.get()).isInstanceOf(InterruptedException.class);
    }

    @Test
    void awaitOnAnInterruptedThreadThrowsWithoutWaiting() {
        Chat chat = new Chat();
        Thread.currentThread().interrupt();
        try {
            assertThatThrownBy(() -> chat.await(0, Duration.ofHours(1))).isInstanceOf(InterruptedException.class);
        } finally {
            Thread.interrupted();
        }
    }

    /** Many writers append at once: nothing is lost, and each writer's messages keep their order. */
    @RepeatedTest(20)
    void concurrentWritersLoseNothingAndKeepPerWriterOrder() throws Exception {
        int writers = 32;
        int perWriter = 200;
        Chat chat = new Chat();
        CountDownLatch start = new CountDownLatch(1);
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int w = 0; w < writers; w++) {
                String sender = "w" + w;
                pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < perWriter; i++) {
                        if (i % 10 == 0) {
                            chat.append(msg(sender, Integer.toString(i)), msg(sender, Integer.toString(i + 1)));
                            i++;
                        } else {
                            chat.append(msg(sender, Integer.toString(i)));
                        }
                    }
                    return null;
                });
            }
            start.countDown();
        }
        assertThat(chat.size()).isEqualTo(writers * perWriter);
        for (int w = 0; w < writers; w++) {
            List<Message> mine = chat.bySender("w" + w);
            assertThat(mine).hasSize(perWriter);
            for (int i = 0; i < perWriter; i++) {
                assertThat(mine.get(i).text()).isEqualTo(Integer.toString(i));
            }
        }
        // A batch appended in one call stays together.
        List<Message> all = chat.messages();
        for (int i = 0; i < all.size(); i++) {
            Message m = all.get(i);
            int n = Integer.parseInt(m.text());
            if (n % 10 == 0) {
                assertThat(all.get(i + 1).sender()).isEqualTo(m.sender());
                assertThat(all.get(i + 1).text()).isEqualTo(Integer.toString(n + 1));
            }
        }
    }

    /** Many waiters, each for its own size, all wake as writers reach it; none misses a signal. */
    @RepeatedTest(20)
    void concurrentWaitersAllWake() throws Exception {
        int waiters = 100;
        int total = 50;
        Chat chat = new Chat();
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<Integer>> results = new ArrayList<>();
            for (int i = 0; i < waiters; i++) {
                int n = i % total;
                results.add(pool.submit(() -> chat.await(n, Duration.ofSeconds(30))));
            }
            List<Future<?>> writers = new ArrayList<>();
            for (int w = 0; w < 5; w++) {
                String sender = "w" + w;
                writers.add(pool.submit(() -> {
                    for (int i = 0; i < total / 5; i++) {
                        chat.append(msg(sender, "m"));
                        Thread.yield();
                    }
                }));
            }
            for (Future<?> f : writers) {
                f.get(30, TimeUnit.SECONDS);
            }
            for (int i = 0; i < waiters; i++) {
                assertThat(results.get(i).get(30, TimeUnit.SECONDS)).isGreaterThan(i % total);
            }
        }
        assertThat(chat.size()).isEqualTo(total);
    }

    /**
     * Two threads take turns through the chat alone: each waits for the other's message, then
     * appends its own. A wake-up lost between a waiter's look at the size and its wait would
     * leave both waiting until the timeout, which the waiter would return with no new message.
     */
    @RepeatedTest(5)
    void turnsTakenThroughAwaitNeverMissAnAppend() throws Exception {
        Chat chat = new Chat();
        int turns = 2000;
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<String>> players = new ArrayList<>();
            for (int p = 0; p < 2; p++) {
                int parity = p;
                players.add(pool.submit(() -> {
                    for (int size = parity; size < turns; size += 2) {
                        if (size > 0) {
                            int seen = chat.await(size - 1, Duration.ofSeconds(10));
                            if (seen < size) {
                                return "player " + parity + " woke with " + seen + " messages, waiting for " + size;
                            }
                        }
                        chat.append(msg("p" + parity, Integer.toString(size)));
                    }
                    return null;
                }));
            }
            for (Future<String> f : players) {
                assertThat(f.get(60, TimeUnit.SECONDS)).isNull();
            }
        }
        assertThat(chat.messages()).extracting(Message::text).first().isEqualTo("0");
        assertThat(chat.size()).isEqualTo(turns);
        assertThat(chat.get(turns - 1).text()).isEqualTo(Integer.toString(turns - 1));
    }

    /** Readers running beside a writer always see a consistent prefix of what was appended. */
    @RepeatedTest(10)
    void readersSeeConsistentSnapshots() throws Exception {
        Chat chat = new Chat();
        AtomicReference<String> failure = new AtomicReference<>();
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            pool.submit(() -> {
                for (int i = 0; i < 2000; i++) {
                    chat.append(msg("w", Integer.toString(i)));
                }
            });
            for (int r = 0; r < 4; r++) {
                pool.submit(() -> {
                    for (int round = 0; round < 200; round++) {
                        List<Message> snap = chat.since(0);
                        for (int i = 0; i < snap.size(); i++) {
                            if (!snap.get(i).text().equals(Integer.toString(i))) {
                                failure.set("index " + i + " held " + snap.get(i).text());
                            }
                        }
                        int size = chat.size();
                        if (size > 0 && !chat.get(size - 1).text().equals(Integer.toString(size - 1))) {
                            failure.set("get(" + (size - 1) + ") out of order");
                        }
                        Thread.yield();
                    }
                });
            }
        }
        assertThat(failure.get()).isNull();
        assertThat(chat.size()).isEqualTo(2000);
    }
}
