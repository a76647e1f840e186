package dev.shelly.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.agent.AgentEvent;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import dev.shelly.engine.Turn;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The console over plain HTTP: its token, its methods, its event stream, its answers. */
@Timeout(60)
class ConsoleServerTest {
    private static final String TOKEN = "test-token-0123456789abcdef";
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static Team team;
    private static Console console;
    private static HttpClient http;

    @BeforeAll
    static void start() {
        team = new Team();
        console = Console.start(team.engine, Console.Options.builder().port(0).token(TOKEN).clientBuffer(256)
                .history(256).build());
        http = HttpClient.newHttpClient();
    }

    @AfterAll
    static void stop() {
        console.close();
        team.close();
        http.close();
    }

    private static HttpResponse<String> send(String method, String path, String token, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(console.url().resolve(path)).timeout(Duration.ofSeconds(10))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void everyApiRequestNeedsTheToken() throws Exception {
        for (String token : new String[] {null, "wrong-token-0123456789abcdef", TOKEN + "x"}) {
            assertThat(send("GET", "/api/sessions", token, null).statusCode()).isEqualTo(401);
            assertThat(send("GET", "/api/sessions/abc", token, null).statusCode()).isEqualTo(401);
            assertThat(send("POST", "/api/sessions/abc/cancel", token, "{}").statusCode()).isEqualTo(401);
            assertThat(send("POST", "/api/sessions/abc/decisions/c1", token, "{\"answer\":\"approve\"}").statusCode())
                    .isEqualTo(401);
            HttpResponse<String> stream = send("GET", "/api/events", token, null);
            assertThat(stream.statusCode()).isEqualTo(401);
            assertThat(stream.headers().firstValue("WWW-Authenticate")).hasValue("Bearer");
        }
        // A token in the query string is no token.
        assertThat(send("GET", "/api/sessions?token=" + TOKEN, null, null).statusCode()).isEqualTo(401);
        assertThat(send("GET", "/api/sessions", TOKEN, null).statusCode()).isEqualTo(200);
    }

    @Test
    void thePageItselfCarriesNoDataAndForbidsInlineScript() throws Exception {
        HttpResponse<String> page = send("GET", "/", null, null);
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.body()).contains("<title>Shelly console</title>").doesNotContain(TOKEN);
        assertThat(page.headers().firstValue("Content-Security-Policy").orElseThrow())
                .contains("script-src 'self'").contains("frame-ancestors 'none'");
        assertThat(send("GET", "/console.js", null, null).body()).contains("textContent").doesNotContain("innerHTML");
        assertThat(send("GET", "/console.css", null, null).statusCode()).isEqualTo(200);
        assertThat(send("GET", "/secret.txt", null, null).statusCode()).isEqualTo(404);
    }

    @Test
    void changesArePostsAndReadsAreGets() throws Exception {
        HttpResponse<String> getCancel = send("GET", "/api/sessions/abc/cancel", TOKEN, null);
        assertThat(getCancel.statusCode()).isEqualTo(405);
        assertThat(getCancel.headers().firstValue("Allow")).hasValue("POST");
        assertThat(send("GET", "/api/sessions/abc/decisions/c1", TOKEN, null).statusCode()).isEqualTo(405);
        assertThat(send("POST", "/api/sessions", TOKEN, "{}").statusCode()).isEqualTo(405);
        assertThat(send("POST", "/api/events", TOKEN, "{}").statusCode()).isEqualTo(405);
        assertThat(send("POST", "/", null, "{}").statusCode()).isEqualTo(405);
        assertThat(send("POST", "/api/sessions/abc/cancel", TOKEN, "not json").statusCode()).isEqualTo(400);
    }

