package dev.shelly.provider.spi;

import dev.shelly.modeladapter.ModelException;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.locks.ReentrantLock;
import okhttp3.Request;

/**
 * How a request proves who sends it: a header, an optional scheme and a secret key, or a bearer
 * token that a {@link TokenSource} renews before it expires.
 *
 * <p>The key is write-only: no method returns it, {@link #toString()} masks it, and it never
 * appears in an exception message or a log line.
 */
public final class Auth {
    /** How long before its expiry a token is renewed, so that no request carries one that lapses in flight. */
    static final Duration REFRESH_MARGIN = Duration.ofMinutes(2);

    private static final Auth NONE = new Auth(null, null, null, null);

    private final String header;
    private final String scheme;
    private final String key;
    private final Tokens tokens;

    private Auth(String header, String scheme, String key, Tokens tokens) {
        this.header = header;
        this.scheme = scheme;
        this.key = key;
        this.tokens = tokens;
    }

    /** The token a source gave last, renewed when it is about to expire; one fetch at a time. */
    private static final class Tokens {
        private final TokenSource source;
        private final Clock clock;
        // Held while the source fetches: concurrent requests wait for the one fetch rather than each fetching.
        private final ReentrantLock lock = new ReentrantLock();
        private AccessToken current;

        Tokens(TokenSource source, Clock clock) {
            this.source = source;
            this.clock = clock;
        }

        String token() {
            lock.lock();
            try {
                if (current == null || !clock.instant().isBefore(current.expiresAt().minus(REFRESH_MARGIN))) {
                    AccessToken fetched;
                    try {
                        fetched = source.fetch();
                    } catch (CancellationException e) {
                        throw e;
                    } catch (RuntimeException e) {
                        throw ModelException.builder(ModelException.Kind.AUTHENTICATION)
                                .providerMessage("the token source failed: " + e.getMessage()).cause(e).build();
                    }
                    if (fetched == null) {
                        throw ModelException.builder(ModelException.Kind.AUTHENTICATION)
                                .providerMessage("the token source gave no token").build();
                    }
                    current = fetched;
                }
                return current.token();
            } finally {
                lock.unlock();
            }
        }
    }

    /**
     * {@code Authorization: Bearer <key>}, as OpenAI, xAI and most compatible servers expect.
     *
     * @param key the API key
     * @return the auth
     */
    public static Auth bearer(String key) {
        return of("Authorization", "Bearer", key);
    }

    /**
     * {@code Authorization: Bearer <token>} with a token that expires, such as Microsoft Entra
     * ID's: fetched from the source for the first request, and again when the one held is within
     * two minutes of its expiry.
     *
     * @param source fetches a fresh token
     * @return the auth
     */
    public static Auth bearer(TokenSource source) {
        return bearer(source, Clock.systemUTC());
    }

    /** {@link #bearer(TokenSource)} on a clock of the caller's, for tests. */
    static Auth bearer(TokenSource source, Clock clock) {
        if (source == null) {
            throw new IllegalArgumentException("Auth token source must not be null");
        }
        return new Auth("Authorization", "Bearer", null, new Tokens(source, clock));
    }

    /**
     * The key alone in a header, such as Anthropic's {@code x-api-key}.
     *
     * @param header the header's name
     * @param key the API key
     * @return the auth
     */
    public static Auth header(String header, String key) {
        return of(header, null, key);
    }

    /**
     * A header with a scheme before the key: {@code <header>: <scheme> <key>}.
     *
     * @param header the header's name
     * @param scheme the scheme such as {@code Bearer}, or null for the key alone
     * @param key the API key
     * @return the auth
     */
    public static Auth of(String header, String scheme, String key) {
        if (header == null || header.isBlank() || !header.chars().allMatch(c -> c > 32 && c < 127 && c != ':')) {
            throw new IllegalArgumentException("Auth header name must be a non-blank HTTP token, was '" + header + "'");
        }
        if (scheme != null && (scheme.isBlank() || !scheme.chars().allMatch(c -> c > 32 && c < 127))) {
            throw new IllegalArgumentException("Auth scheme must be a non-blank token without spaces, was '" + scheme + "'");
        }
        if (key == null || key.isBlank()) {
            throw new IllegalArgumentException("Auth key for header " + header + " must not be null or blank");
        }
        if (!key.chars().allMatch(c -> c >= 32 && c < 127)) {
            throw new IllegalArgumentException("Auth key for header " + header
                    + " contains a control or non-ASCII character (a stray newline?)");
        }
        return new Auth(header, scheme, key.strip(), null);
    }

    /**
     * No authentication, for local servers that need none.
     *
     * @return the empty auth
     */
    public static Auth none() {
        return NONE;
    }

    /**
     * Whether this sends no credentials.
     *
     * @return true for {@link #none()}
     */
    public boolean isNone() {
        return key == null && tokens == null;
    }

    /**
     * The header that carries the key.
     *
     * @return the header's name, or empty for {@link #none()}
     */
    public Optional<String> headerName() {
        return Optional.ofNullable(header);
    }

    /**
     * The scheme written before the key.
     *
     * @return the scheme, or empty when the key stands alone
     */
    public Optional<String> scheme() {
        return Optional.ofNullable(scheme);
    }

    void applyTo(Request.Builder request) {
        String secret = tokens != null ? tokens.token() : key;
        if (secret != null) {
            request.header(header, scheme == null ? secret : scheme + " " + secret);
        }
    }

    /** The key, for the client's redaction of texts that echo it; null for {@link #none()} and for tokens. */
    String key() {
        return key;
    }

    @Override
    public String toString() {
        return isNone() ? "Auth[none]" : "Auth[" + header + ": " + (scheme == null ? "" : scheme + " ") + "****]";
    }
}
