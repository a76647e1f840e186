package dev.shelly.mcp;

import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;

/**
 * A client transport that tells a caller the JSON-RPC id of the request it sent, so that the
 * caller can cancel it on the server. The SDK's client does not expose request ids; its session
 * hands the caller's Reactor context to {@link #sendMessage}, where a request sent under a context
 * made by {@link #context} records its id. Internal.
 */
final class TrackingTransport implements McpClientTransport {
    private static final Object REQUEST_ID = new Object();
    static final String CANCELLED = "notifications/cancelled";

    private final McpClientTransport delegate;

    TrackingTransport(McpClientTransport delegate) {
        this.delegate = delegate;
    }

    /**
     * A Reactor context under which the id of the request sent is put into {@code id}.
     *
     * @param id receives the request's id
     * @return the context to write into the request's Mono
     */
    static Context context(AtomicReference<Object> id) {
        return Context.of(REQUEST_ID, id);
    }

    /**
     * Sends {@code notifications/cancelled} for a request, without waiting.
     *
     * @param requestId the request's id
     * @param reason why, for the server's logs
     * @return the sending, to subscribe to
     */
    Mono<Void> cancel(Object requestId, String reason) {
        return delegate.sendMessage(new McpSchema.JSONRPCNotification(McpSchema.JSONRPC_VERSION, CANCELLED,
                Map.of("requestId", requestId, "reason", reason)));
    }

    @Override
    public Mono<Void> connect(Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>> handler) {
        return delegate.connect(handler);
    }

    @Override
    @SuppressWarnings("unchecked")
    public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
        if (!(message instanceof McpSchema.JSONRPCRequest request)) {
            return delegate.sendMessage(message);
        }
        return Mono.deferContextual(context -> {
            context.<AtomicReference<Object>>getOrEmpty(REQUEST_ID).ifPresent(id -> id.set(request.id()));
            return delegate.sendMessage(message);
        });
    }

    @Override
    public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
        return delegate.unmarshalFrom(data, typeRef);
    }

    @Override
    public Mono<Void> closeGracefully() {
        return delegate.closeGracefully();
    }

    @Override
    public void close() {
        delegate.close();
    }

    @Override
    public void setExceptionHandler(Consumer<Throwable> handler) {
        delegate.setExceptionHandler(handler);
    }

    @Override
    public List<String> protocolVersions() {
        return delegate.protocolVersions();
    }
}
