package dev.shelly.modeladapter;

import dev.shelly.chats.ShellyException;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A model could not answer. Says what kind of failure it was, whether trying again may help,
 * and what the provider said.
 *
 * <p>The message names the provider, the kind, the HTTP status and the provider's own message;
 * it never contains an API key or an authorization header. A {@link Kind#CONTEXT_LENGTH_EXCEEDED}
 * also names the model and, when known, the request's size and the context window, for example
 * {@code llama: context length exceeded (HTTP 400): the request (2574 tokens) does not fit the
 * context window of model qwen3 (2048 tokens): request (2574 tokens) exceeds the available context
 * size (2048 tokens), try increasing it}. An {@linkplain #advice() advice} (what the caller can
 * do about it) ends the message.
 */
public final class ModelException extends ShellyException {
    private static final long serialVersionUID = 1L;

    /** The kinds of model failure. */
    public enum Kind {
        /** The API key is missing, wrong or revoked (HTTP 401). */
        AUTHENTICATION(false),
        /** The key may not use this model or resource (HTTP 403). */
        PERMISSION(false),
        /** Too many requests or tokens for now (HTTP 429); waiting helps. */
        RATE_LIMITED(true),
        /** The account's quota, credit or spend limit is used up; waiting does not help. */
        QUOTA_EXCEEDED(false),
        /** The provider is overloaded (HTTP 529, or 503); waiting helps. */
        OVERLOADED(true),
        /** The conversation is longer than the model's context window. */
        CONTEXT_LENGTH_EXCEEDED(false),
        /** The request is malformed or not allowed (HTTP 400, 413, 422). */
        INVALID_REQUEST(false),
        /** The model or endpoint does not exist (HTTP 404). */
        NOT_FOUND(false),
        /** The connection failed or broke. */
        NETWORK(true),
        /** The provider did not answer in time (a client timeout, HTTP 408 or 504). */
        TIMEOUT(true),
        /** The provider answered with something that is not a valid reply. */
        INVALID_RESPONSE(false),
        /** The provider failed on its side (HTTP 500, 502, 503). */
        SERVER(true),
        /**
         * The provider's content filter refused the prompt (Azure OpenAI's {@code content_filter}
         * error); the same request is refused again, here or by another deployment of the policy.
         */
        CONTENT_FILTER(false);

        private final boolean retryable;

        Kind(boolean retryable) {
            this.retryable = retryable;
        }

        /**
         * Whether a failure of this kind is usually worth retrying.
         *
         * @return true for transient kinds
         */
        public boolean retryable() {
            return retryable;
        }
    }

    /** What kind of failure this is. */
    private final Kind kind;
    /** The provider's name, or null when unknown. */
    private final String provider;
    /** The HTTP status of the failed response, or 0 when there was none. */
    private final int status;
    /** The provider's own error message, or null. */
    private final String providerMessage;
    /** The provider's id of the failed request, or null. */
    private final String requestId;
    /** How long the provider asked to wait before a retry, or null. */
    private final Duration retryAfter;
    /** Whether the same request may succeed when tried again. */
    private final boolean retryable;
    /** The model the request asked for, or null when unknown. */
    private final String model;
    /** The model's context window in tokens, or -1 when unknown. */
    private final long contextWindow;
    /** The request's size in tokens as the provider counted it, or -1 when unknown. */
    private final long requestTokens;
    /** What the caller can do about the failure, or null. */
    private final String advice;

    private ModelException(Builder b) {
        super(describe(b), b.cause);
        this.kind = b.kind;
        this.provider = b.provider;
        this.status = b.status;
        this.providerMessage = b.providerMessage;
        this.requestId = b.requestId;
        this.retryAfter = b.retryAfter;
        this.retryable = b.retryable != null ? b.retryable : b.kind.retryable();
        this.model = b.model;
        this.contextWindow = b.contextWindow;
        this.requestTokens = b.requestTokens;
        this.advice = b.advice;
    }

    /**
     * Starts an exception of a kind.
     *
     * @param kind the kind of failure
     * @return a builder
     */
    public static Builder builder(Kind kind) {
        return new Builder(kind);
    }

    /**
     * The kind of failure.
     *
     * @return the kind
     */
    public Kind kind() {
        return kind;
    }

    /**
     * The provider's name, such as {@code anthropic}.
     *
     * @return the provider, or empty when unknown
     */
    public Optional<String> provider() {
        return Optional.ofNullable(provider);
    }

    /**
     * The HTTP status of the failed response.
     *
     * @return the status, or 0 when there was no response; a stream the server cut after
     *     answering keeps the status of that answer (200)
     */
    public int status() {
        return status;
    }

    /**
     * What the provider said, from its error body.
     *
     * @return the provider's message, or empty
     */
    public Optional<String> providerMessage() {
        return Optional.ofNullable(providerMessage);
    }

    /**
     * The provider's id for the failed request, to quote to its support.
     *
     * @return the request id, or empty
     */
    public Optional<String> requestId() {
        return Optional.ofNullable(requestId);
    }

    /**
     * How long the provider asked to wait before trying again.
     *
     * @return the delay, or empty when the provider did not say
     */
    public Optional<Duration> retryAfter() {
        return Optional.ofNullable(retryAfter);
    }

    /**
     * Whether trying the same request again may succeed.
     *
     * @return true for transient failures
     */
    public boolean retryable() {
        return retryable;
    }

    /**
     * The model the failed request asked for.
     *
     * @return the model's id, or empty when unknown
     */
    public Optional<String> model() {
        return Optional.ofNullable(model);
    }

    /**
     * The model's context window, as the provider reported it with a context overflow.
     *
     * @return the window in tokens, or empty when unknown
     */
    public OptionalLong contextWindow() {
        return contextWindow < 0 ? OptionalLong.empty() : OptionalLong.of(contextWindow);
    }

    /**
     * The size of the failed request, as the provider counted it with a context overflow.
     *
     * @return the request's tokens, or empty when unknown
     */
    public OptionalLong requestTokens() {
        return requestTokens < 0 ? OptionalLong.empty() : OptionalLong.of(requestTokens);
    }

    /**
     * What the caller can do about this failure, such as how to make room in a full context.
     *
     * @return the advice, or empty
     */
    public Optional<String> advice() {
        return Optional.ofNullable(advice);
    }

    /**
     * A builder holding every fact of this failure (not its cause or stack trace), to make an
     * equal failure with some facts changed.
     *
     * @return a new builder
     */
    public Builder toBuilder() {
        Builder b = new Builder(kind).provider(provider).status(status).providerMessage(providerMessage)
                .requestId(requestId).retryAfter(retryAfter).retryable(retryable).model(model).advice(advice);
        b.contextWindow = contextWindow;
        b.requestTokens = requestTokens;
        return b;
    }

    private static String describe(Builder b) {
        StringBuilder sb = new StringBuilder();
        if (b.provider != null) {
            sb.append(b.provider).append(": ");
        }
        sb.append(b.kind.name().toLowerCase(Locale.ROOT).replace('_', ' '));
        if (b.status > 0) {
            sb.append(" (HTTP ").append(b.status).append(')');
        }
        if (b.kind == Kind.CONTEXT_LENGTH_EXCEEDED) {
            sb.append(": ").append(overflow(b));
        }
        if (b.providerMessage != null && !b.providerMessage.isBlank()) {
            sb.append(": ").append(b.providerMessage);
        }
        if (b.requestId != null) {
            sb.append(" [request ").append(b.requestId).append(']');
        }
        if (b.retryAfter != null) {
            sb.append(" (retry after ").append(b.retryAfter.toMillis()).append(" ms)");
        }
        if (b.advice != null && !b.advice.isBlank()) {
            sb.append("; ").append(b.advice.strip());
        }
        return sb.toString();
    }

    /** What a context overflow was: the request's size against the model's window, what is known of them. */
    private static String overflow(Builder b) {
        StringBuilder sb = new StringBuilder("the request");
        if (b.requestTokens >= 0) {
            sb.append(" (").append(b.requestTokens).append(" tokens)");
        }
        sb.append(" does not fit the context window of ").append(b.model != null ? "model " + b.model : "the model");
        if (b.contextWindow >= 0) {
            sb.append(" (").append(b.contextWindow).append(" tokens)");
        }
        return sb.toString();
    }

    /** Collects the facts of a model failure. */
    public static final class Builder {
        private final Kind kind;
        private String provider;
        private int status;
        private String providerMessage;
        private String requestId;
        private Duration retryAfter;
        private Boolean retryable;
        private Throwable cause;
        private String model;
        private long contextWindow = -1;
        private long requestTokens = -1;
        private String advice;

        private Builder(Kind kind) {
            if (kind == null) {
                throw new IllegalArgumentException("ModelException.kind must not be null");
            }
            this.kind = kind;
        }

        /**
         * Sets the provider's name.
         *
         * @param value e.g. {@code openai}
         * @return this builder
         */
        public Builder provider(String value) {
            this.provider = value;
            return this;
        }

        /**
         * Sets the HTTP status.
         *
         * @param value the status
         * @return this builder
         */
        public Builder status(int value) {
            this.status = value;
            return this;
        }

        /**
         * Sets the provider's own message.
         *
         * @param value the message
         * @return this builder
         */
        public Builder providerMessage(String value) {
            this.providerMessage = value;
            return this;
        }

        /**
         * Sets the provider's request id.
         *
         * @param value the id
         * @return this builder
         */
        public Builder requestId(String value) {
            this.requestId = value;
            return this;
        }

        /**
         * Sets the delay the provider asked for.
         *
         * @param value the delay
         * @return this builder
         */
        public Builder retryAfter(Duration value) {
            this.retryAfter = value;
            return this;
        }

        /**
         * Overrides whether the failure is retryable; by default the kind decides.
         *
         * @param value whether to retry
         * @return this builder
         */
        public Builder retryable(boolean value) {
            this.retryable = value;
            return this;
        }

        /**
         * Sets the model the request asked for.
         *
         * @param value the model's id, or null when unknown
         * @return this builder
         */
        public Builder model(String value) {
            this.model = value == null || value.isBlank() ? null : value;
            return this;
        }

        /**
         * Sets the model's context window, as the provider reported it.
         *
         * @param tokens the window in tokens; at least 1
         * @return this builder
         * @throws IllegalArgumentException when below 1
         */
        public Builder contextWindow(long tokens) {
            this.contextWindow = positive(tokens, "contextWindow");
            return this;
        }

        /**
         * Sets the request's size, as the provider counted it.
         *
         * @param tokens the request's tokens; at least 1
         * @return this builder
         * @throws IllegalArgumentException when below 1
         */
        public Builder requestTokens(long tokens) {
            this.requestTokens = positive(tokens, "requestTokens");
            return this;
        }

        /**
         * Sets what the caller can do about the failure; it ends the message.
         *
         * @param value the advice, or null for none
         * @return this builder
         */
        public Builder advice(String value) {
            this.advice = value == null || value.isBlank() ? null : value;
            return this;
        }

        private static long positive(long tokens, String what) {
            if (tokens < 1) {
                throw new IllegalArgumentException("ModelException." + what + " must be at least 1 token, was " + tokens);
            }
            return tokens;
        }

        /**
         * Sets the underlying failure.
         *
         * @param value the cause
         * @return this builder
         */
        public Builder cause(Throwable value) {
            this.cause = value;
            return this;
        }

        /**
         * Builds the exception.
         *
         * @return the exception
         */
        public ModelException build() {
            return new ModelException(this);
        }
    }
}
