package dev.shelly.providers;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.RetryingCompleter.RetryEvent;
import dev.shelly.provider.spi.ProviderBuilder;
import dev.shelly.providers.anthropic.AnthropicCompleter;
import dev.shelly.providers.openai.OpenAiCompleter;
import dev.shelly.testing.logs.LogCapture;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import mockwebserver3.SocketEffect;
import mockwebserver3.junit5.StartStop;
import org.junit.jupiter.api.Test;

/**
 * Drives every provider error path this module can reach (each HTTP error status, error events
 * and error bodies after HTTP 200, invalid bodies, HTML pages, cut streams, the call deadline, a
 * silent server, retries; both wire formats, streamed and not) against a server that echoes the
 * API key and the extra header's value in every body and header it sends, and looks for them in
 * every exception (causes and suppressed included), every log line at every level, every
 * {@code toString}, every retry event and every request body: not one occurrence.
 */
class SecretProbeTest {
    private static final String KEY = "sk-SECRETPROBE-1234567890";
    private static final String HEADER_SECRET = "hdr_SECRETPROBE_abcdefgh";
    private static final String NEEDLE = "SECRETPROBE";
    private static final String ECHO = KEY + " " + HEADER_SECRET;

    @StartStop
    private final MockWebServer server = new MockWebServer();

    private volatile Supplier<MockResponse> current;

    private static MockResponse.Builder echoing(int code) {
        return new MockResponse.Builder().code(code)
                .addHeader("x-echo", ECHO)
                .addHeader("request-id", "req-" + KEY)
                .addHeader("x-request-id", "req-" + HEADER_SECRET)
                .addHeader("www-authenticate", "Bearer " + KEY)
                .addHeader("retry-after-ms", "1");
    }

    private static MockResponse json(int code, String body) {
        return echoing(code).addHeader("Content-Type", "application/json").body(body).build();
    }

    private static MockResponse typed(int code, String type, String body) {
        return echoing(code).addHeader("Content-Type", type).body(body).build();
    }

    private static String errorBody(String format) {
        return format.equals("anthropic")
                ? "{\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"bad key " + ECHO + "\","
                        + "\"details\":{\"error_code\":\"" + KEY + "\"}},\"request_id\":\"" + KEY + "\"}"
                : "{\"error\":{\"message\":\"Incorrect API key provided: " + ECHO + "\",\"type\":\"" + KEY
                        + "\",\"param\":\"" + HEADER_SECRET + "\",\"code\":\"" + KEY + "\"}}";
    }

    private static String errorEvent(String format, String type) {
        return format.equals("anthropic")
                ? "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"" + type + "\",\"message\":\"echo "
                        + ECHO + "\"}}\n\n"
                : "data: {\"error\":{\"message\":\"echo " + ECHO + "\",\"type\":\"" + type + "\",\"code\":\"" + KEY
                        + "\"}}\n\n";
    }

    private static String partialStream(String format) {
        return format.equals("anthropic")
                ? "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m1\",\"model\":\"m\","
                        + "\"usage\":{\"input_tokens\":3,\"output_tokens\":1}}}\n\n"
                        + "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
                        + "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
                        + "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
                        + "\"delta\":{\"type\":\"text_delta\",\"text\":\"hel\"}}\n\n"
                : "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[{\"index\":0,"
                        + "\"delta\":{\"role\":\"assistant\",\"content\":\"hel\"}}]}\n\n";
    }

