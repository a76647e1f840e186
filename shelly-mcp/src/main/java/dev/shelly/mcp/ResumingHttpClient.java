package dev.shelly.mcp;

import java.io.IOException;
import java.net.Authenticator;
import java.net.CookieHandler;
import java.net.InetAddress;
import java.net.ProxySelector;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;

/**
 * The HTTP client the MCP SDK's streamable HTTP transport sends with: the JDK's, except that the
 * event stream answering a POSTed request is resumed when the server ends it before the response
 * (SEP-1699). The SDK 2.1.0 transport does not do that itself, so the call would be lost; here the
 * stream the SDK reads goes on, after the server's {@code retry} interval, with the events of a
 * GET carrying {@code Last-Event-ID} ({@link ResumedStream}). Everything else passes through.
 */
final class ResumingHttpClient extends HttpClient {
    private final HttpClient http;
    private final String label;

    private ResumingHttpClient(HttpClient http, String label) {
        this.http = http;
        this.label = label;
    }

    /**
     * A builder of the JDK's client (HTTP/1.1, as the SDK's own default) whose {@code build()}
     * gives a resuming client.
     *
     * @param label the server's name, for logs
     */
    static HttpClient.Builder builder(String label) {
        return new Builder(HttpClient.newBuilder().version(Version.HTTP_1_1), label);
    }

    private <T> HttpResponse.BodyHandler<T> resuming(HttpRequest request, HttpResponse.BodyHandler<T> handler) {
        if (!request.method().equals("POST")) {
            return handler;
        }
        return info -> {
            HttpResponse.BodySubscriber<T> reader = handler.apply(info);
            boolean events = info.statusCode() / 100 == 2 && info.headers().firstValue("Content-Type")
                    .map(type -> type.toLowerCase(java.util.Locale.ROOT).startsWith("text/event-stream")).orElse(false);
            return events ? new ResumedStream<>(reader, http, request, label) : reader;
        };
    }

    @Override
    public <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler)
            throws IOException, InterruptedException {
        return http.send(request, resuming(request, handler));
    }

    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, HttpResponse.BodyHandler<T> handler) {
        return http.sendAsync(request, resuming(request, handler));
    }

    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, HttpResponse.BodyHandler<T> handler,
            HttpResponse.PushPromiseHandler<T> pushPromiseHandler) {
        return http.sendAsync(request, resuming(request, handler), pushPromiseHandler);
    }

    @Override
    public Optional<CookieHandler> cookieHandler() {
        return http.cookieHandler();
    }

    @Override
    public Optional<Duration> connectTimeout() {
        return http.connectTimeout();
    }

    @Override
    public Redirect followRedirects() {
        return http.followRedirects();
    }

    @Override
    public Optional<ProxySelector> proxy() {
        return http.proxy();
    }

    @Override
    public SSLContext sslContext() {
        return http.sslContext();
    }

    @Override
    public SSLParameters sslParameters() {
        return http.sslParameters();
    }

    @Override
    public Optional<Authenticator> authenticator() {
        return http.authenticator();
    }

    @Override
    public Version version() {
        return http.version();
    }

    @Override
    public Optional<Executor> executor() {
        return http.executor();
    }

    @Override
    public WebSocket.Builder newWebSocketBuilder() {
        return http.newWebSocketBuilder();
    }

    @Override
    public void shutdown() {
        http.shutdown();
    }

    @Override
    public boolean awaitTermination(Duration duration) throws InterruptedException {
        return http.awaitTermination(duration);
    }

    @Override
    public boolean isTerminated() {
        return http.isTerminated();
    }

    @Override
    public void shutdownNow() {
        http.shutdownNow();
    }

    @Override
    public void close() {
        http.close();
    }

    /** The JDK's builder, building a resuming client. */
    private record Builder(HttpClient.Builder jdk, String label) implements HttpClient.Builder {
        @Override
        public HttpClient.Builder cookieHandler(CookieHandler cookieHandler) {
            jdk.cookieHandler(cookieHandler);
            return this;
        }

        @Override
        public HttpClient.Builder connectTimeout(Duration duration) {
            jdk.connectTimeout(duration);
            return this;
        }

        @Override
        public HttpClient.Builder sslContext(SSLContext sslContext) {
            jdk.sslContext(sslContext);
            return this;
        }

        @Override
        public HttpClient.Builder sslParameters(SSLParameters sslParameters) {
            jdk.sslParameters(sslParameters);
            return this;
        }

        @Override
        public HttpClient.Builder executor(Executor executor) {
            jdk.executor(executor);
            return this;
        }

        @Override
        public HttpClient.Builder followRedirects(Redirect policy) {
            jdk.followRedirects(policy);
            return this;
        }

        @Override
        public HttpClient.Builder version(Version version) {
            jdk.version(version);
            return this;
        }

        @Override
        public HttpClient.Builder priority(int priority) {
            jdk.priority(priority);
            return this;
        }

        @Override
        public HttpClient.Builder proxy(ProxySelector proxySelector) {
            jdk.proxy(proxySelector);
            return this;
        }

        @Override
        public HttpClient.Builder authenticator(Authenticator authenticator) {
            jdk.authenticator(authenticator);
            return this;
        }

        @Override
        public HttpClient.Builder localAddress(InetAddress localAddr) {
            jdk.localAddress(localAddr);
            return this;
        }

        @Override
        public HttpClient build() {
            return new ResumingHttpClient(jdk.build(), label);
        }
    }
}
