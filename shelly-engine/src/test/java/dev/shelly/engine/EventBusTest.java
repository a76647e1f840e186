package dev.shelly.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

class EventBusTest {

    sealed interface Ev permits Ping, Pong {}

    record Ping(int n) implements Ev {}

    record Pong(int n) implements Ev {}

    @Test
    void everySubscriberGetsEveryEventInOrder() {
        List<Ev> a = new CopyOnWriteArrayList<>();
        List<Ping> b = new CopyOnWriteArrayList<>();
        try (EventBus<Ev> bus = new EventBus<>()) {
            bus.subscribe(a::add);
            bus.subscribe(Ping.class, b::add);
            for (int i = 0; i < 100; i++) {
                bus.publish(i % 2 == 0 ? new Ping(i) : new Pong(i));
            }
        }
        assertThat(a).hasSize(100);
        for (int i = 0; i < 100; i++) {
            assertThat(a.get(i)).isEqualTo(i % 2 == 0 ? new Ping(i) : new Pong(i));
        }
        assertThat(b).extracting(Ping::n).containsExactlyElementsOf(
                java.util.stream.IntStream.range(0, 50).map(i -> i * 2).boxed().toList());
    }

    @Test
    void aSlowSubscriberNeverBlocksThePublisherAndCountsWhatItMissed() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        List<Ev> slow = new CopyOnWriteArrayList<>();
        List<Ev> fast = new CopyOnWriteArrayList<>();
        try (EventBus<Ev> bus = new EventBus<>(10)) {
            EventBus.Subscription stuck = bus.subscribe(e -> {
                try {
                    release.await();
                } catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
                slow.add(e);
            });
            bus.subscribe(fast::add);
            Thread publisher = Thread.ofVirtual().start(() -> {
                for (int i = 0; i < 1000; i++) {
                    bus.publish(new Ping(i));
                }
            });
            assertThat(publisher.join(java.time.Duration.ofSeconds(10))).as("publisher finished while a subscriber hangs").isTrue();
            assertThat(stuck.dropped()).isBetween(989L, 990L);
            release.countDown();
        }
        assertThat(slow).hasSizeBetween(10, 11);
        assertThat(fast).hasSizeGreaterThanOrEqualTo(10);
    }

    @Test
    void aFailingSubscriberKeepsReceiving() {
        List<Ev> seen = new CopyOnWriteArrayList<>();
        try (EventBus<Ev> bus = new EventBus<>()) {
            bus.subscribe(e -> {
                seen.add(e);
                throw new IllegalStateException("boom");
            });
            bus.publish(new Ping(1));
            bus.publish(new Ping(2));
        }
        assertThat(seen).containsExactly(new Ping(1), new Ping(2));
    }

    @Test
    void aCancelledSubscriptionStopsReceiving() throws Exception {
        List<Ev> seen = new CopyOnWriteArrayList<>();
        CountDownLatch first = new CountDownLatch(1);
        try (EventBus<Ev> bus = new EventBus<>()) {
            EventBus.Subscription s = bus.subscribe(e -> {
                seen.add(e);
                first.countDown();
            });
            bus.publish(new Ping(1));
            assertThat(first.await(10, TimeUnit.SECONDS)).isTrue();
            s.close();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (bus.subscriberCount() > 0 && System.nanoTime() - deadline < 0) {
                Thread.sleep(1);
            }
            assertThat(bus.subscriberCount()).isZero();
            bus.publish(new Ping(2));
        }
        assertThat(seen).containsExactly(new Ping(1));
    }

    @RepeatedTest(20)
    void aSubscriptionRacingCloseEndsItsThreadToo() throws Exception {
        EventBus<Ev> bus = new EventBus<>();
        CountDownLatch go = new CountDownLatch(1);
        Thread subscriber = Thread.ofVirtual().start(() -> {
            try {
                go.await();
                for (int i = 0; i < 100; i++) {
                    bus.subscribe(e -> { });
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (IllegalStateException closed) {
                // the bus closed first: no subscription was made
            }
        });
        go.countDown();
        bus.close();
        assertThat(subscriber.join(java.time.Duration.ofSeconds(10))).isTrue();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (bus.subscriberCount() > 0 && System.nanoTime() - deadline < 0) {
            Thread.sleep(1);
        }
        assertThat(bus.subscriberCount()).as("every subscription's thread ended").isZero();
    }

    @RepeatedTest(5)
    void concurrentPublishersAndSubscribers() throws Exception {
        int publishers = 8;
        int each = 500;
        List<List<Ev>> received = new CopyOnWriteArrayList<>();
        try (EventBus<Ev> bus = new EventBus<>(publishers * each)) {
            for (int s = 0; s < 4; s++) {
                List<Ev> mine = new CopyOnWriteArrayList<>();
                received.add(mine);
                bus.subscribe(mine::add);
            }
            try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
                for (int p = 0; p < publishers; p++) {
                    int base = p * each;
                    pool.submit(() -> {
                        for (int i = 0; i < each; i++) {
                            bus.publish(new Ping(base + i));
                        }
                    });
                }
                pool.shutdown();
                assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
            }
        }
        for (List<Ev> mine : received) {
            assertThat(mine).hasSize(publishers * each);
            // Each publisher's events arrive in the order it published them.
            for (int p = 0; p < publishers; p++) {
                int lo = p * each;
                List<Integer> fromP = mine.stream().map(e -> ((Ping) e).n()).filter(n -> n >= lo && n < lo + each).toList();
                assertThat(fromP).isSorted();
            }
        }
    }
}
