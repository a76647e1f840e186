package dev.shelly.chats;

import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.RandomAccess;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A conversation: an ordered, append-only list of messages that many threads may share.
 *
 * <p>Every method is thread-safe. Appends are atomic: the messages of one {@link #append} call
 * stay together and in order. Reads return immutable snapshots, never live views. A thread may
 * {@linkplain #await wait} for the chat to grow; each append wakes every waiter. Reads and appends
 * hold the chat's monitor for short sections that never block; a thread that waits in
 * {@code await} holds no monitor, so a waiting virtual thread is not pinned.
 *
 * <p><b>Entries.</b> The chat stamps every message it is given with an {@linkplain Entry#id() id}
 * and the {@linkplain Entry#created() time} it was appended, so that an application can sync a
 * view or an audit log by id ({@link #entries()}). The stamps are the chat's, not the message's:
 * a {@link Message} stays a value compared by its content, and models never see the stamps. An
 * engine's session keeps them in its saved file; {@link #ofEntries} restores a chat with them.
 * An append only notes its time; the entries are made when they are first read, and keep the
 * same ids and times from then on.
 */
public final class Chat {
    private static final AtomicLong IDS = new AtomicLong();
    /** The random half of every message id this process stamps, and its dash, so that ids of two processes differ. */
    private static final String PROCESS = HexFormat.of().toHexDigits(new SecureRandom().nextLong()) + "-";
    private static final AtomicLong MESSAGES = new AtomicLong();
    private static final long NANOS = 1_000_000_000L;
    private static final Message[] NONE = {};

    private final long number = IDS.incrementAndGet();
    /** {@code chat-} and {@link #number} in base 36, made when first asked for. */
    private String id;
    // Reads and appends hold the chat's monitor: short sections that never block inside, so a
    // virtual thread is not pinned for long, and a chat carries no lock object. Waiters wait under
    // a lock of their own, made by the first await, which most chats never see.
    private WaitLock waitLock;
    /** How many threads wait in {@link #await}; changed under {@link #waitLock}. */
    private volatile int waiters;
    /**
     * The messages, in order: the first {@link #count} of an array that is only ever appended to
     * (a full one is copied to a larger one), so that a {@link Snapshot} of the first n shares it.
     */
    private Message[] items = NONE;
    private int count;
    /**
     * The entries of the first messages, made when they were first read (null until then); the
     * messages after them have their append times in {@link #appended} until they are read.
     */
    private List<Entry> entries;
    /**
     * When the messages that have no entry yet were appended: one time per append, in nanoseconds
     * since the epoch (so that an append keeps no object), and the index of its first message;
     * {@link #appends} of them. The first append's in two fields (a waiting run's chat has had
     * one append), the others' in an array of pairs (the time, then the index) made at the second
     * append and doubled as needed.
     */
    private long firstAt;
    private int firstFrom;
    private long[] appended;
    private int appends;

    /**
     * A message as a chat keeps it: stamped with an id and the time it was appended.
     *
     * @param id unique to this message among every chat of every process (a fresh stamp is 16
     *     hex digits, {@code '-'} and a counter in base 36; a session saved before messages had
     *     ids gives its messages the session id, {@code '#'} and their index)
     * @param created when the message was appended
     * @param message the message
     */
    public record Entry(String id, Instant created, Message message) {
        /** Validates. */
        public Entry {
            Checks.requireText(id, "Chat.Entry.id");
            Checks.requireNonNull(created, "Chat.Entry.created");
            Checks.requireNonNull(message, "Chat.Entry.message");
        }

        /**
         * A message stamped now with a fresh id.
         *
         * @param message the message
         * @return the entry
         */
        public static Entry stamp(Message message) {
            return stamp(message, Instant.now(), MESSAGES.incrementAndGet());
        }

        /** A message stamped with a time and the next number of a block taken for it. */
        static Entry stamp(Message message, Instant at, long number) {
            return new Entry(base36(PROCESS, number), at, message);
        }
    }

    /** A prefix and a non-negative number in base 36, built in one buffer (Long.toString takes a scratch one too). */
    private static String base36(String prefix, long number) {
        int digits = 1;
        for (long rest = number / 36; rest > 0; rest /= 36) {
            digits++;
        }
        char[] out = new char[prefix.length() + digits];
        prefix.getChars(0, prefix.length(), out, 0);
        long rest = number;
        for (int i = out.length - 1; i >= prefix.length(); i--) {
            out[i] = Character.forDigit((int) (rest % 36), 36);
            rest /= 36;
        }
        return new String(out);
    }

    /** An empty chat. */
    public Chat() {}

    /**
     * A chat holding the given messages, in order, each stamped now.
     *
     * @param initial the first messages
     */
    public Chat(List<Message> initial) {
        List<Message> checked = Checks.copyOf(initial, "Chat initial");
        if (!checked.isEmpty()) {
            synchronized (this) { // so that a chat handed over without a lock shows its first messages
                add(checked);
                noteAppend(Instant.now(), 0);
            }
        }
    }

    /**
     * A chat holding messages stamped before, with their ids and times: a saved conversation.
     *
     * @param initial the entries, in order
     * @return the chat
     */
    public static Chat ofEntries(List<Entry> initial) {
        Chat chat = new Chat();
        List<Entry> checked = Checks.copyOf(initial, "Chat.ofEntries initial");
        synchronized (chat) { // so that a chat handed over without a lock shows its first messages
            chat.entries = new ArrayList<>(checked.size());
            for (Entry e : checked) {
                chat.entries.add(e);
                chat.add(e.message());
            }
        }
        return chat;
    }

    /**
     * A chat holding the given messages, in order.
     *
     * @param initial the first messages
     * @return the chat
     */
    public static Chat of(Message... initial) {
        return new Chat(Arrays.asList(Checks.requireNonNull(initial, "Chat.of initial")));
    }

    /**
     * This chat's id, unique within the process: {@code chat-} and a counter in base 36. An agent
     * sends it with each model call as the conversation's id.
     *
     * @return the id, such as {@code chat-1a}
     */
    public String id() {
        String known = id;
        if (known == null) {
            // Two threads may both make it; they make equal strings, and a String is safe to share.
            known = base36("chat-", number);
            id = known;
        }
        return known;
    }

    /**
     * Appends one message and wakes every waiter: {@link #append(Message...)} with one message,
     * without the array.
     *
     * @param more the message
     * @return the chat's size after the append
     */
    public int append(Message more) {
        if (more == null) { // as the varargs form says it for one null message
            throw new IllegalArgumentException("Chat.append more[0] must not be null");
        }
        Instant at = Instant.now();
        int size;
        synchronized (this) {
            add(more);
            size = appended(at, count - 1);
        }
        wake();
        return size;
    }

    /**
     * Appends messages atomically and wakes every waiter.
     *
     * @param more the messages, in order
     * @return the chat's size after the append
     */
    public int append(Message... more) {
        Checks.requireNonNull(more, "Chat.append more");
        for (int i = 0; i < more.length; i++) {
            if (more[i] == null) {
                throw new IllegalArgumentException("Chat.append more[" + i + "] must not be null");
            }
        }
        Instant at = Instant.now(); // one clock read for the batch: the messages arrive together
        int size;
        synchronized (this) {
            int first = count;
            for (Message m : more) {
                add(m);
            }
            size = appended(at, first);
        }
        wake();
        return size;
    }

    /**
     * Appends messages atomically and wakes every waiter.
     *
     * @param more the messages, in order
     * @return the chat's size after the append
     */
    public int append(List<Message> more) {
        List<Message> checked = Checks.copyOf(more, "Chat.append more");
        Instant at = Instant.now(); // one clock read for the batch: the messages arrive together
        int size;
        synchronized (this) {
            int first = count;
            add(checked);
            size = appended(at, first);
        }
        wake();
        return size;
    }

    /** Appends one message to the array, under the monitor. */
    private void add(Message m) {
        if (count == items.length) {
            items = Arrays.copyOf(items, Math.max(4, count + (count >> 1)));
        }
        items[count++] = m;
    }

    private void add(List<Message> more) {
        for (Message m : more) {
            add(m);
        }
    }

    /** Notes the time of an append whose first message is at an index; the new size. Under the monitor. */
    private int appended(Instant at, int first) {
        if (count > first) {
            noteAppend(at, first);
        }
        return count;
    }

    private void noteAppend(Instant at, int first) {
        long nanos = at.getEpochSecond() * NANOS + at.getNano();
        if (appends == 0) {
            firstAt = nanos;
            firstFrom = first;
            appends = 1;
            return;
        }
        if (appended == null) {
            appended = new long[4];
        } else if (2 * (appends - 1) == appended.length) {
            appended = Arrays.copyOf(appended, appended.length * 2);
        }
        appended[2 * (appends - 1)] = nanos;
        appended[2 * (appends - 1) + 1] = first;
        appends++;
    }

    /**
     * The number of messages.
     *
     * @return the size
     */
    public int size() {
        synchronized (this) {
            return count;
        }
    }

    /**
     * Whether the chat holds no message.
     *
     * @return true when empty
     */
    public boolean isEmpty() {
        return size() == 0;
    }

    /**
     * The message at an index.
     *
     * @param index from 0
     * @return the message
     * @throws IndexOutOfBoundsException when there is no message at that index
     */
    public Message get(int index) {
        synchronized (this) {
            if (index < 0 || index >= count) {
                throw new IndexOutOfBoundsException(
                        "no message at index " + index + "; the chat holds " + count);
            }
            return items[index];
        }
    }

    /**
     * The most recent message.
     *
     * @return the last message, or empty when the chat is empty
     */
    public Optional<Message> last() {
        synchronized (this) {
            return count == 0 ? Optional.empty() : Optional.of(items[count - 1]);
        }
    }

    /**
     * Every message, in order, as the chat holds them now: an immutable snapshot that later
     * appends leave as it is. It is a view of the chat's storage rather than a copy, so taking it
     * costs one small object whatever the chat's size (a model request keeps it as it is; see
     * {@link #isSnapshot}).
     *
     * @return the immutable snapshot
     */
    public List<Message> messages() {
        return since(0);
    }

    /**
     * The messages from an offset on, as the chat holds them now: from 0, the snapshot
     * {@link #messages()} gives; from a later offset, an immutable copy.
     *
     * @param offset the first index to include; at or past the end gives an empty list
     * @return the immutable list
     * @throws IllegalArgumentException when the offset is negative
     */
    public List<Message> since(int offset) {
        if (offset < 0) {
            throw new IllegalArgumentException("Chat.since offset must not be negative, was " + offset);
        }
        synchronized (this) {
            if (offset >= count) {
                return List.of();
            }
            // The whole chat is a view of the array; a part of it (rarer) a copy.
            return offset == 0 ? new Snapshot(items, count) : List.copyOf(Arrays.asList(items).subList(offset, count));
        }
    }

    /**
     * A copy of every entry (each message with its id and the time it was appended), in order.
     *
     * @return an unmodifiable copy
     */
    public List<Entry> entries() {
        return entriesSince(0);
    }

    /**
     * A copy of the entries from an offset on: what a view that holds the first {@code offset}
     * messages has not seen yet.
     *
     * @param offset the first index to include; at or past the end gives an empty list
     * @return an unmodifiable copy
     * @throws IllegalArgumentException when the offset is negative
     */
    public List<Entry> entriesSince(int offset) {
        if (offset < 0) {
            throw new IllegalArgumentException("Chat.entriesSince offset must not be negative, was " + offset);
        }
        synchronized (this) {
            stampUnread();
            return entries == null || offset >= entries.size() ? List.of()
                    : List.copyOf(entries.subList(offset, entries.size()));
        }
    }

    /**
     * Makes the entries of the messages read for the first time: each with its append's time and
     * the next number of one block taken for them all. Under the monitor.
     */
    private void stampUnread() {
        int first = entries == null ? 0 : entries.size();
        int unread = count - first;
        if (unread == 0) {
            return;
        }
        if (entries == null) {
            entries = new ArrayList<>(unread);
        }
        long number = MESSAGES.getAndAdd(unread) + 1;
        int append = -1;
        Instant at = null;
        for (int i = first; i < count; i++) {
            if (append + 1 < appends && appendedFrom(append + 1) <= i) {
                while (append + 1 < appends && appendedFrom(append + 1) <= i) {
                    append++;
                }
                long nanos = append == 0 ? firstAt : appended[2 * (append - 1)];
                at = Instant.ofEpochSecond(Math.floorDiv(nanos, NANOS), Math.floorMod(nanos, NANOS));
            }
            entries.add(Entry.stamp(items[i], at, number + i - first));
        }
        appends = 0;
        appended = null;
    }

    /** The index of the first message of the append at a place among the noted ones. */
    private int appendedFrom(int append) {
        return append == 0 ? firstFrom : (int) appended[2 * (append - 1) + 1];
    }

    /**
     * The messages of one sender, in order.
     *
     * @param sender the sender's name
     * @return an unmodifiable list
     */
    public List<Message> bySender(String sender) {
        Checks.requireNonNull(sender, "Chat.bySender sender");
        List<Message> found = new ArrayList<>();
        synchronized (this) {
            for (int i = 0; i < count; i++) {
                Message m = items[i];
                if (m.sender().equals(sender)) {
                    found.add(m);
                }
            }
        }
        return Collections.unmodifiableList(found);
    }

    /**
     * The text of the first system message.
     *
     * @return the system prompt, or empty when there is no system message
     */
    public Optional<String> systemPrompt() {
        synchronized (this) {
            for (int i = 0; i < count; i++) {
                Message m = items[i];
                if (m.role() == Role.SYSTEM) {
                    return Optional.of(m.text());
                }
            }
            return Optional.empty();
        }
    }

    /**
     * Blocks until the chat holds more than {@code n} messages, or the timeout passes.
     *
     * <p>Returns at once when the chat is already larger than {@code n}.
     *
     * @param n the size to exceed
     * @param timeout how long to wait at most
     * @return the chat's size on return: larger than {@code n} unless the timeout passed
     * @throws InterruptedException at once when the waiting thread is interrupted
     */
    public int await(int n, Duration timeout) throws InterruptedException {
        Checks.requireNonNull(timeout, "Chat.await timeout");
        long nanos = TimeUnit.NANOSECONDS.convert(timeout); // saturates instead of overflowing
        WaitLock waiting = waitLock();
        waiting.lockInterruptibly();
        try {
            // Counted before the size is read: an append that this read misses sees the count and wakes us.
            waiters++;
            try {
                int size;
                while ((size = size()) <= n) {
                    if (nanos <= 0) {
                        break;
                    }
                    nanos = waiting.grown.awaitNanos(nanos);
                }
                return size;
            } finally {
                waiters--;
            }
        } finally {
            waiting.unlock();
        }
    }

    /** The lock waiters wait under, made by the first {@link #await}. */
    private WaitLock waitLock() {
        synchronized (this) {
            if (waitLock == null) {
                waitLock = new WaitLock();
            }
            return waitLock;
        }
    }

    /** The lock waiters wait under, and its condition: signalled after appends while someone waits. */
    private static final class WaitLock extends ReentrantLock {
        final Condition grown = newCondition();
    }

    /**
     * Wakes the waiters after an append, outside the chat's monitor (a waiter holds the wait
     * lock while it reads the size under the monitor). A waiter counts itself before it reads
     * the size, so an append it did not see finds it counted here.
     */
    private void wake() {
        if (waiters > 0) {
            WaitLock waiting = waitLock;
            waiting.lock();
            try {
                waiting.grown.signalAll();
            } finally {
                waiting.unlock();
            }
        }
    }

    /**
     * Whether a list is a chat's snapshot of all its messages ({@link #messages()}):
     * immutable, holding no null, and sharing the chat's storage, so that whoever keeps messages
     * (a model request) may keep it as it is instead of copying it.
     *
     * @param list the list
     * @return true for a chat's snapshot
     * @throws IllegalArgumentException when the list is null
     */
    public static boolean isSnapshot(List<?> list) {
        return Checks.requireNonNull(list, "Chat.isSnapshot list") instanceof Snapshot;
    }

    /**
     * The messages of a chat as they were when taken: a view of the first {@code size} of the
     * chat's array, which an append never changes. Immutable.
     */
    private static final class Snapshot extends AbstractList<Message> implements RandomAccess {
        private final Message[] items;
        private final int size;

        Snapshot(Message[] items, int size) {
            this.items = items;
            this.size = size;
        }

        @Override
        public Message get(int index) {
            Objects.checkIndex(index, size);
            return items[index];
        }

        @Override
        public int size() {
            return size;
        }
    }

    @Override
    public String toString() {
        return "Chat[" + id() + ", " + size() + " messages]";
    }
}
