package dev.shelly.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.agent.PendingCall;
import dev.shelly.chats.Message;
import dev.shelly.chats.Part;
import dev.shelly.chats.Role;
import dev.shelly.chats.Text;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import dev.shelly.engine.config.ConfigException;
import dev.shelly.engine.config.ConfigLoader;
import dev.shelly.engine.config.EngineConfig;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.ModelResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(120)
class EngineCodingTest {
    @TempDir
    Path dir;

    EngineConfig config(String approval) {
        String yaml = coding("""
                      workspace: ${WS}
                      allow_commands: [echo]
                      timeout: 5s
                      sensitive: ["*.private"]
                """) + approval;
        return ConfigLoader.parse(yaml, "config.yaml", Map.of("WS", dir.toString())::get);
    }

    /** Reads a.txt and writes b.txt; then answers with the tool results. */
    static Completer model() {
        return request -> {
            Message last = request.last().orElseThrow();
            List<Part> parts = new ArrayList<>();
            if (last.role() == Role.USER) {
                parts.add(new ToolCall("c1", "fs_read", "{\"path\":\"a.txt\"}"));
                parts.add(new ToolCall("c2", "fs_write", "{\"path\":\"b.txt\",\"content\":\"B\"}"));
                parts.add(new ToolCall("c3", "fs_read", "{\"path\":\"k.private\"}"));
            } else {
                List<String> texts = new ArrayList<>();
                for (ToolResult r : last.toolResults()) {
                    texts.add(r.text());
                }
                parts.add(new Text(String.join(" | ", texts)));
            }
            return ModelResponse.of(new Message("model", Role.ASSISTANT, parts));
        };
    }

    @Test
    void aCodingAgentReadsFreelyAndWaitsForApprovalBeforeWriting() throws Exception {
        Files.writeString(dir.resolve("a.txt"), "A\n");
        Files.writeString(dir.resolve("k.private"), "S");
        try (Engine engine = Engine.builder().config(config("")).completer("m", model()).build();
                Session s = engine.newSession("s1")) {
            assertThat(engine.agent("coder").toolboxes().stream().flatMap(b -> b.names().stream()).toList())
                    .contains("fs_read", "fs_write", "fs_edit", "search_files", "run_command", "git_commit")
                    .doesNotContain("git_push");
            Turn turn = s.send("go");
            assertThat(turn.paused()).isTrue();
            assertThat(turn.pending()).extracting(PendingCall::id).containsExactly("c2");
            assertThat(dir.resolve("b.txt")).doesNotExist();
        }
    }

    @Test
    void theAgentsApprovalRulesWinOverTheCodingDefaults() throws Exception {
        Files.writeString(dir.resolve("a.txt"), "A\n");
        Files.writeString(dir.resolve("k.private"), "S");
        String approval = """
                    approval:
                      allow: [fs_write]
                """;
        try (Engine engine = Engine.builder().config(config(approval)).completer("m", model()).build();
                Session s = engine.newSession("s1")) {
            Turn turn = s.send("go");
            assertThat(turn.paused()).isFalse();
            assertThat(turn.text()).isEqualTo("     1\tA\n | created b.txt (1 bytes) | path 'k.private' is a sensitive "
                    + "file (pattern '*.private'); the coding tools do not touch it");
            assertThat(dir.resolve("b.txt")).hasContent("B");
        }
    }

    @Test
    void aBadCodingSectionIsReportedWithItsPlace() {
        assertThatThrownBy(() -> ConfigLoader.parse(coding("      timeout: 11m\n"), "config.yaml", name -> null))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("config.yaml:9: agents[0].coding.timeout: must be from 1s to 10m, got PT11M");
        EngineConfig missing = ConfigLoader.parse(coding("      workspace: does-not-exist-here\n"), "config.yaml",
                name -> null);
        assertThatThrownBy(() -> Engine.builder().config(missing).completer("m", model()).build())
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("agents[0].coding: workspace root '")
                .hasMessageContaining("does-not-exist-here' is not an existing directory");
    }

    static String coding(String lines) {
        return """
                providers:
                  - name: m
                    kind: openai
                    model: x
                    api_key: k
                agents:
                  - name: coder
                    coding:
                """ + lines;
    }

    @Test
    void theSandboxSettingsAreCheckedWithTheirPlace() {
        assertThatThrownBy(() -> ConfigLoader.parse(coding("      sandbox: docker\n"), "config.yaml", name -> null))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("config.yaml:9: agents[0].coding.sandbox: expected one of bubblewrap, none, got 'docker'");
        assertThatThrownBy(() -> ConfigLoader.parse(coding("      hide: [secrets]\n"), "config.yaml", name -> null))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("agents[0].coding.hide[0]: expected an absolute path, got 'secrets'");
        assertThatThrownBy(() -> ConfigLoader.parse(coding("      allow_commands: [bin/tool]\n"), "config.yaml",
                name -> null))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("agents[0].coding.allow_commands[0]: expected a program name or an absolute path");
        EngineConfig interpreter = ConfigLoader.parse(coding("      workspace: ${WS}\n      allow_commands: [python3]\n"),
                "config.yaml", Map.of("WS", dir.toString())::get);
        assertThatThrownBy(() -> Engine.builder().config(interpreter).completer("m", model()).build())
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("agents[0].coding: CodingTools.Builder.allowCommands 'python3': 'python3' runs code "
                        + "given on its command line; allow it with the arguments it may take, e.g. 'python3 -m pytest'");
    }

    @Test
    void sandboxNoneRunsCommandsUnconfinedOnPurposeAndTheEntryWithArgumentsBinds() throws Exception {
        EngineConfig c = ConfigLoader.parse(coding("""
                      workspace: ${WS}
                      sandbox: none
                      allow_commands: ["echo hello"]
                """), "config.yaml", Map.of("WS", dir.toString())::get);
        try (Engine engine = Engine.builder().config(c).completer("m", model()).build()) {
            var box = engine.agent("coder").toolboxes().stream().filter(b -> b.names().contains("run_command"))
                    .findFirst().orElseThrow();
            var ok = box.call(new ToolCall("c", "run_command", "{\"program\":\"echo\",\"args\":[\"hello\",\"you\"]}"),
                    dev.shelly.tools.ToolContext.of("coder"));
            assertThat(ok.text()).isEqualTo("exit code 0\nhello you\n");
            var no = box.call(new ToolCall("c", "run_command", "{\"program\":\"echo\",\"args\":[\"bye\"]}"),
                    dev.shelly.tools.ToolContext.of("coder"));
            assertThat(no.text()).isEqualTo("program 'echo' is allowed only with the arguments its allowlist entries "
                    + "name: echo hello");
        }
    }
}
