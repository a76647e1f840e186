package dev.shelly.agent.internal;

import dev.shelly.agent.RunContext;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntFunction;
import java.util.function.UnaryOperator;

/**
 * Internal, not API. Runs tasks concurrently, each on its own virtual thread, and joins them in
 * order: the one structured-concurrency utility behind an agent's tool turn, {@code delegate},
 * a team's concurrent step and the timeout middleware.
 *
 * <ul>
 *   <li>Every task settles exactly once, as a {@link Outcome.Success}, a {@link Outcome.Failure},
 *       a {@link Outcome.Cancelled} (it ended, by any exception, after the fan-out interrupted
 *       it) or an {@link Outcome.Abandoned} (it had not ended a grace period after it was
 *       interrupted). The first writer wins: a task finishing after it was abandoned is dropped.
 *   <li>With {@link #failFast(boolean) failFast}, the first failure interrupts the other tasks.
 *       Interrupting the joining thread, or reaching the {@link #deadline(Duration) deadline},
 *       interrupts them all.
 *   <li>Interrupted tasks get the {@link #grace(Duration) grace} to stop; then the rest are
 *       abandoned.
 *   <li>A single task runs on the caller's own thread (unless a deadline is set or
 *       {@link #inlineSingle(boolean) inlineSingle} is off): no thread hand-off at all.
 * </ul>
 *
 * @param <T> what a task returns
 */
public final class FanOut<T> {
    /** How long interrupted tasks may take to stop, unless set otherwise. */
    public static final Duration DEFAULT_GRACE = RunContext.DEFAULT_CANCEL_GRACE;

    /** The slots of a run's outcomes. */
    private static final VarHandle SLOTS = MethodHandles.arrayElementVarHandle(Outcome[].class);

    private final List<? extends Callable<? extends T>> tasks;
    private boolean failFast;
    private Duration grace = DEFAULT_GRACE;
    private Duration deadline;
    private boolean inlineSingle = true;
    private IntFunction<String> names;
    private UnaryOperator<Runnable> propagation;
    private Settled<T> onSettled;

    private FanOut(List<? extends Callable<? extends T>> tasks) {
        this.tasks = tasks;
    }

    /**
     * A fan-out of tasks, joined in this order.
     *
     * @param tasks the tasks; none null
     * @param <T> what a task returns
     * @return the fan-out, not started
     */
    public static <T> FanOut<T> of(List<? extends Callable<? extends T>> tasks) {
        if (tasks == null) {
            throw new IllegalArgumentException("FanOut.of tasks must not be null");
        }
        List<? extends Callable<? extends T>> copy;
        try {
            copy = List.copyOf(tasks); // one pass, which refuses a null task
        } catch (NullPointerException e) {
            throw tasks.contains(null)
                    ? new IllegalArgumentException("FanOut.of tasks[" + tasks.indexOf(null) + "] must not be null") : e;
        }
        return new FanOut<>(copy);
    }

    /**
     * Whether the first failure interrupts the other tasks; off by default.
     *
     * @param value true to cancel the rest on the first failure
     * @return this fan-out
     */
    public FanOut<T> failFast(boolean value) {
        this.failFast = value;
        return this;
    }

    /**
     * How long interrupted tasks may take to stop before they are abandoned;
     * {@link #DEFAULT_GRACE} unless set.
     *
     * @param value the grace; not negative
     * @return this fan-out
     */
    public FanOut<T> grace(Duration value) {
        if (value == null || value.isNegative()) {
            throw new IllegalArgumentException("FanOut.grace must not be null or negative, was " + value);
        }
        this.grace = value;
        return this;
    }

