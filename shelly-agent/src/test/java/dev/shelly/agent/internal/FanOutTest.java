package dev.shelly.agent.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.agent.internal.FanOut.Joined;
import dev.shelly.agent.internal.FanOut.Outcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class FanOutTest {

    @Test
    void tasksRunConcurrentlyAndJoinInOrder() {
        CyclicBarrier all = new CyclicBarrier(3);
        List<Callable<String>> tasks = new ArrayList<>();
        for (String s : List.of("a", "b", "c")) {
            tasks.add(() -> {
                all.await(10, TimeUnit.SECONDS); // only passes when the three run at once
                return s;
            });
        }
        Joined<String> joined = FanOut.of(tasks).join();

        assertThat(joined.outcomes()).containsExactly(new Outcome.Success<>("a"), new Outcome.Success<>("b"),
                new Outcome.Success<>("c"));
        assertThat(joined.firstFailure()).isEqualTo(-1);
        assertThat(joined.interrupted()).isFalse();
        assertThat(joined.timedOut()).isFalse();
        assertThat(joined.allSucceeded()).isTrue();
        assertThatThrownBy(() -> joined.outcomes().set(0, new Outcome.Abandoned<>()))
                .isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void theFirstFailureCancelsTheOthersWhenFailingFast() {
        CountDownLatch started = new CountDownLatch(2);
        IllegalStateException boom = new IllegalStateException("boom");
        List<Callable<String>> tasks = List.of(
                () -> {
                    started.countDown();
                    Thread.sleep(60_000);
                    return "never";
                },
                () -> {
                    started.await();
                    throw boom;
                },
                () -> {
                    started.countDown();
                    new CountDownLatch(1).await();
                    return "never";
                });
        Joined<String> joined = FanOut.of(tasks).failFast(true).join();

        assertThat(joined.outcomes()).containsExactly(new Outcome.Cancelled<>(1), new Outcome.Failure<>(boom),
                new Outcome.Cancelled<>(1));
        assertThat(joined.firstFailure()).isEqualTo(1);
        assertThat(joined.allSucceeded()).isFalse();
        assertThat(Thread.currentThread().isInterrupted()).isFalse();
    }

    @Test
    void withoutFailFastAFailureLeavesTheOthersRunning() {
        CountDownLatch failed = new CountDownLatch(1);
        List<Callable<String>> tasks = List.of(
                () -> {
                    throw new IllegalArgumentException("bad");
                },
                () -> {
                    assertThat(failed.await(10, TimeUnit.SECONDS)).isTrue();
                    return "still done";
                });
        Joined<String> joined = FanOut.<String>of(tasks).onSettled((i, o) -> {
            if (i == 0) {
                failed.countDown();
            }
        }).join();

        assertThat(joined.outcomes().get(0)).isInstanceOf(Outcome.Failure.class);
        assertThat(joined.outcomes().get(1)).isEqualTo(new Outcome.Success<>("still done"));
        assertThat(joined.firstFailure()).isZero();
        assertThat(joined.allSucceeded()).isFalse();
    }

    @Test
    void aTaskThatIgnoresItsInterruptIsAbandonedAfterTheGraceAndItsLateResultDropped() throws Exception {
        AtomicBoolean release = new AtomicBoolean();
        CountDownLatch stubbornStarted = new CountDownLatch(1);
        CountDownLatch stubbornEnded = new CountDownLatch(1);
        AtomicIntegerArray settled = new AtomicIntegerArray(2);
        List<Callable<String>> tasks = List.of(
                () -> {
                    stubbornStarted.countDown();
                    try {
                        while (!release.get()) {
                            Thread.onSpinWait();
                        }
                        return "late";
                    } finally {
                        stubbornEnded.countDown();
                    }
                },
                () -> {
                    stubbornStarted.await();
                    throw new IllegalStateException("fail");
                });
        Joined<String> joined = FanOut.of(tasks).failFast(true).grace(Duration.ofMillis(50))
                .onSettled((i, o) -> settled.incrementAndGet(i)).join();

        assertThat(joined.outcomes().get(0)).isEqualTo(new Outcome.Abandoned<>());
        assertThat(joined.outcomes().get(1)).isInstanceOf(Outcome.Failure.class);
        assertThat(joined.allSucceeded()).isFalse();
        release.set(true);
        assertThat(stubbornEnded.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(settled.get(0)).isEqualTo(1);
        assertThat(settled.get(1)).isEqualTo(1);
    }

    @Test
    void everyTaskSettlesExactlyOnceUnderConcurrentFailures() {
        for (int round = 0; round < 200; round++) {
            int n = 8;
            AtomicIntegerArray settled = new AtomicIntegerArray(n);
            List<Callable<Integer>> tasks = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                int slot = i;
                tasks.add(() -> {
                    int r = ThreadLocalRandom.current().nextInt(4);
                    if (r == 0) {
                        throw new IllegalStateException("task " + slot);
                    }
                    if (r == 1) {
                        Thread.sleep(1);
                    }
                    return slot;
                });
            }
            Joined<Integer> joined = FanOut.of(tasks).failFast(true).onSettled((i, o) -> settled.incrementAndGet(i))
                    .join();

            for (int i = 0; i < n; i++) {
                assertThat(settled.get(i)).as("round %d task %d", round, i).isEqualTo(1);
                Outcome<Integer> o = joined.outcomes().get(i);
                assertThat(o).isNotNull();
                if (o instanceof Outcome.Success<Integer> s) {
                    assertThat(s.value()).isEqualTo(i);
                }
                if (o instanceof Outcome.Cancelled<Integer> c) {
                    assertThat(c.because()).isEqualTo(joined.firstFailure());
                }
            }
            assertThat(joined.allSucceeded()).as("round %d", round)
                    .isEqualTo(joined.outcomes().stream().allMatch(Outcome.Success.class::isInstance));
        }
    }

    /**
     * The threads start one by one while the first tasks already run: a task failing at once
     * cancels the others whether they started before its cancel, while it ran, or not at all.
     * A thread the cancel missed would wait out the grace and be abandoned.
     */
    @Test
    void aTaskFailingWhileTheRestStartCancelsEveryOther() {
        int n = 5_000;
        for (int round = 0; round < 10; round++) {
            IllegalStateException boom = new IllegalStateException("boom");
            List<Callable<String>> tasks = new ArrayList<>();
            tasks.add(() -> {
                throw boom;
            });
            for (int i = 1; i < n; i++) {
                tasks.add(() -> {
                    new CountDownLatch(1).await(); // ends only when interrupted
                    return "never";
                });
            }
            long start = System.nanoTime();
            Joined<String> joined = FanOut.of(tasks).failFast(true).grace(Duration.ofSeconds(20)).join();

            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("round %d", round).isLessThan(Duration.ofSeconds(20));
            assertThat(joined.firstFailure()).isZero();
            assertThat(joined.outcomes().getFirst()).isEqualTo(new Outcome.Failure<>(boom));
            for (int i = 1; i < n; i++) {
                assertThat(joined.outcomes().get(i)).as("round %d task %d", round, i).isEqualTo(new Outcome.Cancelled<>(0));
            }
        }
    }

    /** A thread's name failing halfway through the starts fails the join, once the tasks already started were cancelled. */
    @Test
    void aFailureWhileStartingCancelsWhatStartedBeforeTheJoinThrows() {
        AtomicInteger started = new AtomicInteger();
        AtomicInteger interrupted = new AtomicInteger();
        List<Callable<String>> tasks = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            tasks.add(() -> {
                started.incrementAndGet();
                try {
                    new CountDownLatch(1).await();
                } catch (InterruptedException e) {
                    interrupted.incrementAndGet();
                    throw e;
                }
                return "never";
            });
        }
        FanOut<String> fan = FanOut.of(tasks).grace(Duration.ofSeconds(20)).names(i -> {
            if (i == 500) {
                throw new IllegalStateException("no name for task 500");
            }
            return "task-" + i;
        });

        assertThatThrownBy(fan::join).isInstanceOf(IllegalStateException.class).hasMessage("no name for task 500");
        assertThat(started.get()).isBetween(0, 500);
        assertThat(interrupted.get()).isEqualTo(started.get());
        assertThat(Thread.currentThread().isInterrupted()).isFalse();
    }

    @Test
    void aDeadlineCancelsEvenASingleTaskOnItsOwnThread() {
        Thread caller = Thread.currentThread();
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        List<Callable<String>> tasks = List.of(() -> {
            ranOn.set(Thread.currentThread());
            new CountDownLatch(1).await();
            return "never";
        });
        Joined<String> joined = FanOut.of(tasks).deadline(Duration.ofMillis(50)).join();

        assertThat(joined.timedOut()).isTrue();
        assertThat(joined.interrupted()).isFalse();
        assertThat(joined.outcomes()).containsExactly(new Outcome.Cancelled<>(-1));
        assertThat(ranOn.get()).isNotSameAs(caller);
        assertThat(Thread.currentThread().isInterrupted()).isFalse();
    }

    @Test
    void aSingleTaskRunsOnTheCallersThread() throws Exception {
        for (Thread.Builder builder : List.of(Thread.ofPlatform(), Thread.ofVirtual())) {
            AtomicReference<Thread> ranOn = new AtomicReference<>();
            AtomicReference<Thread> settledOn = new AtomicReference<>();
            AtomicReference<Joined<String>> joined = new AtomicReference<>();
            Thread caller = builder.start(() -> joined.set(FanOut.<String>of(List.of(() -> {
                ranOn.set(Thread.currentThread());
                return "x";
            })).onSettled((i, o) -> settledOn.set(Thread.currentThread())).join()));
            caller.join(10_000);

            assertThat(ranOn.get()).isSameAs(caller);
            assertThat(settledOn.get()).isSameAs(caller);
            assertThat(joined.get().outcomes()).containsExactly(new Outcome.Success<>("x"));
        }
    }

    @Test
    void aSingleTaskCanStillBeForked() {
        Thread caller = Thread.currentThread();
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        FanOut.<String>of(List.of(() -> {
            ranOn.set(Thread.currentThread());
            return "x";
        })).inlineSingle(false).join();

        assertThat(ranOn.get()).isNotSameAs(caller);
    }

    @Test
    void interruptingTheCallerCancelsEveryTaskAndKeepsTheFlag() throws Exception {
        CountDownLatch started = new CountDownLatch(2);
        AtomicReference<Joined<String>> joined = new AtomicReference<>();
        AtomicBoolean flagAfter = new AtomicBoolean();
        Callable<String> blocking = () -> {
            started.countDown();
            new CountDownLatch(1).await();
            return "never";
        };
        Thread caller = Thread.ofPlatform().start(() -> {
            joined.set(FanOut.of(List.of(blocking, blocking)).join());
            flagAfter.set(Thread.currentThread().isInterrupted());
        });
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        caller.interrupt();
        caller.join(10_000);

        assertThat(joined.get().interrupted()).isTrue();
        assertThat(joined.get().outcomes()).containsExactly(new Outcome.Cancelled<>(-1), new Outcome.Cancelled<>(-1));
        assertThat(flagAfter.get()).isTrue();
    }

    @Test
    void aSingleInlineTaskInterruptedCountsAsCancelled() {
        Joined<String> joined = FanOut.<String>of(List.of(() -> {
            Thread.currentThread().interrupt();
            throw new InterruptedException("stop");
        })).join();

        assertThat(joined.outcomes()).containsExactly(new Outcome.Cancelled<>(-1));
        assertThat(joined.interrupted()).isTrue();
        assertThat(joined.allSucceeded()).isFalse();
        assertThat(Thread.interrupted()).isTrue(); // clears the flag for the next test
    }

    @Test
    void noTasksJoinAtOnce() {
        Joined<String> joined = FanOut.of(List.<Callable<String>>of()).join();

        assertThat(joined.outcomes()).isEmpty();
        assertThat(joined.allSucceeded()).isTrue();
        assertThat(FanOut.of(List.<Callable<String>>of(() -> "one")).join().allSucceeded()).isTrue();
    }

    @Test
    void aNullTaskIsRefusedByItsIndex() {
        List<Callable<String>> tasks = new ArrayList<>();
        tasks.add(() -> "a");
        tasks.add(null);

        assertThatThrownBy(() -> FanOut.of(tasks)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("FanOut.of tasks[1] must not be null");
    }

    /** A task that is a Work is its thread's work as it is; it is given to one fan-out, once. */
    @Test
    void aWorkRunsAsItsOwnThreadsWorkAndIsGivenToOneFanOutOnly() {
        List<Thread> ranOn = Collections.synchronizedList(new ArrayList<>());
        class Named extends FanOut.Work<String> {
            private final String name;

            Named(String name) {
                this.name = name;
            }

            @Override
            protected Object work() {
                ranOn.add(Thread.currentThread());
                return name;
            }
        }
        Named a = new Named("a");
        Named b = new Named("b");
        Callable<String> plain = () -> "c";

        Joined<String> joined = FanOut.of(List.of(a, b, plain)).join();

        assertThat(joined.outcomes()).containsExactly(new Outcome.Success<>("a"), new Outcome.Success<>("b"),
                new Outcome.Success<>("c"));
        assertThat(ranOn).hasSize(2).allMatch(Thread::isVirtual).doesNotHaveDuplicates();
        Named fresh = new Named("d");
        assertThatThrownBy(() -> FanOut.<String>of(List.of(fresh, b)).join())
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("FanOut task 1 is a work already given to a fan-out; make a new one per fan-out");
        // The refused fan-out gave back the work before the one it refused.
        assertThat(FanOut.<String>of(List.of(fresh, new Named("e"))).join().outcomes())
                .containsExactly(new Outcome.Success<>("d"), new Outcome.Success<>("e"));
    }
}