    /** The faults of one format, by name. */
    private Map<String, Supplier<MockResponse>> faults(String format) {
        Map<String, Supplier<MockResponse>> cases = new LinkedHashMap<>();
        for (int status : new int[] {400, 401, 402, 403, 404, 408, 409, 413, 422, 429, 500, 502, 503, 504, 529}) {
            cases.put("status " + status, () -> json(status, errorBody(format)));
            cases.put("status " + status + " as HTML", () -> typed(status, "text/html",
                    "<html><body><h1>" + status + "</h1><p>" + ECHO + "</p></body></html>"));
            cases.put("status " + status + " as text", () -> typed(status, "text/plain", ECHO));
        }
        cases.put("error body after 200", () -> json(200, errorBody(format)));
        for (String type : new String[] {"overloaded_error", "server_error", "invalid_request_error",
            "rate_limit_error", "authentication_error", KEY}) {
            String label = type.equals(KEY) ? "the key as type" : type;
            cases.put("error event " + label, () -> typed(200, "text/event-stream", errorEvent(format, type)));
            cases.put("error event " + label + " after content", () -> typed(200, "text/event-stream",
                    partialStream(format) + errorEvent(format, type)));
        }
        cases.put("invalid JSON body", () -> json(200, ECHO + " is not JSON"));
        cases.put("invalid JSON body starting with a secret token", () -> json(200, HEADER_SECRET + " is not JSON"));
        cases.put("invalid token inside JSON", () -> json(200, "{\"id\": " + HEADER_SECRET + "}"));
        cases.put("truncated JSON body", () -> json(200, "{\"id\":\"" + ECHO));
        cases.put("JSON that is not a reply", () -> json(200, "{\"choices\":\"" + ECHO + "\",\"content\":7}"));
        cases.put("JSON array", () -> json(200, "[\"" + ECHO + "\"]"));
        cases.put("HTML page after 200", () -> typed(200, "text/html", "<html>" + ECHO + "</html>"));
        cases.put("undeclared HTML after 200", () -> echoing(200).removeHeader("Content-Type")
                .body("<!DOCTYPE html><p>" + ECHO + "</p>").build());
        cases.put("plain text after 200", () -> typed(200, "text/plain", ECHO));
        cases.put("event with invalid JSON", () -> typed(200, "text/event-stream",
                "event: message_start\ndata: {\"x\": " + ECHO + "\n\n"));
        cases.put("event with a foreign shape", () -> typed(200, "text/event-stream",
                "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":\"" + KEY + "\"}\n\n"
                        + "data: {\"choices\":[{\"index\":\"" + KEY + "\",\"delta\":\"" + ECHO + "\"}]}\n\n"));
        cases.put("stream that ends early", () -> typed(200, "text/event-stream", partialStream(format)));
        cases.put("stream cut mid-way", () -> echoing(200).addHeader("Content-Type", "text/event-stream")
                .body(partialStream(format)).setHeader("Content-Length", 100_000)
                .onResponseEnd(new SocketEffect.CloseSocket(true, false, false)).build());
        cases.put("connection dropped at once", () -> echoing(200)
                .onRequestStart(new SocketEffect.CloseSocket(true, false, false)).build());
        cases.put("trickling past the deadline", () -> typed(200, "text/event-stream",
                ": " + ECHO + " " + "x".repeat(5_000) + "\n\n").newBuilder()
                .throttleBody(1, 10, TimeUnit.MILLISECONDS).build());
        cases.put("silent server", () -> echoing(200).onResponseStart(SocketEffect.Stall.INSTANCE).build());
        return cases;
    }

    private <B extends ProviderBuilder<B>> B configure(B builder, List<RetryEvent> events) {
        return builder.baseUrl(server.url("/v1").toString())
                .apiKey(KEY)
                .model("m")
                .maxTokens(64)
                .header("X-Probe-Token", HEADER_SECRET)
                .environment(name -> null)
                .sleeper(new Fixtures.Sleeps())
                .retryListener(events::add)
                .callTimeout(Duration.ofMillis(300))
                .readTimeout(Duration.ofMillis(250));
    }