    /**
     * How long the tasks may take in all; at the deadline they are interrupted, as on a caller's
     * interrupt, and {@link Joined#timedOut()} is true. A deadline runs even a single task on a
     * thread of its own.
     *
     * @param value the deadline; positive
     * @return this fan-out
     */
    public FanOut<T> deadline(Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException("FanOut.deadline must be positive, was " + value);
        }
        this.deadline = value;
        return this;
    }

    /**
     * Whether a single task runs on the caller's thread; on by default.
     *
     * @param value false to fork even a single task
     * @return this fan-out
     */
    public FanOut<T> inlineSingle(boolean value) {
        this.inlineSingle = value;
        return this;
    }

    /**
     * Names the tasks' threads; unnamed unless set.
     *
     * @param value the thread name of task i
     * @return this fan-out
     */
    public FanOut<T> names(IntFunction<String> value) {
        this.names = value;
        return this;
    }

    /**
     * Wraps the work of each forked thread, on the joining thread, just before the thread starts:
     * how a run's observers carry what they keep on the joining thread (a current span, MDC
     * entries) over to the task's thread. A task run inline on the caller's thread is not
     * wrapped. Not wrapped unless set.
     *
     * @param value the wrapping, or null for none
     * @return this fan-out
     */
    public FanOut<T> propagate(UnaryOperator<Runnable> value) {
        this.propagation = value;
        return this;
    }

    /**
     * Called exactly once per task as it settles, on the thread that settled it (the task's own,
     * or the joining thread for an abandoned task and for one a fail-fast cancel came before it
     * started). {@link #join()} returns after every call has
     * begun, and after every call by a task that ended within the grace has returned.
     *
     * @param value the callback
     * @return this fan-out
     */
    public FanOut<T> onSettled(Settled<T> value) {
        this.onSettled = value;
        return this;
    }

    /**
     * Runs the tasks and waits for every one to settle. Never throws for a task's failure. When
     * the calling thread is interrupted the tasks are cancelled, the join returns after the grace
     * at most, and the caller's interrupt flag is left set.
     *
     * @return the outcomes, in task order
     */
    public Joined<T> join() {
        int n = tasks.size();
        if (n == 0) {
            return new Joined<>(List.of(), -1, Thread.currentThread().isInterrupted(), false, true);
        }
        if (n == 1 && inlineSingle && deadline == null) {
            return inline();
        }
        return new Run().join();
    }

    private Joined<T> inline() {
        Outcome<T> outcome;
        int firstFailure = -1;
        try {
            T value = tasks.getFirst().call(); // before the Success is made, as in a forked task
            outcome = new Outcome.Success<>(value);
        } catch (Throwable e) {
            if (Thread.currentThread().isInterrupted() || e instanceof InterruptedException
                    || e instanceof CancellationException) {
                outcome = new Outcome.Cancelled<>(-1);
            } else {
                outcome = new Outcome.Failure<>(e);
                firstFailure = 0;
            }
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
        }
        if (onSettled != null) {
            onSettled.settled(0, outcome);
        }
        return new Joined<>(List.of(outcome), firstFailure, Thread.currentThread().isInterrupted(), false,
                outcome instanceof Outcome.Success<T>);
    }

    /** One forked run: its threads, outcomes and the join's wait. */
    private final class Run {
        private final int n = tasks.size();
        /** Each task's outcome once settled, set by compare-and-set ({@link #SLOTS}): the first writer wins. */
        @SuppressWarnings("unchecked")
        private final Outcome<T>[] outcomes = (Outcome<T>[]) new Outcome<?>[n];
        /** Each task's thread once started; read by {@link #cancel}, which may run while the rest start. */
        private final AtomicReferenceArray<Thread> threads = new AtomicReferenceArray<>(n);
        private final AtomicInteger firstFailure = new AtomicInteger(-1);
        private final ReentrantLock lock = new ReentrantLock();
        private final Condition allSettled = lock.newCondition();
        private final AtomicInteger unsettled = new AtomicInteger(n);
        /** The tasks settled otherwise than as a success: few, so that settling stays uncontended. */
        private final AtomicInteger unsucceeded = new AtomicInteger();
        /** Set before the fan-out interrupts its tasks: -1 for the caller or the deadline, else the failed task. */
        private volatile int cancelCause = Integer.MIN_VALUE;

        Joined<T> join() {
            @SuppressWarnings("unchecked")
            Work<T>[] works = (Work<T>[]) new Work<?>[n];
            for (int i = 0; i < n; i++) {
                works[i] = Work.given(tasks, i, this); // all given, or none, before any starts
            }
            start(works);
            boolean interrupted = false;
            boolean timedOut = false;
            long deadlineAt = deadline == null ? 0 : System.nanoTime() + TimeUnit.NANOSECONDS.convert(deadline);
            lock.lock();
            try {
                while (unsettled.get() > 0) {
                    if (failFast && firstFailure.get() >= 0) {
                        break; // the failure cancelled the others: they get the grace below
                    }
                    if (deadline == null) {
                        allSettled.await();
                    } else {
                        long left = deadlineAt - System.nanoTime();
                        if (left <= 0) {
                            timedOut = true;
                            break;
                        }
                        allSettled.awaitNanos(left);
                    }
                }
            } catch (InterruptedException e) {
                interrupted = true;
            } finally {
                lock.unlock();
            }
            if (interrupted || timedOut) {
                cancel(-1, -1);
            }
            if (!awaitGrace()) {
                interrupted = true;
            }
            if (unsettled.get() > 0) {
                for (int i = 0; i < n; i++) {
                    settle(i, new Outcome.Abandoned<>());
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            // Every slot is set, and never again (a later writer loses): read through a view, not
            // copied. The count read above, or the abandon's failed compare-and-sets, made them visible.
            return new Joined<>(Collections.unmodifiableList(Arrays.asList(outcomes)), firstFailure.get(), interrupted,
                    timedOut, unsucceeded.get() == 0);
        }

        /**
         * Starts the tasks' threads in task order, each made as its turn comes, so that the first
         * tasks run while the rest are made. A task may fail, and cancel the others, meanwhile: a
         * thread is published before it starts, so a cancel either finds it and interrupts it, or
         * came before its task began, which then settles as cancelled itself ({@link Work#run});
         * the tasks not started by the time of a cancel are settled here.
         */
        private void start(Work<T>[] works) {
            Thread.Builder unnamed = Thread.ofVirtual(); // one builder for every task without a name
            int i = 0;
            try {
                for (; i < n; i++) {
                    int cause = cancelCause;
                    if (cause != Integer.MIN_VALUE) {
                        settle(i, new Outcome.Cancelled<>(cause));
                        continue;
                    }
                    Thread.Builder builder = names == null ? unnamed : Thread.ofVirtual().name(names.apply(i));
                    Thread thread = builder.unstarted(propagation == null ? works[i] : propagation.apply(works[i]));
                    threads.set(i, thread);
                    thread.start();
                }
            } catch (RuntimeException | Error e) {
                // A name, a wrapping or a start failed: the join throws, once what did start was
                // cancelled and had the grace to stop.
                cancel(-1, -1);
                for (; i < n; i++) {
                    settle(i, new Outcome.Cancelled<>(-1));
                }
                if (!awaitGrace()) {
                    Thread.currentThread().interrupt();
                }
                throw e;
            }
        }

        /** Waits up to the grace for what is still running; returns false when interrupted meanwhile. */
        private boolean awaitGrace() {
            long until = System.nanoTime() + TimeUnit.NANOSECONDS.convert(grace);
            lock.lock();
            try {
                while (unsettled.get() > 0) {
                    long left = until - System.nanoTime();
                    if (left <= 0) {
                        return true;
                    }
                    allSettled.awaitNanos(left);
                }
                return true;
            } catch (InterruptedException e) {
                return false;
            } finally {
                lock.unlock();
            }
        }

        // Work.run calls the methods below out of line: its frame is under every model call of the task.

        private Outcome<T> failed(Throwable e) {
            int cause = cancelCause;
            return cause != Integer.MIN_VALUE ? new Outcome.Cancelled<>(cause) : new Outcome.Failure<>(e);
        }

        private void ran(int i, Outcome<T> outcome) {
            if (settle(i, outcome) && outcome instanceof Outcome.Failure<T> && failFast
                    && firstFailure.compareAndSet(-1, i)) {
                cancel(i, i);
            } else if (outcome instanceof Outcome.Failure<T>) {
                firstFailure.compareAndSet(-1, i);
            }
        }

        /** Interrupts every task but one, remembering why first. */
        private void cancel(int cause, int except) {
            if (cancelCause == Integer.MIN_VALUE) {
                cancelCause = cause;
            }
            for (int i = 0; i < n; i++) {
                Thread thread = threads.get(i);
                if (i != except && thread != null && (Outcome<?>) SLOTS.getVolatile(outcomes, i) == null) {
                    thread.interrupt();
                }
            }
            lock.lock();
            try {
                allSettled.signalAll();
            } finally {
                lock.unlock();
            }
        }

        /** Settles a task unless it already is; the first writer wins. */
        private boolean settle(int i, Outcome<T> outcome) {
            // Counted before the slot is set (and taken back if another writer won), so that a join
            // that sees the slot also sees the count.
            boolean success = outcome instanceof Outcome.Success<T>;
            if (!success) {
                unsucceeded.incrementAndGet();
            }
            if (!SLOTS.compareAndSet(outcomes, i, (Outcome<?>) null, (Outcome<?>) outcome)) {
                if (!success) {
                    unsucceeded.decrementAndGet();
                }
                return false;
            }
            try {
                if (onSettled != null) {
                    onSettled.settled(i, outcome);
                }
            } finally {
                // Only the last task takes the lock, to wake the join: many tasks settling at once
                // do not queue on it. The join reads the count under the lock, so it cannot miss
                // the wake-up.
                if (unsettled.decrementAndGet() == 0) {
                    lock.lock();
                    try {
                        allSettled.signalAll();
                    } finally {
                        lock.unlock();
                    }
                }
            }
            return true;
        }
    }

    /**
     * A task that is its own thread's work: a fan-out starts it as it is, so that it makes no
     * object per task and the task's own frame is the first under its thread's (a waiting task's
     * frames are kept on the heap). Any other {@link Callable} is wrapped in one. A work is given
     * to one fan-out that forks it; make a new one per fan-out (a lone task run on the caller's
     * thread is called, not given).
     *
     * @param <T> what it returns
     */
    abstract static class Work<T> implements Callable<T>, Runnable {
        private static final VarHandle FAN;

        static {
            try {
                FAN = MethodHandles.lookup().findVarHandle(Work.class, "fan", FanOut.Run.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        /** The run it was given to, set once by compare-and-set ({@link #FAN}). */
        private FanOut<T>.Run fan;
        private int slot;

        /** Makes a task. */
        Work() {}

        /**
         * Does the task.
         *
         * @return its value, a {@code T}; declared {@code Object} so that the thread's work calls
         *     it directly, with no bridge method between
         * @throws Exception when it fails
         */
        protected abstract Object work() throws Exception;

        @SuppressWarnings("unchecked")
        @Override
        public final T call() throws Exception {
            return (T) work();
        }

        /** {@return its index among its fan-out's tasks, from the fork on; 0 for a lone task called on the caller's thread} */
        final int slot() {
            return slot;
        }

        /**
         * Task {@code i} as a work given to a fan-out's run; when it was already given to a
         * fan-out, the tasks before it are taken back and nothing is given.
         */
        @SuppressWarnings("unchecked")
        private static <T> Work<T> given(List<? extends Callable<? extends T>> tasks, int i, FanOut<T>.Run fan) {
            Callable<? extends T> task = tasks.get(i);
            Work<T> work = task instanceof Work<?> w ? (Work<T>) w : new Adapted<>(task);
            if (!FAN.compareAndSet(work, null, fan)) {
                for (int j = 0; j < i; j++) {
                    if (tasks.get(j) instanceof Work<?> before) {
                        FAN.compareAndSet(before, fan, null);
                    }
                }
                throw new IllegalStateException("FanOut task " + i + " is a work already given to a fan-out; "
                        + "make a new one per fan-out");
            }
            work.slot = i;
            return work;
        }

        /** Runs the task on its thread and settles it, unless the fan-out was cancelled before it began. */
        @Override
        public final void run() {
            // This frame is under every wait of the task: what comes before and after the work is
            // called out of line, so that no compiler makes this frame room for it.
            if (fan.cancelCause != Integer.MIN_VALUE) {
                OutOfLine.run(Work::cancelled, this);
                return;
            }
            Object value;
            try {
                value = work();
            } catch (Throwable e) {
                OutOfLine.run(Work::failed, this, e);
                return;
            }
            OutOfLine.run(Work::ran, this, value);
        }

        /** Settles the task as cancelled before it began. */
        private void cancelled() {
            fan.settle(slot, new Outcome.Cancelled<>(fan.cancelCause));
        }

        /** Settles the task with the value it returned. */
        @SuppressWarnings("unchecked")
        private void ran(Object value) {
            fan.ran(slot, new Outcome.Success<>((T) value));
        }

        /** Settles the task with what it failed with. */
        private void failed(Throwable e) {
            fan.ran(slot, fan.failed(e));
        }
    }

    /** Any other task, as a fan-out runs it. */
    private static final class Adapted<T> extends Work<T> {
        private final Callable<? extends T> task;

        Adapted(Callable<? extends T> task) {
            this.task = task;
        }

        @Override
        protected Object work() throws Exception {
            return task.call();
        }
    }

    /**
     * How one task ended.
     *
     * @param <T> what a task returns
     */
    public sealed interface Outcome<T> {
        /**
         * It returned.
         *
         * @param value what it returned
         * @param <T> what a task returns
         */
        record Success<T>(T value) implements Outcome<T> {}

        /**
         * It threw, not because the fan-out interrupted it.
         *
         * @param error what it threw
         * @param <T> what a task returns
         */
        record Failure<T>(Throwable error) implements Outcome<T> {}

        /**
         * It ended after the fan-out interrupted it.
         *
         * @param because -1 when the caller was interrupted or the deadline passed, else the index
         *     of the failed task that cancelled the rest
         * @param <T> what a task returns
         */
        record Cancelled<T>(int because) implements Outcome<T> {}

        /**
         * It was interrupted and had not ended within the grace; it is left to finish alone and
         * whatever it returns later is dropped.
         *
         * @param <T> what a task returns
         */
        record Abandoned<T>() implements Outcome<T> {}
    }

    /**
     * What a join found.
     *
     * @param outcomes one per task, in task order; read-only
     * @param firstFailure the index of the first task that failed, or -1
     * @param interrupted whether the joining thread was interrupted (its flag is left set)
     * @param timedOut whether the deadline passed before every task settled
     * @param allSucceeded whether every outcome is a {@link Outcome.Success}: a caller that
     *     only needs to know need not look at each
     * @param <T> what a task returns
     */
    public record Joined<T>(List<Outcome<T>> outcomes, int firstFailure, boolean interrupted, boolean timedOut,
            boolean allSucceeded) {}

    /**
     * Told of each task's outcome as it settles.
     *
     * @param <T> what a task returns
     */
    @FunctionalInterface
    public interface Settled<T> {
        /**
         * A task settled.
         *
         * @param index the task's index
         * @param outcome how it ended
         */
        void settled(int index, Outcome<T> outcome);
    }
}
