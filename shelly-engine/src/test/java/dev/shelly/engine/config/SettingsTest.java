package dev.shelly.engine.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.agent.Approvals;
import dev.shelly.modeladapter.ModelTable;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The levels of the settings: the environment over the project's folder over the user's folder
 * over the defaults, and errors that name where a bad value came from.
 */
class SettingsTest {
    @TempDir
    Path dir;

    private final Map<String, String> env = new HashMap<>();

    private static final String USER = """
            providers:
              - name: claude
                kind: anthropic
                model: claude-haiku-4-5
              - name: local
                kind: openai-compatible
                model: llama3.2
                base_url: http://localhost:11434/v1
            agents:
              - name: helper
                description: The user's own helper
                provider: local
              - name: assistant
                description: The user's assistant, hidden by the project's
                provider: local
            approvals: { timeout: 5m, on_timeout: cancel }
            prices:
              a-model: { input: 1, output: 2 }
              b-model: { input: 3, output: 4 }
            telemetry: { endpoint: "http://user-collector:4318" }
            entry_agent: helper
            """;

    private static final String PROJECT = """
            providers:
              - name: claude
                kind: anthropic
                model: claude-sonnet-4-5
            agents:
              - name: assistant
                description: Helps with the project
                provider: claude
            entry_agent: assistant
            approvals: { timeout: 10m }
            prices:
              b-model: { input: 5, output: 6 }
            """;

    private Path project() {
        return dir.resolve("project/.shelly");
    }

    private Path user() {
        return dir.resolve("home/.shelly");
    }

