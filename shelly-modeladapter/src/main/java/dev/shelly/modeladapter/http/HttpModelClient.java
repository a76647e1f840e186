package dev.shelly.modeladapter.http;

import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.ModelException.Kind;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import okhttp3.Call;
import okhttp3.HttpUrl;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okio.BufferedSource;

/**
 * Posts JSON to one provider's endpoint and returns the reply or its server-sent events, with
 * cancellation by interruption.
 *
 * <p>The network is read on a virtual thread of its own while the calling thread waits
 * interruptibly; when the caller is interrupted the HTTP call is cancelled (its socket closed)
 * and a {@link CancellationException} is thrown with the interrupt flag still set. So a caller
 * on any thread, platform or virtual, can abandon a call that hangs. Events of a stream are
 * handed back to the calling thread in order.
 *
 * <p>Failures are {@link ModelException}s: an HTTP error status becomes whatever the
 * {@link WireFormat} makes of it; a timeout becomes {@code TIMEOUT}; any other I/O failure,
 * and a stream that ends before its last event, becomes {@code NETWORK}. A stream the server
 * cut after answering is told apart from a server that cannot be reached: its exception carries
 * the status of the answer (200) and says {@value #STREAM_CUT}.
 */
public final class HttpModelClient {
    private static final MediaType JSON = MediaType.get("application/json");
    private static final int MAX_ERROR_BODY = 64 * 1024;
    /** What a stream that ended before its last event is reported as. */
    static final String STREAM_CUT = "the server closed the stream before the reply was complete";

    private final String provider;
    private final HttpUrl baseUrl;
    private final Auth auth;
    private final Map<String, String> headers;
    private final OkHttpClient client;
    private final Clock clock;
    private final Duration connectTimeout;
    private final Duration readTimeout;
    private final Duration callTimeout;

