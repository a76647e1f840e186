package dev.shelly.engine.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Hostile configuration files fail fast with a ConfigException naming the file. */
@Timeout(60)
class ConfigLimitsTest {
    private static final Function<String, String> ENV = Map.<String, String>of()::get;

    @TempDir
    Path dir;

    private Path write(String text) throws Exception {
        Path file = dir.resolve("config.yaml");
        Files.writeString(file, text, StandardCharsets.UTF_8);
        return file;
    }

    @Test
    void deeplyNestedFlowCollectionsAreRefused() throws Exception {
        Path file = write("agents: " + "[".repeat(1500) + "]".repeat(1500) + "\n");
        assertThatThrownBy(() -> ConfigLoader.load(file, ENV))
                .isInstanceOf(ConfigException.class)
                .hasMessage(file + ":1: collections are nested more than 50 levels deep; at most 50 are allowed");
    }

    @Test
    void deeplyNestedBlockCollectionsAreRefusedAtTheirLine() throws Exception {
        Path file = write("providers: []\nagents:\n  " + "- ".repeat(1500) + "x\n");
        assertThatThrownBy(() -> ConfigLoader.load(file, ENV))
                .isInstanceOf(ConfigException.class)
                .hasMessage(file + ":3: collections are nested more than 50 levels deep; at most 50 are allowed");
    }

    @Test
    void aFileOverOneMebibyteIsRefusedBeforeItIsRead() throws Exception {
        Path file = write("agents:\n  - name: a\n    instructions: " + "x".repeat(16 * 1024 * 1024) + "\n");
        long size = Files.size(file);
        assertThatThrownBy(() -> ConfigLoader.load(file, ENV))
                .isInstanceOf(ConfigException.class)
                .hasMessage(file + ": the file is too large (" + size + " bytes); a configuration may be at most 1048576 bytes (1 MiB)");
        String text = Files.readString(file);
        assertThatThrownBy(() -> ConfigLoader.parse(text, "inline.yaml", ENV))
                .isInstanceOf(ConfigException.class)
                .hasMessage("inline.yaml: the file is too large (" + text.length()
                        + " characters); a configuration may be at most 1048576 bytes (1 MiB)");
    }

    @Test
    void aLongScalarWithinTheLimitIsRead() throws Exception {
        String instructions = "x".repeat(1000 * 1000);
        Path file = write("""
                providers:
                  - name: p
                    kind: openai
                    model: gpt-5
                agents:
                  - name: a
                    instructions: %s
                """.formatted(instructions));
        EngineConfig config = ConfigLoader.load(file, ENV).check(null, Set.of());
        assertThat(config.agents().getFirst().instructions()).isEqualTo(instructions);
    }

    @Test
    void anAgentsToolResultLimitIsReadFromItsOptions() throws Exception {
        Path file = write("""
                providers:
                  - name: p
                    kind: openai
                    model: gpt-5
                agents:
                  - name: a
                    options: { max_tool_result_chars: 20000 }
                  - name: b
                entry_agent: a
                """);
        EngineConfig config = ConfigLoader.load(file, ENV).check(null, Set.of());
        assertThat(config.agents().get(0).options().maxToolResultChars()).isEqualTo(20000);
        assertThat(config.agents().get(1).options().maxToolResultChars()).isNull();
        Path zero = write("agents: [{ name: a, options: { max_tool_result_chars: 0 } }]\n");
        assertThatThrownBy(() -> ConfigLoader.load(zero, ENV))
                .isInstanceOf(ConfigException.class)
                .hasMessage(zero + ":1: agents[0].options.max_tool_result_chars: expected a positive whole number, got 0");
    }
}