    private void write(Path file, String text) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
    }

    private EngineConfig load() {
        return ConfigLoader.loadSettings(project(), user(), env::get).check(null, Set.of());
    }

    private ConfigException error() {
        try {
            load();
        } catch (ConfigException e) {
            return e;
        }
        throw new AssertionError("expected a ConfigException");
    }

    @Test
    void aFieldGivenNowhereTakesItsDefault() throws IOException {
        write(project().resolve("config.yaml"), PROJECT);
        EngineConfig config = load();

        AgentConfig assistant = config.agents().getFirst();
        assertThat(assistant.options()).isEqualTo(AgentConfig.Options.DEFAULT);
        assertThat(assistant.model()).isNull();
        assertThat(config.modelOf(assistant)).isEqualTo("claude-sonnet-4-5");
        assertThat(config.providers().getFirst().retry()).isEqualTo(ProviderConfig.DEFAULT_RETRY);
        assertThat(config.approvals().orElseThrow().onTimeout()).isEqualTo(Approvals.OnTimeout.DENY);
        assertThat(config.redis()).isEmpty();
        assertThat(config.telemetry()).isEmpty();
        assertThat(config.file()).contains(project().resolve("config.yaml").toString());
    }

    @Test
    void theUsersSettingsApplyWhereTheProjectSaysNothing() throws IOException {
        write(project().resolve("config.yaml"), """
                agents:
                  - name: assistant
                    provider: local
                """);
        write(user().resolve("config.yaml"), USER);
        EngineConfig config = load();

        assertThat(config.providers()).extracting(ProviderConfig::name).containsExactly("claude", "local");
        assertThat(config.agents()).extracting(AgentConfig::name).containsExactly("assistant", "helper");
        assertThat(config.agents().getFirst().description()).isEmpty();
        assertThat(config.approvals().orElseThrow().timeout()).isEqualTo(Duration.ofMinutes(5));
        assertThat(config.approvals().orElseThrow().onTimeout()).isEqualTo(Approvals.OnTimeout.CANCEL);
        assertThat(config.telemetry().orElseThrow().endpoint()).isEqualTo("http://user-collector:4318");
        assertThat(config.entryAgent()).contains("helper");
    }

    @Test
    void theProjectWinsOverTheUserNameByNameAndSectionBySection() throws IOException {
        write(project().resolve("config.yaml"), PROJECT);
        write(user().resolve("config.yaml"), USER);
        EngineConfig config = load();

        // Entries by name: the project's claude whole, the user's local after it.
        assertThat(config.providers()).extracting(ProviderConfig::name, ProviderConfig::model)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("claude", "claude-sonnet-4-5"),
                        org.assertj.core.groups.Tuple.tuple("local", "llama3.2"));
        assertThat(config.agents()).extracting(AgentConfig::name, AgentConfig::description)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("assistant", "Helps with the project"),
                        org.assertj.core.groups.Tuple.tuple("helper", "The user's own helper"));
        // A section whole: the user's on_timeout does not leak into the project's approvals.
        assertThat(config.approvals().orElseThrow().timeout()).isEqualTo(Duration.ofMinutes(10));
        assertThat(config.approvals().orElseThrow().onTimeout()).isEqualTo(Approvals.OnTimeout.DENY);
        // Prices by model id.
        ModelTable prices = config.prices();
        assertThat(prices.price("a-model").orElseThrow().input()).isEqualByComparingTo(BigDecimal.ONE);
        assertThat(prices.price("b-model").orElseThrow().input()).isEqualByComparingTo(BigDecimal.valueOf(5));
        assertThat(config.entryAgent()).contains("assistant");
    }

    @Test
    void theEnvironmentWinsOverBothFiles() throws IOException {
        write(project().resolve("config.yaml"), PROJECT);
        write(user().resolve("config.yaml"), USER);
        env.put("SHELLY_ENTRY_AGENT", "helper");
        env.put("SHELLY_MODEL", "llama3.3");
        env.put("SHELLY_APPROVALS_TIMEOUT", "30s");
        env.put("SHELLY_TELEMETRY_SERVICE_NAME", "mine");
        env.put("SHELLY_TELEMETRY_CAPTURE_CONTENT", "true");
        env.put("SHELLY_REDIS_URL", "");
        EngineConfig config = load();

        assertThat(config.entryAgent()).contains("helper");
        AgentConfig helper = config.agents().get(1);
        assertThat(helper.model()).isEqualTo("llama3.3");
        assertThat(config.modelOf(helper)).isEqualTo("llama3.3");
        assertThat(config.modelOf(config.agents().getFirst())).isEqualTo("claude-sonnet-4-5");
        assertThat(config.approvals().orElseThrow().timeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(config.telemetry().orElseThrow().endpoint()).isEqualTo("http://user-collector:4318");
        assertThat(config.telemetry().orElseThrow().serviceName()).isEqualTo("mine");
        assertThat(config.telemetry().orElseThrow().captureContent()).isTrue();
        assertThat(config.redis()).as("an empty variable overrides nothing").isEmpty();
    }

    @Test
    void aBadValueNamesTheFileAndLineItCameFromInThatFilesTerms() throws IOException {
        write(project().resolve("config.yaml"), PROJECT);
        Path userFile = user().resolve("config.yaml");
        write(userFile, USER.replaceFirst("provider: local", "provider: lcoal"));
        assertThat(error()).hasMessage(userFile + ":12: agents[0].provider: unknown provider 'lcoal'; expected one of: "
                + "claude, local");

        write(userFile, USER.replace("model: llama3.2", "model: llama3.2\n    max_tokens: lots"));
        assertThat(error()).hasMessage(userFile + ":8: providers[1].max_tokens: expected a whole number, got 'lots'");

        write(userFile, USER);
        write(project().resolve("config.yaml"), PROJECT.replace("timeout: 10m", "timeout: soon"));
        assertThat(error()).hasMessage(project().resolve("config.yaml") + ":10: approvals.timeout: expected a duration "
                + "such as 500ms, 30s, 2m or 1h, got 'soon'");
    }

    @Test
    void aBadValueFromTheEnvironmentNamesItsVariable() throws IOException {
        write(project().resolve("config.yaml"), PROJECT);
        env.put("SHELLY_APPROVALS_ON_TIMEOUT", "shrug");
        assertThat(error()).hasMessage("environment variable SHELLY_APPROVALS_ON_TIMEOUT: expected deny or cancel, "
                + "got 'shrug'");

        env.remove("SHELLY_APPROVALS_ON_TIMEOUT");
        env.put("SHELLY_ENTRY_AGENT", "nobody");
        assertThat(error()).hasMessage("environment variable SHELLY_ENTRY_AGENT: unknown agent 'nobody'; expected one "
                + "of: assistant");
    }

    @Test
    void theModelVariableNeedsAnEntryAgent() throws IOException {
        write(project().resolve("config.yaml"), """
                providers: [{ name: p, kind: openai, model: m }]
                agents: [{ name: a }, { name: b }]
                """);
        env.put("SHELLY_MODEL", "other");
        assertThatThrownBy(this::load).isInstanceOf(ConfigException.class)
                .hasMessage("environment variable SHELLY_MODEL: sets the model of the entry agent, but none is named: "
                        + "set entry_agent (or SHELLY_ENTRY_AGENT)");

        env.put("SHELLY_ENTRY_AGENT", "b");
        assertThat(load().agents().get(1).model()).isEqualTo("other");
        assertThat(load().agents().get(0).model()).isNull();
    }

    @Test
    void withoutAnySettingsTheProjectsMissingFileIsNamed() throws IOException {
        Files.createDirectories(project());
        Path file = project().resolve("config.yaml");
        assertThat(error()).hasMessage(file + ": cannot read the file: NoSuchFileException " + file);

        write(user().resolve("config.yaml"), USER);
        assertThat(load().agents()).extracting(AgentConfig::name).containsExactly("helper", "assistant");
    }

    @Test
    void theProjectsOwnFolderGivenAsTheUsersIsReadOnce() throws IOException {
        write(project().resolve("config.yaml"), PROJECT);
        EngineConfig config = ConfigLoader.loadSettings(project(), project(), env::get).check(null, Set.of());
        assertThat(config.agents()).hasSize(1);
    }
}
