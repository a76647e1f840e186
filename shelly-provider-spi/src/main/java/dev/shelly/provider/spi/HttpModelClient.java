package dev.shelly.provider.spi;

import dev.shelly.chats.internal.Redaction;
import dev.shelly.modeladapter.ModelException;
import dev.shelly.provider.spi.internal.ByteEventDecoder;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import okhttp3.Call;
import okhttp3.HttpUrl;
import okhttp3.MediaType;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;

/**
 * Posts JSON to one provider's endpoint and returns the reply or its server-sent events, with
 * cancellation by interruption.
 *
 * <p>A virtual thread does the call itself; a platform thread has the network read on a virtual
 * thread of its own while it waits interruptibly. When the caller is interrupted the HTTP call
 * is cancelled (its socket closed) and a {@link CancellationException} is thrown with the
 * interrupt flag still set. So a caller on any thread, platform or virtual, can abandon a call
 * that hangs. Events of a stream are handled on the calling thread in order.
 *
 * <p>Failures are {@link ModelException}s: an HTTP error status becomes whatever the
 * {@link WireFormat} makes of it; a timeout becomes {@code TIMEOUT}; a successful status whose
 * body is an HTML page or, for a stream, not an event stream at all becomes
 * {@code INVALID_RESPONSE}; any other I/O failure, and a stream that ends before its last
 * event, becomes {@code NETWORK}. A stream the server cut after answering is told apart from a
 * server that cannot be reached: its exception carries the status of the answer (200) and says
 * {@value HttpFailures#STREAM_CUT}.
 *
 * <p>Every call has a deadline ({@link #DEFAULT_CALL_TIMEOUT} unless set otherwise) that covers
 * connecting, sending, waiting and reading the whole reply, so a server that trickles bytes
 * cannot hold a call longer; a call that reaches it fails with a {@code TIMEOUT} that is not
 * retryable, since trying again would wait as long.
 *
 * <p>Nothing the server sends back reaches an exception message unredacted: the API key, the
 * values of the extra headers and the credentials of the base URL (each of at least 8
 * characters; a shorter key is a placeholder, not a secret) are replaced by {@code [redacted]}
 * in the failures made of error bodies and response headers, in I/O messages and excerpts, and
 * {@link #toString()} masks the base URL's query and user-info. An error response is classified
 * before it is redacted: the {@link WireFormat} reads it as the server sent it.
 */
final class HttpModelClient {
    private static final MediaType JSON = MediaType.get("application/json");

