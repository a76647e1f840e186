package dev.shelly.engine.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.agent.ToolPolicy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Agents written as markdown in {@code agents/NAME.md}, beside {@code config.yaml}. */
class AgentFilesTest {
    @TempDir
    Path dir;

    private static final String CONFIG = """
            providers:
              - name: claude
                kind: anthropic
                model: claude-sonnet-4-5
            agents:
              - name: assistant
                description: Helps
            entry_agent: assistant
            """;

    private Path project() {
        return dir.resolve(".shelly");
    }

    private Path agent(String name, String text) throws IOException {
        Path file = project().resolve("agents").resolve(name + ".md");
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
        return file;
    }

    private EngineConfig load() throws IOException {
        if (!Files.exists(project().resolve("config.yaml"))) {
            Files.createDirectories(project());
            Files.writeString(project().resolve("config.yaml"), CONFIG);
        }
        return ConfigLoader.loadSettings(project(), null, Map.of("REVIEW_MODEL", "claude-haiku-4-5")::get)
                .check(Set.of("review"), Set.of());
    }

    private ConfigException error() {
        try {
            load();
        } catch (ConfigException e) {
            return e;
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        throw new AssertionError("expected a ConfigException");
    }

    @Test
    void anAgentFileIsAnAgentWhoseBodyIsItsInstructions() throws IOException {
        agent("reviewer", """
                ---
                description: Reviews a change
                provider: claude
                model: ${REVIEW_MODEL}
                toolboxes: [state]
                skills: [review]
                max_iterations: 7
                max_delegation_depth: 0
                approval: { ask: [shared_state_set], otherwise: allow }
                ---

                You review changes.
                Say what is wrong, line by line.
                """);
        agent("notes", "Keep notes.\n");
        agent("README", "# Agents\n\nOne NAME.md per agent.\n");
        EngineConfig config = load();

        assertThat(config.agents()).extracting(AgentConfig::name).containsExactly("assistant", "notes", "reviewer");
        AgentConfig reviewer = config.agents().get(2);
        assertThat(reviewer.description()).isEqualTo("Reviews a change");
        assertThat(reviewer.instructions()).isEqualTo("You review changes.\nSay what is wrong, line by line.");
        assertThat(reviewer.provider()).isEqualTo("claude");
        assertThat(config.modelOf(reviewer)).isEqualTo("claude-haiku-4-5");
        assertThat(reviewer.toolboxes()).containsExactly(AgentConfig.Toolbox.all("state"));
        assertThat(reviewer.skills()).containsExactly("review");
        assertThat(reviewer.options()).isEqualTo(new AgentConfig.Options(7, 0, null));
        assertThat(reviewer.approval().policy().decide("shared_state_set")).isEqualTo(ToolPolicy.Permission.ASK);
        AgentConfig notes = config.agents().get(1);
        assertThat(notes.instructions()).isEqualTo("Keep notes.");
        assertThat(notes.skills()).isNull();
    }

    @Test
    void aNameDefinedInTheFileAndAsMarkdownNamesBothFiles() throws IOException {
        Path file = agent("assistant", "---\ndescription: Another\n---\nHelp.\n");
        assertThat(error()).hasMessage(file + ":1: agent 'assistant' is defined twice: in this file and in "
                + project().resolve("config.yaml") + ":6 (agents[0]); define it in one of them");
    }

    @Test
    void badFrontmatterNamesTheFileTheLineAndTheFieldAsTheFileSpellsIt() throws IOException {
        Path file = agent("reviewer", """
                ---
                description: Reviews
                max_iterations: -1
                ---
                Review.
                """);
        assertThat(error()).hasMessage(file + ":3: max_iterations: expected a positive whole number or 'unlimited', got '-1'");

        agent("reviewer", "---\ndescription: Reviews\ncolour: blue\n---\nReview.\n");
        assertThat(error().getMessage()).startsWith(file + ":3: colour: unknown field 'colour'; expected one of approval, ");

        agent("reviewer", "---\ndescription: Reviews\nskills: [nope]\n---\nReview.\n");
        assertThat(error()).hasMessage(file + ":3: skills[0]: unknown skill 'nope'; expected one of: review");

        agent("reviewer", "---\ndescription: [unclosed\n---\nReview.\n");
        assertThat(error().getMessage()).startsWith(file + ":2: not valid YAML: while parsing a flow sequence");

        agent("reviewer", "---\ndescription: Reviews\n\nReview, without an end to the frontmatter.\n");
        assertThat(error()).hasMessage(file + ":1: the frontmatter begun on this line is not closed: end it with a "
                + "line '---', then write the agent's instructions");

        agent("reviewer", "---\n- a list\n---\nReview.\n");
        assertThat(error()).hasMessage(file + ":2: the frontmatter must be a mapping of the agent's fields "
                + "(description, provider, toolboxes, ...), got a list");
    }

    @Test
    void anAgentFileMayLimitWhomItDelegatesTo() throws IOException {
        Path file = agent("lead", "---\ndescription: Leads\ndelegate_targets: [assistant]\n---\nLead.\n");
        assertThat(load().agents().get(1).delegateTargets()).containsExactly("assistant");

        agent("lead", "---\ndescription: Leads\ndelegate_targets: [assistant, nobody]\n---\nLead.\n");
        assertThat(error()).hasMessage(file + ":3: delegate_targets[1]: unknown agent 'nobody'; expected one of: "
                + "assistant, lead");
        agent("lead", "---\ndelegate_targets:\n  - lead\n---\nLead.\n");
        assertThat(error()).hasMessage(file + ":3: delegate_targets[0]: an agent does not delegate to itself; name other "
                + "agents");
    }

    @Test
    void theFileNamesItsAgentAndItsBodyIsItsInstructions() throws IOException {
        Path file = agent("reviewer", "---\nname: critic\n---\nReview.\n");
        assertThat(error()).hasMessage(file + ":2: name: is 'critic', but the file names agent 'reviewer'; an agent "
                + "file is named after its agent: rename the file, or remove the field");

        agent("reviewer", "---\nname: reviewer\ninstructions: Review.\n---\n");
        assertThat(error()).hasMessage(file + ":3: instructions: the body of the file, below the frontmatter, is the "
                + "agent's instructions; remove this field");

        agent("reviewer", "---\nmax_iterations: 3\noptions: { max_iterations: 4 }\n---\n");
        assertThat(error()).hasMessage(file + ":2: max_iterations: given both here and under options; keep one");

        agent("reviewer", "---\noptions: { max_tool_result_chars: 10 }\nmax_iterations: 3\n---\nReview.\n");
        assertThat(load().agents().get(1).options()).isEqualTo(new AgentConfig.Options(3, null, 10));
    }

    @Test
    void theUsersAgentFilesLieUnderTheProjects() throws IOException {
        Path user = dir.resolve("home/.shelly");
        Files.createDirectories(user.resolve("agents"));
        Files.writeString(user.resolve("agents/reviewer.md"), "---\ndescription: The user's\n---\nMine.\n");
        Files.writeString(user.resolve("agents/planner.md"), "---\ndescription: Plans\n---\nPlan.\n");
        agent("reviewer", "---\ndescription: The project's\n---\nOurs.\n");
        Files.writeString(project().resolve("config.yaml"), CONFIG);

        EngineConfig config = ConfigLoader.loadSettings(project(), user, Map.<String, String>of()::get).check(null, Set.of());
        assertThat(config.agents()).extracting(AgentConfig::name).containsExactly("assistant", "reviewer", "planner");
        assertThat(config.agents().get(1).instructions()).isEqualTo("Ours.");

        Files.writeString(user.resolve("agents/planner.md"), "---\ndescription: Plans\nprovider: gpt\n---\nPlan.\n");
        org.assertj.core.api.Assertions.assertThatThrownBy(
                () -> ConfigLoader.loadSettings(project(), user, Map.<String, String>of()::get).check(null, Set.of()))
                .hasMessage(user.resolve("agents/planner.md") + ":3: provider: unknown provider 'gpt'; expected one of: claude");
    }
}