    @Test
    void anApprovalPostedToTheConsoleFinishesTheTurn() throws Exception {
        Team.Started started = team.start();
        try (var session = started.session()) {
            Turn paused = started.turn().get(30, TimeUnit.SECONDS);
            assertThat(paused.paused()).isTrue();
            String id = session.id();

            JsonNode list = JSON.readTree(send("GET", "/api/sessions", TOKEN, null).body());
            JsonNode line = find(list.path("sessions"), id);
            assertThat(line.path("agent").asString()).isEqualTo("lead");
            assertThat(line.path("paused").asBoolean()).isTrue();
            assertThat(line.path("usage").path("total").asLong()).isPositive();

            JsonNode detail = JSON.readTree(send("GET", "/api/sessions/" + id, TOKEN, null).body());
            assertThat(detail.path("runs")).extracting(r -> r.path("agent").asString())
                    .containsExactlyInAnyOrder("lead", "researcher", "writer");
            JsonNode pending = detail.path("pending").get(0);
            assertThat(pending.path("tool").asString()).isEqualTo("publish");
            assertThat(pending.path("arguments").asString()).isEqualTo(Team.HOSTILE_ARGS);
            assertThat(detail.path("turns").get(0).path("usd").asDouble()).isPositive();

            String decision = "/api/sessions/" + id + "/decisions/"
                    + URLEncoder.encode(pending.path("id").asString(), StandardCharsets.UTF_8);
            HttpResponse<String> maybe = send("POST", decision, TOKEN, "{\"answer\":\"maybe\"}");
            assertThat(maybe.statusCode()).isEqualTo(400);
            assertThat(JSON.readTree(maybe.body()).path("error").asString())
                    .isEqualTo("answer must be approve, deny, edit or reply, was 'maybe'");
            assertThat(JSON.readTree(send("POST", decision, TOKEN, "{}").body()).path("error").asString())
                    .endsWith(", was none");
            String tooLong = "{\"answer\":\"" + "y".repeat(100) + "\"}";
            assertThat(JSON.readTree(send("POST", decision, TOKEN, tooLong).body()).path("error").asString())
                    .endsWith("was '" + "y".repeat(40) + "…'");
            HttpResponse<String> answered = send("POST", decision, TOKEN, "{\"answer\":\"approve\"}");
            assertThat(answered.statusCode()).isEqualTo(200);
            assertThat(JSON.readTree(answered.body()).path("proceeded").asBoolean()).isTrue();

            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (session.paused() || !session.chat().last().orElseThrow().text().startsWith("lead finished")) {
                assertThat(System.nanoTime()).as("the turn finishes").isLessThan(deadline);
                Thread.sleep(20);
            }
            assertThat(session.chat().last().orElseThrow().text()).isEqualTo("lead finished after 1 results");
            assertThat(send("POST", decision, TOKEN, "{\"answer\":\"approve\"}").statusCode())
                    .as("nothing waits any more").isBetween(400, 409);
        }
    }

    @Test
    void aReconnectingClientGetsWhatItMissedFromItsLastEventId() throws Exception {
        try (Sse first = Sse.open(console, -1)) {
            first.awaitOpen();
            publish("replay-a", 5);
            List<Long> ids = first.ids(5);
            long last = ids.get(2);
            // The client "loses" the last two, and comes back with the id of the third.
            try (Sse again = Sse.open(console, last)) {
                assertThat(again.ids(2)).containsExactly(ids.get(3), ids.get(4));
                publish("replay-a", 1);
                assertThat(again.ids(1)).containsExactly(ids.get(4) + 1);
            }
        }
        // An id older than the history holds: the client is told to reload.
        publish("replay-b", 300);
        try (Sse stale = Sse.open(console, 1)) {
            assertThat(stale.next()).contains("\"type\":\"reset\"");
        }
    }

