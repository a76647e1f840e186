package dev.shelly.modeladapter;

import dev.shelly.chats.ShellyException;
import java.time.Duration;
import java.util.Optional;

/**
 * A model could not answer. Says what kind of failure it was, whether trying again may help,
 * and what the provider said.
 *
 * <p>The message names the provider, the kind, the HTTP status and the provider's own message;
 * it never contains an API key or an authorization header.
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

    private ModelException(Builder b) {
        super(describe(b), b.cause);
        this.kind = b.kind;
        this.provider = b.provider;
        this.status = b.status;
        this.providerMessage = b.providerMessage;
        this.requestId = b.requestId;
        this.retryAfter = b.retryAfter;
        this.retryable = b.retryable != null ? b.retryable : b.kind.retryable();
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

    private static String describe(Builder b) {
        StringBuilder sb = new StringBuilder();
        if (b.provider != null) {
            sb.append(b.provider).append(": ");
        }
        sb.append(b.kind.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' '));
        if (b.status > 0) {
            sb.append(" (HTTP ").append(b.status).append(')');
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