    private HttpModelClient(Builder b) {
        this.provider = b.provider;
        this.baseUrl = b.baseUrl;
        this.auth = b.auth;
        this.headers = Map.copyOf(b.headers);
        this.clock = b.clock;
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
    public static Builder builder(String provider, String baseUrl) {
        return new Builder(provider, baseUrl);
    }

    /**
     * The provider's name.
     *
     * @return the name
     */
    public String provider() {
        return provider;
    }

    /**
     * The base URL every path is resolved against.
     *
     * @return the base URL, without a trailing slash
     */
    public String baseUrl() {
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
    public byte[] post(String path, byte[] json, Function<ErrorResponse, ModelException> errors) {
        Call call = newCall(path, json, false);
        CompletableFuture<byte[]> result = new CompletableFuture<>();
        Thread.ofVirtual().name("shelly-http-" + provider).start(() -> {
            try (Response response = call.execute()) {
                if (!response.isSuccessful()) {
                    result.completeExceptionally(errors.apply(errorResponse(response)));
                } else {
                    result.complete(response.body().bytes());
                }
            } catch (IOException e) {
                result.completeExceptionally(ioFailure(e));
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
    public byte[] stream(String path, byte[] json, Function<ErrorResponse, ModelException> errors,
            Predicate<SseEvent> isEnd, Consumer<SseEvent> handler) {
        Call call = newCall(path, json, true);
        BlockingQueue<Object> queue = new LinkedBlockingQueue<>();
        Object endOfStream = new Object();
        Object endEvent = new Object();
        Thread.ofVirtual().name("shelly-sse-" + provider).start(() -> {
            int answered = 0; // the status, once a successful answer is being read
            try (Response response = call.execute()) {
                if (!response.isSuccessful()) {
                    queue.add(errors.apply(errorResponse(response)));
                    return;
                }
                answered = response.code();
                BufferedSource source = response.body().source();
                if (isWholeDocument(response.body().contentType(), source)) {
                    queue.add(new WholeBody(source.readByteArray()));
                    return;
                }
                SseParser parser = new SseParser();
                String line;
                while ((line = source.readUtf8Line()) != null) {
                    SseEvent event = parser.line(line);
                    if (event != null) {
                        queue.add(event);
                        if (isEnd.test(event)) {
                            queue.add(endEvent);
                            return;
                        }
                    }
                }
                SseEvent last = parser.finish();
                if (last != null) {
                    queue.add(last);
                    if (isEnd.test(last)) {
                        queue.add(endEvent);
                        return;
                    }
                }
                queue.add(endOfStream);
            } catch (IOException e) {
                queue.add(answered > 0 && !(e instanceof InterruptedIOException) ? streamCut(answered, e) : ioFailure(e));
            } catch (RuntimeException | Error e) {
                queue.add(e);
            }
        });
        try {
            while (true) {
                Object item = queue.take();
                if (item == endEvent) {
                    return null;
                }
                if (item instanceof WholeBody whole) {
                    return whole.bytes();
                }
                if (item == endOfStream) {
                    throw ModelException.builder(Kind.NETWORK).provider(provider).status(200)
                            .providerMessage(STREAM_CUT).build();
                }
                if (item instanceof Throwable t) {
                    throw rethrow(t);
                }
                handler.accept((SseEvent) item);
            }
        } catch (InterruptedException e) {
            throw cancelled(call);
        } catch (RuntimeException | Error e) {
            call.cancel();
            throw e;
        }
    }

    /** A streaming request answered with one JSON document. */
    private record WholeBody(byte[] bytes) {}

    /**
     * Whether a successful answer to a stream request is one JSON document rather than events:
     * declared as JSON, or undeclared and opening with an object. A declared event stream is
     * always read as events.
     */
    private static boolean isWholeDocument(okhttp3.MediaType type, BufferedSource source) throws IOException {
        if (type != null) {
            if (type.type().equalsIgnoreCase("text") && type.subtype().equalsIgnoreCase("event-stream")) {
                return false;
            }
            if (type.subtype().equalsIgnoreCase("json") || type.subtype().toLowerCase(java.util.Locale.ROOT).endsWith("+json")) {
                return true;
            }
        }
        BufferedSource peek = source.peek();
        while (peek.request(1)) {
            byte b = peek.readByte();
            if (b != ' ' && b != '\n' && b != '\r' && b != '\t') {
                return b == '{';
            }
        }
        return false;
    }

    private Call newCall(String path, byte[] json, boolean stream) {
        if (Thread.currentThread().isInterrupted()) {
            throw new CancellationException(provider + ": completion cancelled before the request was sent");
        }
        HttpUrl url = HttpUrl.get(baseUrl() + "/" + (path.startsWith("/") ? path.substring(1) : path));
        Request.Builder request = new Request.Builder().url(url).post(RequestBody.create(json, JSON));
        headers.forEach(request::header);
        request.header("Accept", stream ? "text/event-stream" : "application/json");
        auth.applyTo(request);
        return client.newCall(request.build());
    }

    private CancellationException cancelled(Call call) {
        call.cancel();
        Thread.currentThread().interrupt();
        return new CancellationException(provider + ": completion cancelled");
    }

    private ErrorResponse errorResponse(Response response) throws IOException {
        BufferedSource source = response.body().source();
        source.request(MAX_ERROR_BODY);
        long size = Math.min(source.getBuffer().size(), MAX_ERROR_BODY);
        String body = source.getBuffer().readUtf8(size);
        Map<String, String> heads = new LinkedHashMap<>();
        for (String name : response.headers().names()) {
            heads.put(name, response.header(name));
        }
        return new ErrorResponse(provider, response.code(), heads, auth.redact(body), clock.instant());
    }

    /** A stream that broke after the server answered: the server was reached, and said so. */
    private ModelException streamCut(int status, IOException e) {
        String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        return ModelException.builder(Kind.NETWORK)
                .provider(provider)
                .status(status)
                .providerMessage(STREAM_CUT + " (" + auth.redact(message) + ")")
                .cause(e)
                .build();
    }

    private ModelException ioFailure(IOException e) {
        boolean timeout = e instanceof InterruptedIOException;
        String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        return ModelException.builder(timeout ? Kind.TIMEOUT : Kind.NETWORK)
                .provider(provider)
                .providerMessage(auth.redact(message))
                .cause(e)
                .build();
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
        return "HttpModelClient[" + provider + ", " + baseUrl() + ", " + auth + ", connectTimeout=" + connectTimeout
                + ", readTimeout=" + readTimeout + ", callTimeout=" + callTimeout + "]";
    }

    /** Configures an {@link HttpModelClient}. */
    public static final class Builder {
        private final String provider;
        private final HttpUrl baseUrl;
        private Auth auth = Auth.none();
        private final Map<String, String> headers = new LinkedHashMap<>();
        private HttpTransport transport = HttpTransport.shared();
        private Clock clock = Clock.systemUTC();
        private Duration connectTimeout = Duration.ofSeconds(10);
        private Duration readTimeout = Duration.ofMinutes(10);
        private Duration callTimeout = Duration.ZERO;

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
                throw new IllegalArgumentException(provider + ": base URL '" + baseUrl
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
        public Builder auth(Auth value) {
            this.auth = value == null ? Auth.none() : value;
            return this;
        }

        /**
         * Adds or replaces a header sent with every request.
         *
         * @param name the header's name
         * @param value its value
         * @return this builder
         */
        public Builder header(String name, String value) {
            if (name == null || name.isBlank() || value == null) {
                throw new IllegalArgumentException(provider + ": header name and value must not be null or blank");
            }
            headers.put(name, value);
            return this;
        }

        /**
         * Sets the transport whose connection pool to use.
         *
         * @param value the transport
         * @return this builder
         */
        public Builder transport(HttpTransport value) {
            this.transport = value == null ? HttpTransport.shared() : value;
            return this;
        }

        /**
         * Sets the clock that dates responses, for {@code retry-after} dates.
         *
         * @param value the clock
         * @return this builder
         */
        public Builder clock(Clock value) {
            this.clock = value == null ? Clock.systemUTC() : value;
            return this;
        }

        /**
         * Sets the timeouts; zero means none.
         *
         * @param connect to open a connection (default 10 s)
         * @param read between two reads of the response, and for writing the request (default 10
         *     min: a non-streamed reply may take minutes to start)
         * @param call for the whole call, body included (default none)
         * @return this builder
         */
        public Builder timeouts(Duration connect, Duration read, Duration call) {
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
        public HttpModelClient build() {
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
