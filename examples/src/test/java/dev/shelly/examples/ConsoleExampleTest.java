package dev.shelly.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The {@code console} example against its scripted team: it prints the console's link with the
 * token in the fragment on a line of its own, the turn waits for the writer's post, an approval
 * posted to the console finishes the turn, and an interrupt ends the example.
 */
@Timeout(60)
class ConsoleExampleTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @Test
    void theLinkIsPrintedAndAnApprovalGivenInTheConsoleFinishesTheTurn() throws Exception {
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        AtomicInteger exit = new AtomicInteger(-1);
        PrintStream out = new PrintStream(new Lines(lines), true, StandardCharsets.UTF_8);
        Thread example = Thread.ofPlatform().name("console-example").start(() -> exit.set(Main.run(Examples.all(),
                new String[] {"console"}, Map.of("HOME", "/nowhere"), out, new PrintStream(err, true, StandardCharsets.UTF_8))));
        try (HttpClient http = HttpClient.newHttpClient()) {
            assertThat(next(lines)).isEqualTo(ExampleModels.SCRIPTED_BANNER);
            String link = until(lines, l -> l.startsWith("http://"));
            assertThat(link).matches("http://127\\.0\\.0\\.1:\\d+/#token=[0-9a-f]{48}");
            URI base = URI.create(link.substring(0, link.indexOf('#')));
            String token = link.substring(link.indexOf("#token=") + "#token=".length());
            assertThat(until(lines, l -> l.startsWith("[waiting in the console:"))).startsWith(
                    "[waiting in the console: writer wants to run publish_post {\"title\":\"The old harbour\"");

            HttpRequest.Builder anonymous = HttpRequest.newBuilder(base.resolve("/api/sessions"));
            assertThat(http.send(anonymous.build(), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(401);
            JsonNode sessions = JSON.readTree(get(http, base.resolve("/api/sessions"), token)).path("sessions");
            assertThat(sessions).hasSize(1);
            String id = sessions.get(0).path("id").asString();
            assertThat(sessions.get(0).path("paused").asBoolean()).isTrue();
            JsonNode detail = JSON.readTree(get(http, base.resolve("/api/sessions/" + id), token));
            assertThat(detail.path("runs")).extracting(r -> r.path("agent").asString())
                    .containsExactlyInAnyOrder("lead", "researcher", "writer");
            String pending = detail.path("pending").get(0).path("id").asString();

            HttpResponse<String> approved = http.send(HttpRequest.newBuilder(base.resolve("/api/sessions/" + id
                    + "/decisions/" + URLEncoder.encode(pending, StandardCharsets.UTF_8)))
                    .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"answer\":\"approve\"}")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(approved.statusCode()).isEqualTo(200);
            assertThat(until(lines, l -> l.startsWith("[the turn finished:"))).isEqualTo("[the turn finished: The team is "
                    + "done: the archive is searched and the post is published.]");
        } finally {
            example.interrupt();
            example.join(TimeUnit.SECONDS.toMillis(20));
        }
        assertThat(exit.get()).isZero();
        assertThat(err.toString(StandardCharsets.UTF_8)).isEmpty();
        assertThat(until(lines, l -> l.startsWith("[interrupted"))).isEqualTo("[interrupted: the console stops]");
    }

    private static String get(HttpClient http, URI uri, String token) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri).header("Authorization", "Bearer " + token).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as("GET %s", uri.getPath()).isEqualTo(200);
        return r.body();
    }

    private static String next(BlockingQueue<String> lines) throws InterruptedException {
        String line = lines.poll(30, TimeUnit.SECONDS);
        assertThat(line).as("the example printed another line").isNotNull();
        return line;
    }

    private static String until(BlockingQueue<String> lines, java.util.function.Predicate<String> wanted)
            throws InterruptedException {
        List<String> seen = new java.util.ArrayList<>();
        while (true) {
            String line = lines.poll(30, TimeUnit.SECONDS);
            assertThat(line).as("a wanted line after %s", seen).isNotNull();
            if (wanted.test(line)) {
                return line;
            }
            seen.add(line);
        }
    }

    /** Splits what is written into lines as they end. */
    private static final class Lines extends OutputStream {
        private final BlockingQueue<String> lines;
        private final ByteArrayOutputStream line = new ByteArrayOutputStream();

        Lines(BlockingQueue<String> lines) {
            this.lines = lines;
        }

        @Override
        public synchronized void write(int b) {
            if (b == '\n') {
                lines.add(line.toString(StandardCharsets.UTF_8));
                line.reset();
            } else {
                line.write(b);
            }
        }
    }
}