    @Test
    void noErrorPathLetsTheKeyOrAHeaderValueOut() throws Exception {
        server.setDispatcher(new Dispatcher() {
            @Override
            public MockResponse dispatch(RecordedRequest request) {
                return current.get();
            }
        });
        List<String> julLines = new ArrayList<>();
        Handler jul = new Handler() {
            @Override
            public void publish(LogRecord record) {
                synchronized (julLines) {
                    julLines.add(record.getLevel() + " " + record.getLoggerName() + " " + record.getMessage() + " "
                            + (record.getParameters() == null ? "" : List.of(record.getParameters()))
                            + (record.getThrown() == null ? "" : trace(record.getThrown())));
                }
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        java.util.logging.Logger root = java.util.logging.Logger.getLogger("");
        java.util.logging.Level rootLevel = root.getLevel();
        root.addHandler(jul);
        root.setLevel(java.util.logging.Level.ALL);
        LogCapture capture = LogCapture.start();
        List<String> produced = new ArrayList<>();
        List<RetryEvent> events = new ArrayList<>();
        int failures = 0;
        int calls = 0;
        try {
            for (String format : List.of("anthropic", "openai")) {
                ProviderBuilder<?> builder = format.equals("anthropic")
                        ? configure(AnthropicCompleter.builder(), events)
                        : configure(OpenAiCompleter.builder(), events);
                Completer completer = builder.build();
                produced.add(builder.toString());
                produced.add(completer.toString());
                for (Map.Entry<String, Supplier<MockResponse>> fault : faults(format).entrySet()) {
                    current = fault.getValue();
                    for (boolean streamed : new boolean[] {false, true}) {
                        calls++;
                        Chat chat = Chat.of(Message.user("probe " + fault.getKey()));
                        try {
                            ModelResponse reply = streamed
                                    ? completer.complete(Fixtures.request(chat, List.of()), delta -> produced.add(delta.toString()))
                                    : completer.complete(Fixtures.request(chat, List.of()));
                            produced.add(format + " " + fault.getKey() + " answered: " + reply);
                        } catch (ModelException e) {
                            failures++;
                            produced.add(format + " " + fault.getKey() + (streamed ? " streamed" : "") + ": "
                                    + trace(e));
                        }
                    }
                }
            }
            Completer refused = configure(OpenAiCompleter.builder(), events)
                    .baseUrl("http://127.0.0.1:" + closedPort() + "/v1").build();
            try {
                refused.complete(Fixtures.request(Chat.of(Message.user("hi")), List.of()));
            } catch (ModelException e) {
                failures++;
                produced.add(trace(e));
            }
        } finally {
            capture.close();
            root.removeHandler(jul);
            root.setLevel(rootLevel);
        }
        events.forEach(e -> produced.add(e.toString() + " " + trace(e.failure())));
        List<String> logs = capture.lines().stream().map(LogCapture.Line::render).toList();
        List<String> bodies = new ArrayList<>();
        RecordedRequest request;
        while ((request = server.takeRequest(0, TimeUnit.MILLISECONDS)) != null) {
            bodies.add(request.getBody() == null ? "" : request.getBody().utf8());
        }

        assertThat(failures).as("every fault fails the call").isEqualTo(calls + 1);
        assertThat(events).as("retries happened").isNotEmpty();
        assertThat(logs).as("retries were logged").anyMatch(line -> line.startsWith("WARN") && line.contains("retrying"));
        assertThat(String.join("\n", produced)).as("the server did echo the secrets").contains("[redacted]");
        assertThat(bodies).hasSizeGreaterThan(calls);
        assertThat(leaks(produced)).as("exceptions, toStrings, deltas, retry events").isEmpty();
        assertThat(leaks(logs)).as("slf4j lines at every level").isEmpty();
        synchronized (julLines) {
            assertThat(leaks(julLines)).as("java.util.logging lines").isEmpty();
        }
        assertThat(leaks(bodies)).as("request bodies").isEmpty();
    }

    private static List<String> leaks(List<String> texts) {
        return texts.stream().filter(s -> s.contains(NEEDLE)).toList();
    }

    private static int closedPort() throws java.io.IOException {
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static String trace(Throwable t) {
        StringWriter out = new StringWriter();
        t.printStackTrace(new PrintWriter(out));
        return out + " | " + t;
    }
}
