package dev.shelly.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.agent.context.ContextPolicy;
import dev.shelly.agent.context.ContextStrategy;
import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.chats.Text;
import dev.shelly.chats.ToolCall;
import dev.shelly.engine.config.ConfigException;
import dev.shelly.engine.config.ConfigLoader;
import dev.shelly.engine.config.EngineConfig;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolOutput;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** An agent's context: section: the policy it builds, and a compacted session saved and resumed. */
class ContextSessionTest {
    private static final String YAML = """
            providers:
              - { name: m, kind: openai, model: gpt-4o-mini, api_key: k }
            agents:
              - name: worker
                toolboxes: [pages]
                context:
                  window: 700
                  compaction: { threshold: 0.6 }
            """;

    private static EngineConfig config(String yaml) {
        return ConfigLoader.parse(yaml, "config.yaml", name -> null).check(null, Set.of("pages"));
    }

    private static ToolBox pages() {
        return ToolBox.of(Tool.of("fetch", "Fetch a page", "{\"type\":\"object\"}", (in, ctx) ->
                ToolOutput.text("page " + in.path("page").asInt() + ": " + "y".repeat(400))));
    }

    /** Ten fetches, then "done"; afterwards "again". Summaries are "summary N". Records the agent's requests. */
    private static final class Model implements Completer {
        final List<ModelRequest> requests = new CopyOnWriteArrayList<>();
        private final AtomicInteger calls = new AtomicInteger();
        private final AtomicInteger summaries = new AtomicInteger();

        @Override
        public ModelResponse complete(ModelRequest request) {
            if (request.tools().isEmpty() && request.systemPrompt().orElse("").startsWith("You compress")) {
                return ModelResponse.of(Message.text("m", Role.ASSISTANT, "summary " + summaries.incrementAndGet()));
            }
            requests.add(request);
            int n = calls.incrementAndGet();
            return ModelResponse.of(n <= 10 ? Message.of("m", Role.ASSISTANT, new ToolCall("c" + n, "fetch", "{\"page\":" + n + "}"))
                    : Message.of("m", Role.ASSISTANT, new Text(n == 11 ? "done" : "again")));
        }
    }

    @Test
    void aCompactedSessionIsSavedWholeAndResumesFromItsCompactedView(@TempDir Path dir) {
        Model first = new Model();
        String id;
        List<Message> saved;
        try (Engine engine = Engine.builder().config(config(YAML)).completer("m", first).toolbox("pages", pages())
                .sessionsDir(dir).build()) {
            try (Session s = engine.newSession()) {
                assertThat(s.send("go").text()).isEqualTo("done");
                id = s.id();
                saved = s.chat().messages();
            }
        }
        assertThat(first.summaries.get()).isPositive();
        Message latest = null;
        for (Message m : saved) {
            if (m.sender().equals(ContextPolicy.SENDER)) {
                latest = m;
            }
        }
        assertThat(latest).isNotNull();

        Model second = new Model();
        second.calls.set(11);
        try (Engine engine = Engine.builder().config(config(YAML)).completer("m", second).toolbox("pages", pages())
                .sessionsDir(dir).build();
                Session s = engine.resume(id)) {
            // Message by message, metadata included: the transcript and its summaries came back whole.
            List<Message> resumed = s.chat().messages();
            assertThat(resumed).hasSameSizeAs(saved);
            for (int i = 0; i < saved.size(); i++) {
                assertThat(resumed.get(i)).as("message %d", i).isEqualTo(saved.get(i));
            }

            assertThat(s.send("and now?").text()).isEqualTo("again");
        }
        int from = ((Number) latest.metadata().get(ContextPolicy.FROM)).intValue();
        List<Message> expected = new ArrayList<>();
        expected.add(saved.getFirst());
        expected.add(latest);
        for (int i = from; i < saved.size(); i++) {
            if (!saved.get(i).sender().equals(ContextPolicy.SENDER)) {
                expected.add(saved.get(i));
            }
        }
        expected.add(Message.user("and now?"));
        assertThat(second.requests.getFirst().messages()).isEqualTo(expected);
    }

    @Test
    void theContextSectionBuildsThePolicyItNamesInItsOrder() {
        EngineConfig config = config("""
                providers:
                  - { name: m, kind: openai, model: gpt-4o-mini, api_key: k }
                  - { name: cheap, kind: openai, model: gpt-5-mini, api_key: k }
                context_windows:
                  gpt-4o-mini: 9000
                agents:
                  - name: worker
                    provider: m
                    toolboxes: [pages]
                    context:
                      summarizer: cheap
                      failure_reflection: {}
                      loop_detection: { repeats: 4 }
                      compaction: { threshold: 0.7, keep_recent: 0.2 }
                      sliding_window: { keep_turns: 10 }
                      offload: { min_chars: 5000 }
                      mask_observations: { keep_recent: 4 }
                      trim_tool_results: { max_chars: 500 }
                      budget: { max_tokens: 100000, max_time: 5m }
                      tools: { deny: ["delete_*"] }
                """);
        try (Engine engine = Engine.builder().config(config).completer("m", new Model()).completer("cheap", new Model())
                .toolbox("pages", pages()).build()) {
            ContextPolicy policy = engine.agent("worker").contextPolicy();
            assertThat(policy.window()).hasValue(9_000);
            assertThat(policy.summarizer()).isPresent();
            assertThat(policy.strategies()).extracting(ContextStrategy::name).containsExactly("tool_scope", "budget",
                    "trim_tool_results", "mask_observations", "offload", "sliding_window", "compaction", "loop_detection",
                    "failure_reflection");
            assertThat(policy.strategies().get(6)).isEqualTo(ContextStrategy.compaction(0.7, 0.2, null, null));
            assertThat(engine.contextWindows().find("gpt-4o-mini").orElseThrow().tokens()).isEqualTo(9_000);
        }
    }

    @Test
    void aBadContextSettingIsReportedWithItsFileLineAndPath() {
        assertThatThrownBy(() -> config("""
                providers: [{ name: m, kind: openai, model: x, api_key: k }]
                agents:
                  - name: a
                    context:
                      compaction: { threshold: 0.5, keep_recent: 0.7 }
                """)).isInstanceOf(ConfigException.class).hasMessage("config.yaml:5: agents[0].context.compaction.keep_recent: "
                + "expected a number above 0 and below threshold (0.5), got 0.7");
        assertThatThrownBy(() -> config("""
                providers: [{ name: m, kind: openai, model: x, api_key: k }]
                agents:
                  - name: a
                    context:
                      summarizer: cheap
                """)).isInstanceOf(ConfigException.class).hasMessage("config.yaml:5: agents[0].context.summarizer: unknown "
                + "provider 'cheap'; expected one of: m");
        assertThatThrownBy(() -> config("""
                providers: [{ name: m, kind: openai, model: x, api_key: k }]
                agents:
                  - name: a
                    context:
                      budget: { warn_at: 0.5 }
                """)).isInstanceOf(ConfigException.class).hasMessageStartingWith("config.yaml:5: agents[0].context.budget");
    }
}
