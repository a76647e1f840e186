package dev.shelly.engine;

import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers events to any number of subscribers without ever blocking the publisher.
 *
 * <p>Each subscriber has its own bounded queue and its own virtual thread, and receives events in
 * the order they were published. A subscriber that cannot keep up loses the events that do not
 * fit its queue — counted in {@link Subscription#dropped()} and logged once — rather than slowing
 * an agent down. A subscriber that throws is logged and keeps receiving.
 *
 * @param <E> the event type
 */
public final class EventBus<E> implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EventBus.class);

    /** The default number of events a subscriber may fall behind by. */
    public static final int DEFAULT_CAPACITY = 10_000;

    private final List<Sub<E>> subscribers = new CopyOnWriteArrayList<>();
    private final int capacity;
    private volatile boolean closed;

    /** A bus whose subscribers may each fall {@link #DEFAULT_CAPACITY} events behind. */
    public EventBus() {
        this(DEFAULT_CAPACITY);
    }

    /**
     * A bus whose subscribers may each fall {@code capacity} events behind.
     *
     * @param capacity each subscriber's queue size
     */
    public EventBus(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("EventBus capacity must be at least 1, was " + capacity);
        }
        this.capacity = capacity;
    }

    /**
     * Subscribes to every event.
     *
     * @param subscriber called on the subscription's own thread, one event at a time
     * @return the subscription, to cancel it or read its drop count
     */
    public Subscription subscribe(Consumer<? super E> subscriber) {
        if (subscriber == null) {
            throw new IllegalArgumentException("EventBus.subscribe subscriber must not be null");
        }
        if (closed) {
            throw new IllegalStateException("the event bus is closed");
        }
        Sub<E> sub = new Sub<>(subscriber, capacity);
        // Started before it is listed, so close() never joins a thread that has not started
        // (Thread.join(Duration) throws on one).
        sub.thread = Thread.ofVirtual().name("shelly-event-subscriber").start(() -> sub.pump(subscribers));
        subscribers.add(sub);
        if (closed) {
            // close() ran between the check above and the add, and did not see this subscription.
            sub.finish();
        }
        return sub;
    }

    /**
     * Subscribes to the events of one type.
     *
     * @param type the event type wanted
     * @param subscriber called for each event of that type
     * @param <T> the type
     * @return the subscription
     */
    public <T extends E> Subscription subscribe(Class<T> type, Consumer<? super T> subscriber) {
        if (type == null || subscriber == null) {
            throw new IllegalArgumentException("EventBus.subscribe needs a type and a subscriber");
        }
        return subscribe(event -> {
            if (type.isInstance(event)) {
                subscriber.accept(type.cast(event));
            }
        });
    }

    /**
     * Hands an event to every subscriber; returns at once.
     *
     * @param event the event
     */
    public void publish(E event) {
        if (event == null || closed) {
            return;
        }
        for (Sub<E> sub : subscribers) {
            sub.offer(event);
        }
    }

    /**
     * How many subscriptions are active.
     *
     * @return the count
     */
    public int subscriberCount() {
        return subscribers.size();
    }

    /** Stops every subscription after it has delivered the events already queued. */
    @Override
    public void close() {
        closed = true;
        for (Sub<E> sub : subscribers) {
            sub.finish();
        }
        for (Sub<E> sub : subscribers) {
            try {
                sub.thread.join(java.time.Duration.ofSeconds(5));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** A subscriber's registration. */
    public interface Subscription extends AutoCloseable {
        /**
         * How many events did not fit this subscriber's queue and were dropped.
         *
         * @return the count
         */
        long dropped();

        /** Stops delivery to this subscriber; events already queued are discarded. */
        @Override
        void close();
    }

    private static final class Sub<E> implements Subscription {
        private static final Object END = new Object();
        private final Consumer<? super E> consumer;
        private final BlockingQueue<Object> queue;
        private final AtomicLong dropped = new AtomicLong();
        private final AtomicBoolean warned = new AtomicBoolean();
        private volatile boolean cancelled;
        private volatile boolean finishing;
        private volatile Thread thread;

        Sub(Consumer<? super E> consumer, int capacity) {
            this.consumer = consumer;
            this.queue = new ArrayBlockingQueue<>(capacity);
        }

        void offer(E event) {
            if (!queue.offer(event)) {
                dropped.incrementAndGet();
                if (warned.compareAndSet(false, true)) {
                    LOG.warn("an event subscriber is too slow: its queue of {} events is full; events are dropped for it",
                            queue.size());
                }
            }
        }

        @SuppressWarnings("unchecked")
        void pump(List<Sub<E>> registry) {
            try {
                while (!cancelled) {
                    if (finishing && queue.isEmpty()) {
                        return;
                    }
                    Object next = queue.take();
                    if (next == END) {
                        return;
                    }
                    try {
                        consumer.accept((E) next);
                    } catch (RuntimeException e) {
                        LOG.warn("an event subscriber failed on {}: {}", next.getClass().getSimpleName(), e.toString());
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                registry.remove(this);
            }
        }

        void finish() {
            finishing = true;
            queue.offer(END);
        }

        @Override
        public long dropped() {
            return dropped.get();
        }

        @Override
        public void close() {
            cancelled = true;
            thread.interrupt();
        }
    }
}