    @Test
    void aStalledClientIsDroppedWhileTenThousandEventsFlowAndAReadingOneGetsThemAll() throws Exception {
        long droppedBefore = console.droppedClients();
        try (Socket stalled = new Socket(console.url().getHost(), console.port()); Sse reader = Sse.open(console, -1)) {
            OutputStream out = stalled.getOutputStream();
            out.write(("GET /api/events HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer " + TOKEN
                    + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = stalled.getInputStream();
            byte[] head = new byte[64];
            assertThat(in.read(head)).isPositive(); // connected; from here on it reads nothing
            reader.awaitOpen();
            // 10,000 events of 4 KB, far more than the socket buffers hold; the reading client keeps
            // up batch by batch, the stalled one's buffer fills and it is dropped.
            List<Long> ids = new ArrayList<>();
            for (int batch = 0; batch < 50; batch++) {
                publish("flood", 200, 4000);
                ids.addAll(reader.ids(200));
            }
            assertThat(ids).hasSize(10_000);
            for (int i = 1; i < ids.size(); i++) {
                assertThat(ids.get(i)).isEqualTo(ids.get(i - 1) + 1);
            }
            assertThat(console.droppedClients()).isGreaterThan(droppedBefore);
            // The server closed the stalled connection: what it had sent drains, then the stream ends.
            stalled.setSoTimeout(20_000);
            byte[] buffer = new byte[1 << 16];
            while (in.read(buffer) >= 0) {
                // drain
            }
        }
    }

    @Test
    void retriesFallbacksAndCompactionsShowInTheirRun() throws Exception {
        AgentEvent.Source source = new AgentEvent.Source("lead", null, 0, "run-tree", null, "tree-session");
        AgentEvent.Source child = new AgentEvent.Source("helper", "lead", 1, "run-child", "run-tree", "tree-session");
        team.engine.events().publish(new AgentEvent.AgentStarted(source));
        team.engine.events().publish(new AgentEvent.AgentStarted(child));
        team.engine.events().publish(new AgentEvent.ModelRetried(child, 1, 3, "overloaded (HTTP 529)", Duration.ofMillis(400)));
        team.engine.events().publish(new AgentEvent.ModelFellBack(child, "claude", "gpt", "overloaded"));
        team.engine.events().publish(new AgentEvent.ContextCompacted(source, 4, "compaction", 12_000, 3_000, 20));
        JsonNode runs = null;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            runs = JSON.readTree(send("GET", "/api/sessions/tree-session", TOKEN, null).body()).path("runs");
            if (runs.size() == 2 && runs.get(0).path("compactions").size() == 1 && runs.get(1).path("retries").size() == 2) {
                break;
            }
            Thread.sleep(10);
        }
        assertThat(runs.get(1).path("parent").asString()).isEqualTo("run-tree");
        assertThat(runs.get(1).path("retries").get(0).path("error").asString()).isEqualTo("overloaded (HTTP 529)");
        assertThat(runs.get(1).path("retries").get(0).path("delayMs").asLong()).isEqualTo(400);
        assertThat(runs.get(1).path("retries").get(1).path("to").asString()).isEqualTo("gpt");
        assertThat(runs.get(0).path("compactions").get(0).path("before").asLong()).isEqualTo(12_000);
        assertThat(runs.get(0).path("compactions").get(0).path("after").asLong()).isEqualTo(3_000);
        assertThat(send("GET", "/api/sessions/never-seen", TOKEN, null).statusCode()).isEqualTo(404);
    }

    @Test
    void aQuestionFromAskUserIsAnsweredInTheConsole() throws Exception {
        try (var session = team.engine.newSessionWith("asker")) {
            assertThat(session.send("Paint it.").paused()).isTrue();
            JsonNode detail = JSON.readTree(send("GET", "/api/sessions/" + session.id(), TOKEN, null).body());
            JsonNode question = detail.path("pending").get(0);
            assertThat(question.path("kind").asString()).isEqualTo("question");
            assertThat(question.path("reason").asString()).contains("Which <b>colour</b>?");
            HttpResponse<String> replied = send("POST", "/api/sessions/" + session.id() + "/decisions/"
                    + URLEncoder.encode(question.path("id").asString(), StandardCharsets.UTF_8), TOKEN,
                    "{\"answer\":\"reply\",\"text\":\"teal\"}");
            assertThat(replied.statusCode()).isEqualTo(200);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (session.paused() || !session.chat().last().orElseThrow().text().startsWith("asker heard")) {
                assertThat(System.nanoTime()).as("the turn finishes").isLessThan(deadline);
                Thread.sleep(20);
            }
            assertThat(session.chat().last().orElseThrow().text()).isEqualTo("asker heard: teal");
        }
    }

    @Test
    void cancellingFromTheConsoleEndsARunningTurnAndAPausedOne() throws Exception {
        try (var session = team.engine.newSessionWith("sleeper")) {
            java.util.concurrent.Future<Turn> turn = session.submit("wait");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (session.runs().isEmpty() || session.chat().messages().stream().noneMatch(m -> m.hasToolCalls())) {
                assertThat(System.nanoTime()).as("the tool call starts").isLessThan(deadline);
                Thread.sleep(10);
            }
            HttpResponse<String> cancelled = send("POST", "/api/sessions/" + session.id() + "/cancel", TOKEN, "{}");
            assertThat(cancelled.statusCode()).isEqualTo(200);
            assertThat(JSON.readTree(cancelled.body()).path("cancelled").asBoolean()).isTrue();
            assertThatThrownBy(() -> turn.get(20, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(java.util.concurrent.CancellationException.class)
                    .hasMessageContaining("agent 'sleeper' was cancelled");
        }
        Team.Started started = team.start();
        try (var session = started.session()) {
            assertThat(started.turn().get(30, TimeUnit.SECONDS).paused()).isTrue();
            HttpResponse<String> wrongRun = send("POST", "/api/sessions/" + session.id() + "/cancel", TOKEN,
                    "{\"run\":\"no-such-run\"}");
            assertThat(wrongRun.statusCode()).isEqualTo(400);
            assertThat(wrongRun.body()).contains("has no run 'no-such-run'");
            assertThat(send("POST", "/api/sessions/" + session.id() + "/cancel", TOKEN, "{}").statusCode()).isEqualTo(200);
            assertThat(session.paused()).isFalse();
            JsonNode after = JSON.readTree(send("GET", "/api/sessions/" + session.id(), TOKEN, null).body());
            assertThat(after.path("pending")).isEmpty();
            assertThat(after.path("runs")).extracting(r -> r.path("state").asString()).doesNotContain("waiting", "running");
            // The next message is a new turn with a tree of its own, not the cancelled one taken up.
            session.submit("Again, please.").get(30, TimeUnit.SECONDS);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            JsonNode next;
            do {
                next = JSON.readTree(send("GET", "/api/sessions/" + session.id(), TOKEN, null).body());
                assertThat(System.nanoTime()).as("the second turn shows").isLessThan(deadline);
                Thread.sleep(10);
            // The researcher asks as soon as it starts; the writer, its sibling, may start a moment later.
            } while (next.path("turns").size() < 2 || next.path("pending").isEmpty() || next.path("runs").size() < 3);
            assertThat(next.path("runs")).extracting(r -> r.path("agent").asString())
                    .containsExactlyInAnyOrder("lead", "researcher", "writer");
            assertThat(next.path("runs")).extracting(r -> r.path("state").asString()).doesNotContain("cancelled");
        }
    }

    /** Publishes tool results of {@code size} characters each (a kilobyte unless given) on the engine's bus, for a session of their own. */
    private static void publish(String session, int n) {
        publish(session, n, 1000);
    }

    private static void publish(String session, int n, int size) {
        String text = "x".repeat(size);
        AgentEvent.Source source = new AgentEvent.Source("lead", null, 0, "run-" + session, null, session);
        for (int i = 0; i < n; i++) {
            ToolCall call = new ToolCall("c" + i, "work", "{}");
            team.engine.events().publish(new AgentEvent.ToolCallFinished(source, call, ToolResult.of(call.id(), text),
                    Duration.ofMillis(1)));
        }
    }

    private static JsonNode find(JsonNode sessions, String id) {
        for (JsonNode s : sessions) {
            if (s.path("id").asString().equals(id)) {
                return s;
            }
        }
        throw new AssertionError("no session " + id + " in " + sessions);
    }

    /** An event stream read line by line on a thread of its own. */
    static final class Sse implements AutoCloseable {
        private final BlockingQueue<String> frames = new LinkedBlockingQueue<>();
        private final java.util.concurrent.CompletableFuture<HttpResponse<Stream<String>>> response;
        private final java.util.concurrent.CountDownLatch open = new java.util.concurrent.CountDownLatch(1);
        private volatile Stream<String> lines;

        private Sse(java.util.concurrent.CompletableFuture<HttpResponse<Stream<String>>> response) {
            this.response = response;
        }

        static Sse open(Console console, long lastId) {
            HttpRequest.Builder b = HttpRequest.newBuilder(console.url().resolve("/api/events"))
                    .header("Authorization", "Bearer " + console.token());
            if (lastId >= 0) {
                b.header("Last-Event-ID", Long.toString(lastId));
            }
            Sse sse = new Sse(http.sendAsync(b.build(), HttpResponse.BodyHandlers.ofLines()));
            Thread.ofVirtual().start(sse::read);
            return sse;
        }

        private void read() {
            try {
                HttpResponse<Stream<String>> r = response.get(10, TimeUnit.SECONDS);
                lines = r.body();
                StringBuilder frame = new StringBuilder();
                r.body().forEach(line -> {
                    if (line.startsWith(": shelly console")) {
                        open.countDown();
                    }
                    if (line.isEmpty()) {
                        if (frame.indexOf("data:") >= 0) {
                            frames.add(frame.toString());
                        }
                        frame.setLength(0);
                    } else {
                        frame.append(line).append('\n');
                    }
                });
            } catch (Exception e) {
                // closed
            }
        }

        void awaitOpen() throws InterruptedException {
            assertThat(open.await(10, TimeUnit.SECONDS)).as("the stream opened").isTrue();
            // Connected to the hub right after the greeting is flushed.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (ConsoleServerTest.console.connectedClients() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
        }

        String next() throws InterruptedException {
            String frame = frames.poll(20, TimeUnit.SECONDS);
            assertThat(frame).as("an event arrived").isNotNull();
            return frame;
        }

        List<Long> ids(int n) throws InterruptedException {
            List<Long> ids = new ArrayList<>();
            while (ids.size() < n) {
                String frame = next();
                for (String line : frame.split("\n")) {
                    if (line.startsWith("id: ")) {
                        ids.add(Long.parseLong(line.substring(4)));
                    }
                }
            }
            return ids;
        }

        @Override
        public void close() throws IOException {
            response.cancel(true);
            Stream<String> l = lines;
            if (l != null) {
                l.close();
            }
        }
    }
}
