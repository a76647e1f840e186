package dev.shelly.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.engine.Engine;
import dev.shelly.engine.Session;
import dev.shelly.engine.ShellyDir;
import dev.shelly.engine.config.ConfigException;
import dev.shelly.storage.spi.RedisConfig;
import dev.shelly.storage.SessionNotFoundException;
import dev.shelly.testing.ScriptedCompleter;
import dev.shelly.testing.Step;
import dev.shelly.state.tasks.Task;
import dev.shelly.state.tasks.TaskStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.node.JsonNodeFactory;

/** A redis: section in config.yaml puts two engines' state, tasks and sessions in one Redis, found through ServiceLoader. */
class RedisEngineTest {

    private static Path project(Path dir, String url, String prefix) throws Exception {
        Path shelly = Files.createDirectories(dir.resolve(".shelly"));
        Files.writeString(shelly.resolve("config.yaml"), """
                providers:
                  - name: m
                    kind: canned
                    model: x
                    reply: unused, the engine is given its completer
                    rate_limit: { requests_per_minute: 600, tokens_per_minute: 100000 }
                agents:
                  - name: worker
                    toolboxes: [tasks, state]
                redis:
                  url: ${REDIS_URL}
                  key_prefix: "%s"
                  timeout: 2s
                """.formatted(prefix));
        return shelly;
    }

    @Test
    void twoEnginesWithTheSameRedisSectionShareTheBoardAndTheBlackboard(@TempDir Path a, @TempDir Path b) throws Exception {
        String prefix = SharedRedis.freshName() + ":";
        Map<String, String> env = Map.of("REDIS_URL", SharedRedis.server().url());
        try (Engine one = Engine.builder().dir(new ShellyDir(project(a, "", prefix))).environment(env::get)
                        .completer("m", ScriptedCompleter.of(Step.toolCall("tasks_claim", "{}"), Step.reply("claimed")))
                        .build();
                Engine two = Engine.builder().dir(new ShellyDir(project(b, "", prefix))).environment(env::get)
                        .completer("m", ScriptedCompleter.of()).build()) {
            Task created = two.tasks().create("shared work", "", "app");
            two.store().setJson("note", "\"hello\"");

            assertThat(one.newSession().send("take a task").text()).isEqualTo("claimed");

            Task claimed = two.tasks().get(created.id()).orElseThrow();
            assertThat(claimed.status()).isEqualTo(TaskStatus.IN_PROGRESS);
            assertThat(claimed.assignee()).isEqualTo("worker");
            assertThat(one.store().get("note")).contains(JsonNodeFactory.instance.stringNode("hello"));
            assertThat(two.store().watch("note", Duration.ZERO)).isPresent();
        }
    }

    @Test
    void twoEnginesWithTheSameRedisSectionShareSessionsAndLoseNoTurn(@TempDir Path a, @TempDir Path b) throws Exception {
        String prefix = SharedRedis.freshName() + ":";
        Map<String, String> env = Map.of("REDIS_URL", SharedRedis.server().url());
        int turns = 20;
        try (Engine one = Engine.builder().dir(new ShellyDir(project(a, "", prefix))).environment(env::get)
                        .completer("m", SessionWorkerMain.echo()).build();
                Engine two = Engine.builder().dir(new ShellyDir(project(b, "", prefix))).environment(env::get)
                        .completer("m", SessionWorkerMain.echo()).build();
                ExecutorService pool = Executors.newFixedThreadPool(8)) {
            try (Session s = one.newSession("conversation-1")) {
                s.send("hello");
            }
            assertThat(two.savedSessions()).containsExactly("conversation-1");
            List<Future<?>> sent = new ArrayList<>();
            for (int i = 0; i < turns; i++) {
                Engine engine = i % 2 == 0 ? one : two;
                String text = "turn " + i;
                sent.add(pool.submit(() -> {
                    try (Session s = engine.resume("conversation-1")) {
                        assertThat(s.send(text).text()).isEqualTo("re: " + text);
                    }
                    return null;
                }));
            }
            for (Future<?> f : sent) {
                f.get(120, TimeUnit.SECONDS);
            }
            try (Session s = two.resume("conversation-1")) {
                List<String> stored = s.chat().messages().stream().filter(m -> m.role() == Role.USER)
                        .map(Message::text).toList();
                System.out.printf("two engines on Redis: %d turns sent, %d stored%n", turns, stored.size() - 1);
                assertThat(stored).hasSize(turns + 1).contains("turn 0", "turn " + (turns - 1));
            }
            assertThatThrownBy(() -> one.resume("nope"))
                    .isInstanceOf(SessionNotFoundException.class)
                    .hasMessage("no saved session 'nope'");
            one.deleteSession("conversation-1");
            assertThat(two.savedSessions()).isEmpty();
        }
        assertThat(a.resolve(".shelly/sessions")).as("no session files: they are in Redis").doesNotExist();
        assertThat(b.resolve(".shelly/sessions")).doesNotExist();
    }

    @Test
    void anUnreachableServerFailsTheBuildAtRedisUrlWithoutThePassword(@TempDir Path dir) throws Exception {
        int port;
        try (var socket = new java.net.ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        Map<String, String> env = Map.of("REDIS_URL", "redis://:hunter2@127.0.0.1:" + port);
        Path shelly = project(dir, "", "x:");
        assertThatThrownBy(() -> Engine.builder().dir(new ShellyDir(shelly)).environment(env::get).build())
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("config.yaml:11: redis.url: cannot open Redis at redis://127.0.0.1:" + port
                        + ": cannot connect to Redis at redis://127.0.0.1:" + port + " within 2 s: ")
                .hasMessageNotContaining("hunter2");
        assertThat(new RedisConfig("redis://:hunter2@h:1", "p:", false, Duration.ofSeconds(1)).toString())
                .doesNotContain("hunter2");
    }
}
