package dev.shelly.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.net.ServerSocket;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import mockwebserver3.junit5.StartStop;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The {@code redis-tasks} example against a Redis of the test's own at {@code REDIS_URL}: the
 * worker processes' lines are labelled, a failing worker is named in one line, and the run leaves
 * no key behind.
 */
@Timeout(180)
class RedisTasksExampleTest {
    @StartStop
    private final MockWebServer server = new MockWebServer();
    private Process redis;
    private String url;

    @BeforeEach
    void startRedis() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        redis = new ProcessBuilder("redis-server", "--port", Integer.toString(port), "--bind", "127.0.0.1", "--save", "",
                "--appendonly", "no").redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        url = "redis://127.0.0.1:" + port;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (keys() < 0) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("redis-server did not start on port " + port);
            }
            Thread.sleep(50);
        }
    }

    @AfterEach
    void stopRedis() throws InterruptedException {
        redis.destroy();
        redis.waitFor(10, TimeUnit.SECONDS);
    }

    /** The number of keys in the database, or -1 while the server does not answer. */
    private long keys() {
        RedisClient client = RedisClient.create(url);
        try (StatefulRedisConnection<String, String> c = client.connect()) {
            return c.sync().dbsize();
        } catch (RuntimeException e) {
            return -1;
        } finally {
            client.shutdown();
        }
    }

    @Test
    void aScriptedRunLabelsEachWorkersLinesAndLeavesNoKeyBehind() {
        Runs.Result r = Runs.run(Map.of("REDIS_URL", url), "redis-tasks");

        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.lines()).filteredOn(l -> l.startsWith("[worker ")).hasSize(4)
                .allMatch(l -> l.matches("\\[worker (p[12])] \\1-w[12] finished .+"));
        assertThat(r.lines().getLast()).isEqualTo("[board] 4 of 4 tasks completed");
        assertThat(keys()).as("keys left in Redis").isZero();
    }

    @Test
    void aFailingWorkerIsNamedWithItsCauseInOneLineWithoutAStackTrace() {
        ChatCompletionsFake planner = new ChatCompletionsFake(body -> ChatCompletionsFake.hasToolResults(body)
                ? ChatCompletionsFake.text("Planned.")
                : ChatCompletionsFake.call("tasks_create", "{\"title\":\"Write the notes\",\"description\":\"Two lines.\"}"));
        server.setDispatcher(new Dispatcher() {
            @Override
            public MockResponse dispatch(RecordedRequest request) throws InterruptedException {
                String body = request.getBody().utf8();
                if (ChatCompletionsFake.systemPrompt(ChatCompletionsFake.JSON.readTree(body)).startsWith("You are planner.")) {
                    return planner.dispatch(request);
                }
                return new MockResponse.Builder().code(400).addHeader("Content-Type", "application/json")
                        .body(ChatCompletionsFake.LLAMA_OVERFLOW).build();
            }
        });

        Runs.Result r = Runs.run(Map.of("REDIS_URL", url, "OPENAI_BASE_URL", server.url("/v1").toString(),
                "OPENAI_API_KEY", "x", "SHELLY_MODEL", "qwen3"), "redis-tasks");

        String cause = "the conversation is too long for qwen3 \\(2574 tokens; its context window: 2048 tokens\\) "
                + "\\(HTTP 400\\): request \\(2574 tokens\\) exceeds the available context size \\(2048 tokens\\), try "
                + "increasing it; agent 'p[12]-w[12]' has no context policy to make room; give it one that compacts, .+";
        assertThat(r.exit()).isEqualTo(Main.FAILED);
        assertThat(r.errLines()).hasSize(1);
        assertThat(r.errLines().getFirst()).matches("error: worker process (p[12]) exited with code 1: \\1-w[12] failed: "
                + cause);
        List<String> failures = r.lines().stream().filter(l -> l.matches("\\[worker (p[12])] \\1-w[12] failed: .+")).toList();
        assertThat(failures).hasSize(4).allMatch(l -> l.matches("\\[worker (p[12])] \\1-w[12] failed: " + cause));
        assertThat(r.out() + r.err()).doesNotContain("Exception", "\tat ");
        assertThat(keys()).as("keys left in Redis").isZero();
    }
}
