package dev.shelly.provider.spi;

import dev.shelly.modeladapter.ModelException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import okhttp3.HttpUrl;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The secrets one provider's client sends (the API key, the values of the extra headers, the
 * credentials in the base URL), and the one function that removes them from any text the
 * provider or the network sends back: error bodies, error events after HTTP 200, invalid-reply
 * excerpts, I/O messages, and the exceptions (causes and suppressed included) made of them.
 *
 * <p>A value is a secret when it has at least {@value #MIN_LENGTH} characters, the API key too:
 * a shorter one cannot be a real secret (it is a placeholder such as the {@code x} local servers
 * are given), and searching for it would garble every message, {@code x} turning "exceeds" into
 * "e[redacted]ceeds"; a header such as {@code X-Debug: 1} would blank out every {@code 1}. The
 * work happens only on failure paths: a reply that succeeds is never scanned.
 */
final class Secrets {
    private static final Logger LOG = LoggerFactory.getLogger(Secrets.class);

    /** What replaces a secret. */
    static final String REDACTED = "[redacted]";
    /** The shortest header or URL value treated as a secret. */
    static final int MIN_LENGTH = 8;

    private static final Secrets NONE = new Secrets(new String[0]);

    private final String[] values;

    private Secrets(String[] values) {
        this.values = values;
    }

    /**
     * The secrets a request carries: the key, the values of the headers given (the secret ones),
     * and the user-info and query values of the base URL.
     */
    static Secrets sentWith(String provider, String key, Collection<String> headerValues, HttpUrl baseUrl) {
        List<String> values = new ArrayList<>(headerValues);
        String userInfo = baseUrl.encodedPassword();
        if (!userInfo.isEmpty()) {
            values.add(userInfo);
            values.add(baseUrl.password());
        }
        if (!baseUrl.username().isEmpty()) {
            values.add(baseUrl.encodedUsername());
            values.add(baseUrl.username());
        }
        for (int i = 0; i < baseUrl.querySize(); i++) {
            values.add(baseUrl.queryParameterValue(i));
        }
        return of(provider, key, values);
    }

    /**
     * The secrets of a client. A key shorter than {@value #MIN_LENGTH} characters is left out,
     * and said so once at DEBUG.
     *
     * @param provider the provider's name, for that log line
     * @param key the API key, or null
     * @param others header values and URL credentials; short ones are left out
     * @return the secrets, longest first so that a longer secret is replaced before a part of it
     */
    static Secrets of(String provider, String key, List<String> others) {
        Set<String> all = new LinkedHashSet<>();
        if (key != null && key.length() >= MIN_LENGTH) {
            all.add(key);
        } else if (key != null && !key.isEmpty()) {
            LOG.debug("{}: the API key has {} characters, fewer than {}: a placeholder, not a secret, so error texts "
                    + "are not searched for it", provider, key.length(), MIN_LENGTH);
        }
        for (String v : others) {
            if (v != null && v.strip().length() >= MIN_LENGTH) {
                all.add(v.strip());
            }
        }
        if (all.isEmpty()) {
            return NONE;
        }
        String[] sorted = all.toArray(String[]::new);
        java.util.Arrays.sort(sorted, Comparator.comparingInt(String::length).reversed());
        return new Secrets(sorted);
    }

    /**
     * Whether a text holds a secret.
     *
     * @param text the text, or null
     * @return true when any secret occurs in it
     */
    boolean occursIn(String text) {
        if (text == null || text.isEmpty()) {
            return false;
        }
        for (String v : values) {
            if (text.contains(v)) {
                return true;
            }
        }
        return false;
    }

    /**
     * A text with every secret replaced by {@value #REDACTED}.
     *
     * @param text the text, or null
     * @return the redacted text; the same instance when it held no secret
     */
    String redact(String text) {
        if (text == null || text.isEmpty()) {
            return text;
        }
        String out = text;
        for (String v : values) {
            if (out.contains(v)) {
                out = out.replace(v, REDACTED);
            }
        }
        return out;
    }

    /**
     * A model failure with every secret removed from its message, its request id, and the
     * messages of its causes and suppressed exceptions.
     *
     * @param e the failure
     * @return {@code e} itself when it held no secret, else an equal failure without them
     */
    ModelException redact(ModelException e) {
        if (values.length == 0 || !leaks(e, new IdentityHashMap<>())) {
            return e;
        }
        ModelException copy = e.toBuilder()
                .providerMessage(redact(e.providerMessage().orElse(null)))
                .requestId(redact(e.requestId().orElse(null)))
                .cause(redactThrowable(e.getCause(), new IdentityHashMap<>()))
                .build();
        copy.setStackTrace(e.getStackTrace());
        for (Throwable s : e.getSuppressed()) {
            Throwable r = redactThrowable(s, new IdentityHashMap<>());
            if (r != null) {
                copy.addSuppressed(r);
            }
        }
        return copy;
    }

    private boolean leaks(Throwable t, Map<Throwable, Boolean> seen) {
        if (t == null || seen.put(t, Boolean.TRUE) != null) {
            return false;
        }
        if (occursIn(t.getMessage()) || occursIn(t.getLocalizedMessage()) || occursIn(t.toString())) {
            return true;
        }
        for (Throwable s : t.getSuppressed()) {
            if (leaks(s, seen)) {
                return true;
            }
        }
        return leaks(t.getCause(), seen);
    }

    private Throwable redactThrowable(Throwable t, Map<Throwable, Boolean> seen) {
        if (t == null || !leaks(t, new IdentityHashMap<>())) {
            return t;
        }
        if (seen.put(t, Boolean.TRUE) != null) {
            return null;
        }
        if (t instanceof ModelException m) {
            return redact(m);
        }
        RedactedFailure copy = new RedactedFailure(t.getClass().getName() + ": " + redact(t.getMessage()),
                redactThrowable(t.getCause(), seen));
        copy.setStackTrace(t.getStackTrace());
        for (Throwable s : t.getSuppressed()) {
            Throwable r = redactThrowable(s, seen);
            if (r != null) {
                copy.addSuppressed(r);
            }
        }
        return copy;
    }

    /** Stands for a cause whose message held a secret: its class name and redacted message. */
    static final class RedactedFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        RedactedFailure(String message, Throwable cause) {
            super(message, cause);
        }
    }

    @Override
    public String toString() {
        return "Secrets[" + values.length + "]";
    }
}
