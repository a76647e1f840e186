package dev.shelly.provider.spi;

import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.ModelException.Kind;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A provider's HTTP error response, handed to its {@link WireFormat} to become a
 * {@link ModelException}.
 *
 * @param provider the provider's name
 * @param status the HTTP status
 * <p>Headers and body are as the server sent them, so that what they say decides the kind even
 * when they happen to hold a secret; {@link HttpModelClient} redacts the exception made of them
 * before anyone sees it. Never log them or put them in a message by another path.
 *
 * @param headers the response headers, names in lower case, first value of each
 * @param body the response body as text (at most 64 KiB), not redacted
 * @param receivedAt when the response arrived, for {@code retry-after} dates
 */
public record ErrorResponse(String provider, int status, Map<String, String> headers, String body, Instant receivedAt) {

    /** The statuses worth retrying: request timeout, rate limit, server failures and overload. */
    public static final Set<Integer> RETRYABLE_STATUSES = Set.of(408, 429, 500, 502, 503, 504, 529);

    /** Copies the headers with lower-case names. */
    public ErrorResponse {
        Map<String, String> copy = new LinkedHashMap<>();
        if (headers != null) {
            headers.forEach((k, v) -> copy.putIfAbsent(k.toLowerCase(Locale.ROOT), v));
        }
        headers = Collections.unmodifiableMap(copy);
        body = body == null ? "" : body;
        receivedAt = receivedAt == null ? Instant.now() : receivedAt;
    }

    /**
     * A response header.
     *
     * @param name the header's name, in any case
     * @return its first value, or empty
     */
    public Optional<String> header(String name) {
        return Optional.ofNullable(headers.get(name.toLowerCase(Locale.ROOT)));
    }

    /**
     * How long the provider asked to wait: {@code retry-after-ms} (milliseconds) first, then
     * {@code retry-after} as seconds or as an HTTP date.
     *
     * @return the delay, or empty when the provider did not say or said something unreadable
     */
    public Optional<Duration> retryAfter() {
        return parseRetryAfter(headers.get("retry-after-ms"), headers.get("retry-after"), receivedAt);
    }

    /**
     * The kind an HTTP status means when the body says nothing more specific.
     *
     * @param status the HTTP status
     * @return the kind
     */
    public static Kind kindForStatus(int status) {
        return switch (status) {
            case 401 -> Kind.AUTHENTICATION;
            case 402 -> Kind.QUOTA_EXCEEDED;
            case 403 -> Kind.PERMISSION;
            case 404 -> Kind.NOT_FOUND;
            case 408, 504 -> Kind.TIMEOUT;
            case 429 -> Kind.RATE_LIMITED;
            case 529 -> Kind.OVERLOADED;
            default -> status >= 500 ? Kind.SERVER : Kind.INVALID_REQUEST;
        };
    }

    /**
     * Starts the exception for this response: provider, status and retry-after are set, and
     * the failure is retryable only when both the kind and the status are (see
     * {@link #RETRYABLE_STATUSES}) and the provider did not send {@code x-should-retry: false}.
     *
     * @param kind what the provider's error means
     * @param providerMessage the provider's message, or null
     * @param requestId the provider's request id, or null
     * @return a builder to finish with {@link ModelException.Builder#build()}
     */
    public ModelException.Builder toException(Kind kind, String providerMessage, String requestId) {
        boolean retryable = kind.retryable() && RETRYABLE_STATUSES.contains(status)
                && !"false".equalsIgnoreCase(header("x-should-retry").orElse("").strip());
        ModelException.Builder b = ModelException.builder(kind)
                .provider(provider)
                .status(status)
                .providerMessage(providerMessage)
                .requestId(requestId)
                .retryable(retryable);
        retryAfter().ifPresent(b::retryAfter);
        return b;
    }

    /**
     * A short excerpt of the body for messages when it is not the provider's JSON (an HTML page
     * from a proxy, say): white space collapsed, at most 300 characters.
     *
     * @return the excerpt, or null when the body is blank
     */
    public String bodyExcerpt() {
        return excerpt(body, 300);
    }

    /** A text with white space collapsed, cut to a length; null when blank. */
    static String excerpt(String body, int max) {
        String text = body.strip().replaceAll("\\s+", " ");
        if (text.isEmpty()) {
            return null;
        }
        return text.length() <= max ? text : text.substring(0, max) + "...";
    }

    /**
     * Parses the retry-after headers as the official SDKs do.
     *
     * @param retryAfterMs the {@code retry-after-ms} value (float milliseconds), or null
     * @param retryAfter the {@code retry-after} value (seconds, possibly fractional, or an HTTP
     *     date), or null
     * @param now the time the response arrived; a date in the past gives zero
     * @return the delay, or empty when neither header holds a usable value
     */
    public static Optional<Duration> parseRetryAfter(String retryAfterMs, String retryAfter, Instant now) {
        Optional<Duration> ms = number(retryAfterMs, 1_000_000L);
        if (ms.isPresent()) {
            return ms;
        }
        if (retryAfter == null || retryAfter.isBlank()) {
            return Optional.empty();
        }
        Optional<Duration> seconds = number(retryAfter, 1_000_000_000L);
        if (seconds.isPresent()) {
            return seconds;
        }
        try {
            Instant at = ZonedDateTime.parse(retryAfter.strip(), DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
            Duration d = Duration.between(now, at);
            return Optional.of(d.isNegative() ? Duration.ZERO : d);
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }

    private static Optional<Duration> number(String text, long nanosPerUnit) {
        if (text == null || text.isBlank()) {
            return Optional.empty();
        }
        try {
            double value = Double.parseDouble(text.strip());
            if (Double.isNaN(value) || Double.isInfinite(value) || value < 0 || value > 1e9) {
                return Optional.empty();
            }
            return Optional.of(Duration.ofNanos(Math.round(value * nanosPerUnit)));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }
}
