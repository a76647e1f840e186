package dev.shelly.modeladapter;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A completer that retries another one's transient failures with exponential backoff, jitter
 * and the provider's {@code retry-after}, as its {@link RetryPolicy} says.
 *
 * <p>Each retry is logged at WARN (provider, kind, status, attempt, delay; never a key or a
 * prompt) and reported to the {@link RetryListener}. The wait between attempts answers
 * interrupts: an interrupted caller gets a {@link CancellationException} with its interrupt flag
 * set. A streamed completion is retried only while no part of the reply (text, thinking, a tool
 * call) has reached the listener, so a listener never sees the start of a reply twice; with
 * {@link StreamListener#NONE} nothing reaches a listener, so a cut stream is always retried like
 * any other transient failure. Usage deltas do not count: a provider may report usage before any content (Anthropic's
 * {@code message_start} does), and the last usage delta a listener sees is still the total of
 * the attempt that answered.
 */
public final class RetryingCompleter implements Completer {
    private static final Logger LOG = LoggerFactory.getLogger(RetryingCompleter.class);

    private final Completer delegate;
    private final RetryPolicy policy;
    private final RetryListener listener;
    private final Sleeper sleeper;
    private final DoubleSupplier random;

    private RetryingCompleter(Builder b) {
        this.delegate = b.delegate;
        this.policy = b.policy;
        this.listener = b.listener;
        this.sleeper = b.sleeper;
        this.random = b.random;
    }

    /**
     * Wraps a completer with a policy, no listener and real sleeping.
     *
     * @param delegate the completer to retry
     * @param policy when and how long to wait
     * @return the retrying completer
     */
    public static RetryingCompleter of(Completer delegate, RetryPolicy policy) {
        return builder(delegate).policy(policy).build();
    }

    /**
     * Starts a retrying completer around another.
     *
     * @param delegate the completer to retry
     * @return a builder with {@link RetryPolicy#defaults()}
     */
    public static Builder builder(Completer delegate) {
        return new Builder(delegate);
    }

    /**
     * The policy in force.
     *
     * @return the policy
     */
    public RetryPolicy policy() {
        return policy;
    }

    @Override
    public ModelTarget target() {
        return delegate.target();
    }

    @Override
    public ModelResponse complete(ModelRequest request) {
        for (int attempt = 1; ; attempt++) {
            try {
                return delegate.complete(request);
            } catch (ModelException e) {
                waitBeforeRetry(e, attempt, false);
            }
        }
    }

    @Override
    public ModelResponse complete(ModelRequest request, StreamListener streamListener) {
        if (streamListener == null) {
            throw new IllegalArgumentException("RetryingCompleter.complete listener must not be null");
        }
        DeliveredContent content = new DeliveredContent(streamListener);
        for (int attempt = 1; ; attempt++) {
            try {
                return delegate.complete(request, content.listener());
            } catch (ModelException e) {
                waitBeforeRetry(e, attempt, content.delivered());
            }
        }
    }

    private void waitBeforeRetry(ModelException failure, int attempt, boolean deltasDelivered) {
        if (deltasDelivered) {
            throw failure;
        }
        Optional<Duration> delay = policy.delayBeforeRetry(failure, attempt, random.getAsDouble());
        if (delay.isEmpty()) {
            if (failure.retryable() && attempt < policy.maxAttempts()) {
                LOG.atWarn().log(() -> failure.getMessage() + "; not retrying: the provider asked to wait "
                        + failure.retryAfter().orElseThrow().toMillis() + " ms, longer than the "
                        + policy.maxRetryAfter().toMillis() + " ms this policy allows");
            }
            throw failure;
        }
        boolean fromRetryAfter = failure.retryAfter().isPresent();
        RetryEvent event = new RetryEvent(attempt, policy.maxAttempts(), failure, delay.get(), fromRetryAfter);
        LOG.atWarn().log(() -> failure.getMessage() + "; retrying in " + delay.get().toMillis() + " ms"
                + (fromRetryAfter ? " as the provider asked" : "") + " (attempt " + (attempt + 1) + " of "
                + policy.maxAttempts() + ")");
        listener.onRetry(event);
        try {
            sleeper.sleep(delay.get());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            CancellationException cancelled = new CancellationException(
                    "completion cancelled while waiting to retry after: " + failure.getMessage());
            cancelled.initCause(failure);
            throw cancelled;
        }
    }

    @Override
    public String toString() {
        return "RetryingCompleter[" + delegate + ", maxAttempts=" + policy.maxAttempts() + "]";
    }

    /** Configures a {@link RetryingCompleter}. */
    public static final class Builder {
        private final Completer delegate;
        private RetryPolicy policy = RetryPolicy.defaults();
        private RetryListener listener = RetryListener.NONE;
        private Sleeper sleeper = Sleeper.SYSTEM;
        private DoubleSupplier random = () -> ThreadLocalRandom.current().nextDouble();

        private Builder(Completer delegate) {
            if (delegate == null) {
                throw new IllegalArgumentException("RetryingCompleter delegate must not be null");
            }
            this.delegate = delegate;
        }

        /**
         * Sets the policy.
         *
         * @param value the policy
         * @return this builder
         */
        public Builder policy(RetryPolicy value) {
            this.policy = requireNonNull(value, "policy");
            return this;
        }

        /**
         * Sets the listener told about each retry.
         *
         * @param value the listener
         * @return this builder
         */
        public Builder listener(RetryListener value) {
            this.listener = requireNonNull(value, "listener");
            return this;
        }

        /**
         * Sets how to wait between attempts; tests pass one that does not really sleep.
         *
         * @param value the sleeper
         * @return this builder
         */
        public Builder sleeper(Sleeper value) {
            this.sleeper = requireNonNull(value, "sleeper");
            return this;
        }

        /**
         * Sets the source of jitter: numbers in [0, 1).
         *
         * @param value the source
         * @return this builder
         */
        public Builder random(DoubleSupplier value) {
            this.random = requireNonNull(value, "random");
            return this;
        }

        /**
         * Builds the completer.
         *
         * @return the retrying completer
         */
        public RetryingCompleter build() {
            return new RetryingCompleter(this);
        }

        private static <T> T requireNonNull(T value, String field) {
            if (value == null) {
                throw new IllegalArgumentException("RetryingCompleter." + field + " must not be null");
            }
            return value;
        }
    }

    /**
     * A failed attempt that will be tried again.
     *
     * @param attempt the number of the attempt that failed, from 1
     * @param maxAttempts how many attempts the policy allows in all
     * @param failure why the attempt failed
     * @param delay how long the retry waits before the next attempt
     * @param fromRetryAfter whether the delay is the one the provider asked for (retry-after)
     */
    public record RetryEvent(int attempt, int maxAttempts, ModelException failure, Duration delay, boolean fromRetryAfter) {}

    /**
     * Observes retries: called once before each wait, on the thread that called the completer.
     */
    @FunctionalInterface
    public interface RetryListener {

        /** A listener that ignores retries. */
        RetryListener NONE = event -> {};

        /**
         * Called when a failed attempt is about to be retried.
         *
         * @param event the failure, the attempt number and the delay
         */
        void onRetry(RetryEvent event);
    }

    /**
     * Waits between retries. The default sleeps on the calling thread; tests pass one that records
     * the delays instead of waiting.
     */
    @FunctionalInterface
    public interface Sleeper {

        /** Sleeps with {@link Thread#sleep(Duration)}, answering interrupts at once. */
        Sleeper SYSTEM = Thread::sleep;

        /**
         * Waits for a while.
         *
         * @param delay how long to wait; zero or negative returns at once
         * @throws InterruptedException when the waiting thread is interrupted
         */
        void sleep(Duration delay) throws InterruptedException;
    }
}
