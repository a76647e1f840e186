package dev.shelly.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code shelly init}: a starter .shelly/ that works as it is, and never over an existing one. */
class InitTest {
    @TempDir
    Path dir;

    @Test
    void initCreatesTheFolderWithACommentedConfigSkillsAgentsAndAGitignore() throws Exception {
        Shell shell = new Shell(dir);

        Shell.Result r = shell.run("", "init");

        assertThat(r.err()).isEmpty();
        assertThat(r.status()).isZero();
        Path shelly = dir.resolve(".shelly");
        assertThat(r.out()).isEqualTo("created " + shelly + "\n"
                + "  config.yaml   an assistant agent on anthropic claude-sonnet-4-5, with the project's files and commands\n"
                + "  skills/       skills the agents can load (SKILL.md folders)\n"
                + "  agents/       agents written as markdown\n"
                + "  .gitignore    keeps sessions and other local state out of git\n"
                + "next: set ANTHROPIC_API_KEY, then run: shelly chat\n");
        try (Stream<Path> files = Files.walk(shelly)) {
            assertThat(files.map(p -> shelly.relativize(p).toString()).sorted().toList()).containsExactly("",
                    ".gitignore", "agents", "agents/README.md", "config.yaml", "skills", "skills/README.md");
        }
        String config = Files.readString(shelly.resolve("config.yaml"));
        assertThat(config).startsWith("# The agents of this project")
                .contains("  - name: main\n    kind: anthropic\n    model: claude-sonnet-4-5\n")
                .contains("entry_agent: assistant\n");
        assertThat(Files.readAllLines(shelly.resolve(".gitignore"))).contains("sessions/", "offload/", "permissions.json",
                "mcp-tokens.json");
    }

    @Test
    void initRefusesToOverwriteAndSaysWhatIsThere() throws Exception {
        Shell shell = new Shell(dir);
        assertThat(shell.run("", "init").status()).isZero();
        Files.writeString(dir.resolve(".shelly/config.yaml"), "# mine\n");
        Files.createDirectories(dir.resolve(".shelly/sessions"));
        shell.cwd = Files.createDirectories(dir.resolve("src/main"));

        Shell.Result again = shell.run("", "init", "--provider", "openai");

        assertThat(again.status()).isEqualTo(1);
        assertThat(again.out()).isEmpty();
        assertThat(again.err()).isEqualTo("error: " + dir.resolve(".shelly") + " exists already (.gitignore, agents/,"
                + " config.yaml, sessions/, skills/); shelly init does not overwrite it\n");
        assertThat(Files.readString(dir.resolve(".shelly/config.yaml"))).isEqualTo("# mine\n");
    }

    @ParameterizedTest
    @ValueSource(strings = {"anthropic", "openai", "gemini", "grok", "azure-openai", "openai-compatible"})
    void theStarterConfigOfEveryKindLoadsAsItIs(String kind) throws Exception {
        Shell shell = new Shell(dir);
        assertThat(shell.run("", "init", "--provider", kind).status()).isZero();

        Shell.Result agents = shell.run("", "agents");

        assertThat(agents.err()).isEmpty();
        assertThat(agents.out()).startsWith("assistant *  main (" + kind + " ");
        assertThat(Files.readString(dir.resolve(".shelly/config.yaml"))).contains("    kind: " + kind + "\n");
    }

    @Test
    void withoutProviderTheKindIsTheOneWhoseKeyIsSetAndAnUnknownKindIsAUsageError() throws Exception {
        Shell shell = new Shell(Files.createDirectories(dir.resolve("one")));
        shell.env.put("GEMINI_API_KEY", "k");
        assertThat(shell.run("", "init").out()).contains(" on gemini gemini-2.5-flash,").contains("next: set GEMINI_API_KEY");

        Shell other = new Shell(Files.createDirectories(dir.resolve("other")));
        other.env.put("OPENAI_BASE_URL", "http://localhost:8080/v1");
        assertThat(other.run("", "init").out()).contains(" on openai-compatible llama3.2,")
                .contains("next: start the server (or set OPENAI_BASE_URL), then run: shelly chat");

        Shell.Result bad = new Shell(Files.createDirectories(dir.resolve("third"))).run("", "init", "--provider", "llama");
        assertThat(bad.status()).isEqualTo(2);
        assertThat(bad.err()).isEqualTo("error: shelly init: unknown provider kind 'llama'; expected one of anthropic,"
                + " openai, gemini, grok, azure-openai, openai-compatible (see shelly init --help)\n");
        assertThat(dir.resolve("third/.shelly")).doesNotExist();
    }

    @Test
    void initGoesToTheRootOfTheGitRepositoryAboveOrToRoot() throws Exception {
        Files.createDirectories(dir.resolve("repo/.git"));
        Shell shell = new Shell(dir);
        shell.cwd = Files.createDirectories(dir.resolve("repo/module/src"));

        assertThat(shell.run("", "init").status()).isZero();
        assertThat(dir.resolve("repo/.shelly/config.yaml")).exists();

        Files.createDirectories(dir.resolve("elsewhere"));
        assertThat(shell.run("", "--root", "../../../elsewhere", "init").status()).isZero();
        assertThat(dir.resolve("elsewhere/.shelly/config.yaml")).exists();
        assertThat(List.of(shell.run("", "init", "--root", dir.resolve("nowhere").toString()).err()))
                .containsExactly("error: --root " + dir.resolve("nowhere") + ": no such folder (" + dir.resolve("nowhere")
                        + ")\n");
    }
}