    /** The default deadline of a whole call: 10 minutes. */
    static final Duration DEFAULT_CALL_TIMEOUT = Duration.ofMinutes(10);
    /** The default connect timeout: 10 seconds. */
    static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);
    /** The default longest silence while reading: 10 minutes. */
    static final Duration DEFAULT_READ_TIMEOUT = Duration.ofMinutes(10);
    private static final int MAX_URLS = 16;

    private final String provider;
    private final HttpUrl baseUrl;
    private final Auth auth;
    private final Map<String, String> headers;
    private final HttpFailures failures;
    private final HttpTransport.Timed client;
    private final Duration connectTimeout;
    private final Duration readTimeout;
    private final Duration callTimeout;
    /** The URL of each path called, parsed once: a provider calls one or two paths. */
    private final Map<String, HttpUrl> urls = new ConcurrentHashMap<>();

    private HttpModelClient(Builder b) {
        this.provider = b.provider;
        this.baseUrl = b.baseUrl;
        this.auth = b.auth;
        this.headers = Map.copyOf(b.headers);
        this.failures = new HttpFailures(b.provider, b.secrets(), b.clock, b.callTimeout);
        this.connectTimeout = b.connectTimeout;
        this.readTimeout = b.readTimeout;
        this.callTimeout = b.callTimeout;
        this.client = b.transport.withTimeouts(b.connectTimeout, b.readTimeout, b.callTimeout);
    }

    /**
     * Starts a client for one provider.
     *
     * @param provider the provider's name, for errors and thread names
     * @param baseUrl the base URL, such as {@code https://api.openai.com/v1}
     * @return a builder
     */
    static Builder builder(String provider, String baseUrl) {
        return new Builder(provider, baseUrl);
    }

    /**
     * The provider's name.
     *
     * @return the name
     */
    String provider() {
        return provider;
    }

    /**
     * The base URL every path is resolved against.
     *
     * @return the base URL, without a trailing slash
     */
    String baseUrl() {
        String url = baseUrl.toString();
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }

    /**
     * Posts a JSON body and returns the successful response's body.
     *
     * @param path the path relative to the base URL
     * @param json the request body
     * @param errors turns an error response into an exception
     * @return the response body
     * @throws ModelException on an error status or a network failure
     * @throws CancellationException when the calling thread is interrupted
     */
    byte[] post(String path, byte[] json, Function<ErrorResponse, ModelException> errors) {
        Request request = request(path, json, false);
        int shard = client.acquire();
        if (Thread.currentThread().isVirtual()) {
            try {
                return postInline(client.newCall(shard, request), errors);
            } finally {
                client.release(shard);
            }
        }
        Call call = client.newCall(shard, request);
        CompletableFuture<byte[]> result = new CompletableFuture<>();
        // A platform thread blocked in a socket read does not answer interrupts: it waits on a
        // virtual thread that does the call, and cancels the call when interrupted.
        onVirtualThread("shelly-http-", shard, () -> {
            try (Response response = call.execute()) {
                if (!response.isSuccessful()) {
                    result.completeExceptionally(failures.failure(response, errors));
                } else {
                    result.complete(response.body().bytes());
                }
            } catch (IOException e) {
                result.completeExceptionally(failures.ioFailure(e));
            } catch (RuntimeException | Error e) {
                result.completeExceptionally(e);
            }
        });
        try {
            return result.get();
        } catch (InterruptedException e) {
            throw cancelled(call);
        } catch (ExecutionException e) {
            throw rethrow(e.getCause());
        }
    }

    /** Runs a call's work on a virtual thread of its own, which gives the call's shard back when it ends. */
    private void onVirtualThread(String name, int shard, Runnable work) {
        try {
            Thread.ofVirtual().name(name + provider).start(() -> {
                try {
                    work.run();
                } finally {
                    client.release(shard);
                }
            });
        } catch (RuntimeException | Error e) {
            client.release(shard);
            throw e;
        }
    }

    /**
     * The call on the calling virtual thread, with no hand-off: an interrupt closes the virtual
     * thread's socket (or OkHttp throws an {@link InterruptedIOException}) and keeps the flag set,
     * so the call ends promptly as a cancellation.
     */
    private byte[] postInline(Call call, Function<ErrorResponse, ModelException> errors) {
        if (Thread.currentThread().isInterrupted()) {
            throw cancelled(call);
        }
        try (Response response = call.execute()) {
            if (!response.isSuccessful()) {
                throw failures.failure(response, errors);
            }
            return response.body().bytes();
        } catch (IOException e) {
            // Only an interrupt is a cancellation: OkHttp cancels the call itself at its deadline,
            // which is a timeout.
            if (Thread.currentThread().isInterrupted()) {
                throw cancelled(call);
            }
            throw failures.ioFailure(e);
        }
    }

    /**
     * A model failure with this client's secrets (API key, header values, URL credentials)
     * removed from its message, request id, causes and suppressed exceptions. Use it on every
     * failure made of text the provider sent, such as an error event in a stream.
     *
     * @param failure the failure
     * @return the same failure when it held no secret, else an equal one without them
     */
    ModelException redact(ModelException failure) {
        return failures.redact(failure);
    }

    /**
     * Posts a JSON body and hands the server-sent events of the successful response to a
     * handler on the calling thread, in order, until an event the handler calls the end.
     *
     * <p>Some OpenAI-compatible servers and proxies ignore the request to stream and answer with
     * one JSON document; such a body (declared as JSON, or undeclared and opening with
     * <code>{</code>) is returned whole instead of failing. A declared event stream is always read
     * as events.
     *
     * @param path the path relative to the base URL
     * @param json the request body
     * @param errors turns an error response into an exception
     * @param isEnd tells, on the reading thread, whether an event is the last one
     * @param handler receives each event on the calling thread; an exception it throws cancels
     *     the call and is rethrown
     * @return null when the reply came as events; the body when the server answered with JSON
     * @throws ModelException on an error status, a network failure, or a stream that ends
     *     before its last event
     * @throws CancellationException when the calling thread is interrupted
     */
    byte[] stream(String path, byte[] json, Function<ErrorResponse, ModelException> errors,
            Predicate<SseEvent> isEnd, Consumer<SseEvent> handler) {
        return stream(path, json, errors, isEnd, handler, () -> false);
    }

    /**
     * Like {@link #stream(String, byte[], Function, Predicate, Consumer)}, for an API whose stream
     * has no last event and ends when the server closes it (Gemini): when the body ends before an
     * event {@code isEnd} accepts, {@code completeAtClose} is asked on the calling thread, after
     * every event has been handled, whether the reply is complete; only when it is not is the
     * stream reported as cut.
     *
     * @param path the path relative to the base URL
     * @param json the request body
     * @param errors turns an error response into an exception
     * @param isEnd tells, on the reading thread, whether an event is the last one
     * @param handler receives each event on the calling thread
     * @param completeAtClose whether the events handled so far make a complete reply
     * @return null when the reply came as events; the body when the server answered with JSON
     * @throws ModelException on an error status, a network failure, or a stream that ends
     *     before the reply is complete
     * @throws CancellationException when the calling thread is interrupted
     */
    byte[] stream(String path, byte[] json, Function<ErrorResponse, ModelException> errors,
            Predicate<SseEvent> isEnd, Consumer<SseEvent> handler, BooleanSupplier completeAtClose) {
        return stream(path, json, errors, isEnd, handler, completeAtClose, null);
    }

    /**
     * Like {@link #stream(String, byte[], Function, Predicate, Consumer, BooleanSupplier)}, with
     * a decoder that can take each event's data as bytes: when the stream is read on the calling
     * thread (a virtual thread), the events go to it instead of {@code isEnd} and
     * {@code handler}, and no event is made into strings.
     *
     * @param path the path relative to the base URL
     * @param json the request body
     * @param errors turns an error response into an exception
     * @param isEnd tells, on the reading thread, whether an event is the last one
     * @param handler receives each event on the calling thread
     * @param completeAtClose whether the events handled so far make a complete reply
     * @param bytes takes the events as bytes on the calling thread, or null
     * @return null when the reply came as events; the body when the server answered with JSON
     */
    byte[] stream(String path, byte[] json, Function<ErrorResponse, ModelException> errors,
            Predicate<SseEvent> isEnd, Consumer<SseEvent> handler, BooleanSupplier completeAtClose,
            ByteEventDecoder bytes) {
        Request request = request(path, json, true);
        int shard = client.acquire();
        if (Thread.currentThread().isVirtual()) {
            try {
                Call call = client.newCall(shard, request);
                EventStreamReader.Events events = bytes != null
                        ? p -> {
                            bytes.onEvent(p.name(), p.data(), p.offset(), p.length());
                            return bytes.isEnd(p.name(), p.data(), p.offset(), p.length());
                        }
                        : p -> {
                            SseEvent event = p.toEvent();
                            handler.accept(event);
                            return isEnd.test(event);
                        };
                return streamInline(call, new EventStreamReader(call, events, errors, failures), completeAtClose);
            } finally {
                client.release(shard);
            }
        }
        Call call = client.newCall(shard, request);
        // A platform thread blocked in a socket read does not answer interrupts: a virtual thread
        // reads the events and queues them; this thread takes them, and cancels the call when interrupted.
        BlockingQueue<Object> queue = new LinkedBlockingQueue<>();
        EventStreamReader reader = new EventStreamReader(call, p -> {
            SseEvent event = p.toEvent();
            queue.add(event);
            return isEnd.test(event);
        }, errors, failures);
        onVirtualThread("shelly-sse-", shard, () -> queue.add(reader.read()));
        try {
            while (true) {
                Object item = queue.take();
                if (item instanceof SseEvent event) {
                    handler.accept(event);
                } else {
                    return ended(item, completeAtClose);
                }
            }
        } catch (InterruptedException e) {
            throw cancelled(call);
        } catch (ModelException e) {
            call.cancel();
            throw failures.redact(e);
        } catch (RuntimeException | Error e) {
            call.cancel();
            throw e;
        }
    }

    /**
     * The stream read on the calling virtual thread, each event handled as it is read, with no
     * hand-off: an interrupt closes the virtual thread's socket (or OkHttp throws an
     * {@link InterruptedIOException}) and keeps the flag set, so the call ends promptly as a
     * cancellation.
     */
    private byte[] streamInline(Call call, EventStreamReader reader, BooleanSupplier completeAtClose) {
        if (Thread.currentThread().isInterrupted()) {
            throw cancelled(call);
        }
        Object end = reader.read();
        if (end instanceof ModelException && Thread.currentThread().isInterrupted()) {
            throw cancelled(call);
        }
        try {
            return ended(end, completeAtClose);
        } catch (ModelException e) {
            call.cancel();
            throw failures.redact(e);
        } catch (RuntimeException | Error e) {
            call.cancel();
            throw e;
        }
    }

    /** What ends a stream's events: null for its end, the body of a reply that came whole, or the failure thrown. */
    private byte[] ended(Object end, BooleanSupplier completeAtClose) {
        if (end == EventStreamReader.END_EVENT) {
            return null;
        }
        if (end instanceof EventStreamReader.WholeBody whole) {
            return whole.bytes();
        }
        if (end == EventStreamReader.END_OF_STREAM) {
            if (completeAtClose.getAsBoolean()) {
                return null;
            }
            throw failures.streamEnded();
        }
        throw rethrow((Throwable) end);
    }

    private Request request(String path, byte[] json, boolean stream) {
        if (Thread.currentThread().isInterrupted()) {
            throw new CancellationException(provider + ": completion cancelled before the request was sent");
        }
        HttpUrl url = urls.get(path);
        if (url == null) {
            url = HttpUrl.get(baseUrl() + "/" + (path.startsWith("/") ? path.substring(1) : path));
            if (urls.size() < MAX_URLS) {
                urls.put(path, url);
            }
        }
        Request.Builder request = new Request.Builder().url(url).post(RequestBody.create(json, JSON));
        headers.forEach(request::header);
        request.header("Accept", stream ? "text/event-stream" : "application/json");
        auth.applyTo(request);
        return request.build();
    }

    private CancellationException cancelled(Call call) {
        call.cancel();
        Thread.currentThread().interrupt();
        return new CancellationException(provider + ": completion cancelled");
    }

    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error err) {
            throw err;
        }
        return new IllegalStateException(t);
    }

    @Override
    public String toString() {
        return "HttpModelClient[" + provider + ", " + Redaction.maskUrl(baseUrl()) + ", " + auth + ", connectTimeout=" + connectTimeout
                + ", readTimeout=" + readTimeout + ", callTimeout=" + callTimeout + "]";
    }

    /** Configures an {@link HttpModelClient}. */
    static final class Builder {
        private final String provider;
        private final HttpUrl baseUrl;
        private Auth auth = Auth.none();
        private final Map<String, String> headers = new LinkedHashMap<>();
        private final List<String> publicHeaders = new ArrayList<>();
        private HttpTransport transport = HttpTransport.shared();
        private Clock clock = Clock.systemUTC();
        private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
        private Duration readTimeout = DEFAULT_READ_TIMEOUT;
        private Duration callTimeout = DEFAULT_CALL_TIMEOUT;

        private Builder(String provider, String baseUrl) {
            if (provider == null || provider.isBlank()) {
                throw new IllegalArgumentException("HttpModelClient provider must not be null or blank");
            }
            this.provider = provider;
            if (baseUrl == null || baseUrl.isBlank()) {
                throw new IllegalArgumentException(provider + ": base URL must not be null or blank");
            }
            HttpUrl parsed = HttpUrl.parse(baseUrl.strip());
            if (parsed == null) {
                throw new IllegalArgumentException(provider + ": base URL '" + Redaction.maskUrl(baseUrl.strip())
                        + "' is not an http or https URL");
            }
            this.baseUrl = parsed;
        }

        /**
         * Sets the authentication.
         *
         * @param value the auth; {@link Auth#none()} for none
         * @return this builder
         */
        Builder auth(Auth value) {
            this.auth = value == null ? Auth.none() : value;
            return this;
        }

        /**
         * Adds or replaces a header sent with every request. Its value is treated as a secret:
         * when it has at least 8 characters, it is redacted from every error the provider sends
         * back.
         *
         * @param name the header's name, an HTTP token
         * @param value its value: no control character (tab aside) and no non-ASCII character
         * @return this builder
         * @throws IllegalArgumentException naming the header (never quoting its value) when the
         *     name or value cannot be sent
         */
        Builder header(String name, String value) {
            HeaderRules.check(provider, name, value);
            headers.put(name, value);
            publicHeaders.remove(name);
            return this;
        }

        /** A header the provider requires (a version, say): checked like others, not a secret. */
        Builder providerHeader(String name, String value) {
            header(name, value);
            publicHeaders.add(name);
            return this;
        }

        private Secrets secrets() {
            Map<String, String> secretHeaders = new LinkedHashMap<>(headers);
            publicHeaders.forEach(secretHeaders::remove);
            return Secrets.sentWith(provider, auth.key(), secretHeaders.values(), baseUrl);
        }

        /**
         * Sets the transport whose connection pool to use.
         *
         * @param value the transport
         * @return this builder
         */
        Builder transport(HttpTransport value) {
            this.transport = value == null ? HttpTransport.shared() : value;
            return this;
        }

        /**
         * Sets the clock that dates responses, for {@code retry-after} dates.
         *
         * @param value the clock
         * @return this builder
         */
        Builder clock(Clock value) {
            this.clock = value == null ? Clock.systemUTC() : value;
            return this;
        }

        /**
         * Sets the timeouts; zero means none.
         *
         * @param connect to open a connection (default 10 s)
         * @param read between two reads of the response, and for writing the request (default 10
         *     min: a non-streamed reply may take minutes to start)
         * @param call for the whole call, body included (default 10 min): a server that trickles
         *     bytes cannot extend it
         * @return this builder
         */
        Builder timeouts(Duration connect, Duration read, Duration call) {
            this.connectTimeout = positiveOrZero(connect, "connect timeout");
            this.readTimeout = positiveOrZero(read, "read timeout");
            this.callTimeout = positiveOrZero(call, "call timeout");
            return this;
        }

        /**
         * Builds the client.
         *
         * @return the client
         */
        HttpModelClient build() {
            return new HttpModelClient(this);
        }

        private Duration positiveOrZero(Duration d, String what) {
            if (d == null || d.isNegative()) {
                throw new IllegalArgumentException(provider + ": " + what + " must be zero or positive, was " + d);
            }
            return d;
        }
    }
}
