package dev.shelly.provider.spi;

import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.ModelException.Kind;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.SocketTimeoutException;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import okhttp3.Response;
import okio.BufferedSource;

/**
 * The failures one provider's client makes of what went wrong on the wire, every one of them
 * redacted: an error response (classified by the wire format first), a cut stream, an I/O
 * failure or timeout, a successful status whose body is not a reply.
 */
final class HttpFailures {
    /** What a stream that ended before its last event is reported as. */
    static final String STREAM_CUT = "the server closed the stream before the reply was complete";
    static final int MAX_ERROR_BODY = 64 * 1024;
    static final int MAX_EXCERPT = 300;

    private final String provider;
    private final Secrets secrets;
    private final Clock clock;
    private final Duration callTimeout;

    HttpFailures(String provider, Secrets secrets, Clock clock, Duration callTimeout) {
        this.provider = provider;
        this.secrets = secrets;
        this.clock = clock;
        this.callTimeout = callTimeout;
    }

    /** A failure without the client's secrets (API key, header values, URL credentials). */
    ModelException redact(ModelException failure) {
        return secrets.redact(failure);
    }

    /**
     * An error response as the failure to throw: classified, then redacted. The format reads the
     * body and headers as the server sent them, so a secret in them cannot change the kind; only
     * the exception it makes, which is what messages, logs and events carry, is redacted.
     */
    ModelException failure(Response response, Function<ErrorResponse, ModelException> errors) throws IOException {
        String body = head(response.body().source());
        Map<String, String> heads = new LinkedHashMap<>();
        for (String name : response.headers().names()) {
            heads.put(name, response.header(name));
        }
        return secrets.redact(errors.apply(new ErrorResponse(provider, response.code(), heads, body, clock.instant())));
    }

    /** A stream that broke after the server answered: the server was reached, and said so. */
    ModelException streamCut(int status, IOException e) {
        String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        return secrets.redact(ModelException.builder(Kind.NETWORK)
                .provider(provider)
                .status(status)
                .providerMessage(STREAM_CUT + " (" + secrets.redact(message) + ")")
                .cause(e)
                .build());
    }

    /** A stream whose body ended before its last event, with nothing left to say it was complete. */
    ModelException streamEnded() {
        return ModelException.builder(Kind.NETWORK).provider(provider).status(200).providerMessage(STREAM_CUT).build();
    }

    ModelException ioFailure(IOException e) {
        boolean timeout = e instanceof InterruptedIOException;
        if (timeout && !(e instanceof SocketTimeoutException) && !callTimeout.isZero()) {
            // OkHttp's call timeout: the whole call's deadline passed. Trying again would wait as long.
            return secrets.redact(ModelException.builder(Kind.TIMEOUT)
                    .provider(provider)
                    .providerMessage("no complete reply within the call deadline of " + describe(callTimeout))
                    .retryable(false)
                    .cause(e)
                    .build());
        }
        String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        return secrets.redact(ModelException.builder(timeout ? Kind.TIMEOUT : Kind.NETWORK)
                .provider(provider)
                .providerMessage(secrets.redact(message))
                .cause(e)
                .build());
    }

    /** A successful status whose body is not a reply at all: an invalid response, never retried. */
    ModelException notAReply(String what, BufferedSource source) throws IOException {
        String excerpt = ErrorResponse.excerpt(head(source), MAX_EXCERPT);
        return invalidResponse("the reply is " + what + ", not a model reply" + (excerpt == null ? "" : ": " + excerpt));
    }

    ModelException invalidResponse(String message) {
        return ModelException.builder(Kind.INVALID_RESPONSE).provider(provider)
                .providerMessage(secrets.redact(message)).build();
    }

    /** The first {@link #MAX_ERROR_BODY} bytes of a body, as text. */
    private static String head(BufferedSource source) throws IOException {
        source.request(MAX_ERROR_BODY);
        long size = Math.min(source.getBuffer().size(), MAX_ERROR_BODY);
        return source.getBuffer().readUtf8(size);
    }

    /** A duration as people write it: {@code 10 min}, {@code 30 s}, {@code 250 ms}. */
    private static String describe(Duration d) {
        long ms = d.toMillis();
        if (ms % 60_000 == 0) {
            return ms / 60_000 + " min";
        }
        if (ms % 1_000 == 0) {
            return ms / 1_000 + " s";
        }
        return ms + " ms";
    }
}
