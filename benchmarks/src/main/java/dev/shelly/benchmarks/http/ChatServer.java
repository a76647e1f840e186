package dev.shelly.benchmarks.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * An OpenAI Chat Completions server in this process: the JDK's HTTP server with a virtual thread
 * per exchange, answering every {@code POST .../chat/completions} after a fixed latency with the
 * same reply, as one JSON document or, when the request asks to stream, as server-sent events
 * (chunked, as OpenAI sends them). Its replies are made once; answering costs a sleep and one
 * write.
 *
 * <p>The JDK server keeps at most 200 idle connections unless told otherwise, and 1,000
 * concurrent clients need 1,000: {@link #start} raises the limit before the server's classes
 * load, unless the {@code sun.net.httpserver.maxIdleConnections} property is set already.
 */
final class ChatServer implements AutoCloseable {
    /** The text of the reply, as the stream sends it: one chunk per token. */
    static final List<String> TOKENS = List.of("The", " method", " handle", "()", " opens", " a", " resource",
            " with", " try", "-with", "-resources", ",", " so", " it", " is", " always", " closed", ".");
    static final String TEXT = String.join("", TOKENS);

    private static final String ID = "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT";
    private static final String MODEL = "gpt-4o-2024-08-06";
    private static final String USAGE = "{\"prompt_tokens\":2095,\"completion_tokens\":18,\"total_tokens\":2113,"
            + "\"prompt_tokens_details\":{\"cached_tokens\":1800,\"audio_tokens\":0},"
            + "\"completion_tokens_details\":{\"reasoning_tokens\":0,\"audio_tokens\":0,"
            + "\"accepted_prediction_tokens\":0,\"rejected_prediction_tokens\":0}}";

    /** The reply as one JSON document. */
    static final byte[] JSON_REPLY = ("{\"id\":\"" + ID + "\",\"object\":\"chat.completion\",\"created\":1741569952,"
            + "\"model\":\"" + MODEL + "\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\","
            + "\"content\":\"" + TEXT + "\",\"refusal\":null,\"annotations\":[]},\"logprobs\":null,"
            + "\"finish_reason\":\"stop\"}],\"usage\":" + USAGE
            + ",\"service_tier\":\"default\",\"system_fingerprint\":\"fp_fc9f1d7035\"}").getBytes(StandardCharsets.UTF_8);

    /** The same reply as the events of a stream. */
    static final byte[] SSE_REPLY = events().getBytes(StandardCharsets.UTF_8);

    private final HttpServer server;
    private final ExecutorService executor;
    private final long latencyMillis;
    private final boolean chunked;
    private final Set<InetSocketAddress> clients = ConcurrentHashMap.newKeySet();

    private ChatServer(HttpServer server, ExecutorService executor, long latencyMillis, boolean chunked) {
        this.server = server;
        this.executor = executor;
        this.latencyMillis = latencyMillis;
        this.chunked = chunked;
    }

    /**
     * Starts a server on a free loopback port.
     *
     * @param latency how long each answer waits before it is written
     * @param chunked whether a stream is sent chunked, as OpenAI sends it, or with its length
     *     (the JDK server allocates a 4 KB buffer for every chunked answer: measuring what a
     *     client allocates, the server's own cost is better left out)
     * @return the running server
     * @throws IOException when the port cannot be opened
     */
    static ChatServer start(Duration latency, boolean chunked) throws IOException {
        if (System.getProperty("sun.net.httpserver.maxIdleConnections") == null) {
            System.setProperty("sun.net.httpserver.maxIdleConnections", "20000");
        }
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 4096);
        ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
        server.setExecutor(executor);
        ChatServer chat = new ChatServer(server, executor, latency.toMillis(), chunked);
        server.createContext("/", chat::answer);
        server.start();
        return chat;
    }

    /** The base URL, as a provider is configured with it. */
    String baseUrl() {
        return "http://127.0.0.1:" + port() + "/v1";
    }

    int port() {
        return server.getAddress().getPort();
    }

    /** How many connections OkHttp (Shelly's client) has made to this server. */
    int okHttpConnections() {
        return clients.size();
    }

    private void answer(HttpExchange exchange) throws IOException {
        String agent = exchange.getRequestHeaders().getFirst("User-Agent");
        if (agent != null && agent.startsWith("okhttp")) {
            clients.add(exchange.getRemoteAddress());
        }
        try (exchange) {
            boolean stream = streams(exchange.getRequestBody());
            try {
                Thread.sleep(latencyMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            byte[] reply = stream ? SSE_REPLY : JSON_REPLY;
            exchange.getResponseHeaders().set("Content-Type", stream ? "text/event-stream; charset=utf-8"
                    : "application/json");
            exchange.sendResponseHeaders(200, stream && chunked ? 0 : reply.length); // 0: chunked
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(reply);
            }
        }
    }

    /** Reads the whole request body and tells whether it asks for a stream. */
    private static boolean streams(InputStream body) throws IOException {
        byte[] bytes = body.readAllBytes();
        return indexOf(bytes, STREAM_TRUE) >= 0;
    }

    private static final byte[] STREAM_TRUE = "\"stream\":true".getBytes(StandardCharsets.US_ASCII);

    static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i <= haystack.length - needle.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    private static String events() {
        String head = "{\"id\":\"" + ID + "\",\"object\":\"chat.completion.chunk\",\"created\":1741569952,\"model\":\""
                + MODEL + "\",\"service_tier\":\"default\",\"system_fingerprint\":\"fp_fc9f1d7035\",\"choices\":[";
        List<String> chunks = new ArrayList<>();
        chunks.add(head + "{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\",\"refusal\":null},"
                + "\"logprobs\":null,\"finish_reason\":null}],\"usage\":null}");
        for (String token : TOKENS) {
            chunks.add(head + "{\"index\":0,\"delta\":{\"content\":\"" + token + "\"},\"logprobs\":null,"
                    + "\"finish_reason\":null}],\"usage\":null}");
        }
        chunks.add(head + "{\"index\":0,\"delta\":{},\"logprobs\":null,\"finish_reason\":\"stop\"}],\"usage\":null}");
        chunks.add(head + "],\"usage\":" + USAGE + "}");
        chunks.add("[DONE]");
        StringBuilder sb = new StringBuilder();
        for (String c : chunks) {
            sb.append("data: ").append(c).append("\n\n");
        }
        return sb.toString();
    }

    @Override
    public void close() {
        server.stop(0);
        executor.close();
    }
}
