package dev.shelly.provider.spi;

import java.util.Optional;
import okhttp3.Request;

/**
 * How a request proves who sends it: a header, an optional scheme and a secret key.
 *
 * <p>The key is write-only: no method returns it, {@link #toString()} masks it, and it never
 * appears in an exception message or a log line.
 */
public final class Auth {
    private static final Auth NONE = new Auth(null, null, null);

    private final String header;
    private final String scheme;
    private final String key;

    private Auth(String header, String scheme, String key) {
        this.header = header;
        this.scheme = scheme;
        this.key = key;
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
        return new Auth(header, scheme, key.strip());
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
        return key == null;
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
        if (key != null) {
            request.header(header, scheme == null ? key : scheme + " " + key);
        }
    }

    /** The key, for the client's redaction of texts that echo it; null for {@link #none()}. */
    String key() {
        return key;
    }

    @Override
    public String toString() {
        return key == null ? "Auth[none]" : "Auth[" + header + ": " + (scheme == null ? "" : scheme + " ") + "****]";
    }
}
