package dev.shelly.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.testing.ScriptedCompleter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The command line itself: help, usage errors, one-line errors, and which project it works on. */
class CliTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"init", "chat", "run", "sessions", "agents", "skills"})
    void everyCommandHasItsHelpOnStandardOutput(String command) {
        Shell shell = new Shell(dir);

        Shell.Result help = shell.run("", command, "--help");
        Shell.Result h = shell.run("", command, "-h");
        Shell.Result viaHelp = shell.run("", "help", command);

        assertThat(help.status()).isZero();
        assertThat(help.err()).isEmpty();
        assertThat(help.out()).startsWith("usage: shelly " + command).isEqualTo(Cli.help(command));
        assertThat(h.out()).isEqualTo(help.out());
        assertThat(viaHelp.out()).isEqualTo(help.out());
        assertThat(Cli.help("shelly")).contains("\n  " + command + " ");
    }

    @Test
    void withoutACommandTheHelpGoesToStandardErrorAsAUsageError() {
        Shell shell = new Shell(dir);

        assertThat(shell.run("", "--help").out()).isEqualTo(Cli.help("shelly")).startsWith("usage: shelly [--root DIR]");
        Shell.Result none = shell.run("");
        assertThat(none.status()).isEqualTo(2);
        assertThat(none.out()).isEmpty();
        assertThat(none.err()).isEqualTo(Cli.help("shelly"));
    }

    @Test
    void usageErrorsExitWithTwoAndSayWhereTheHelpIs() {
        Shell shell = new Shell(dir);

        assertThat(shell.run("", "chta")).isEqualTo(new Shell.Result(2, "", "error: shelly: unknown command 'chta'; the"
                + " commands are init, chat, run, sessions, agents, skills (see shelly --help)\n"));
        assertThat(shell.run("", "chat", "--verbose").err())
                .isEqualTo("error: shelly chat: unknown option --verbose (see shelly chat --help)\n");
        assertThat(shell.run("", "chat", "--agent").err())
                .isEqualTo("error: shelly chat: --agent needs a value (see shelly chat --help)\n");
        assertThat(shell.run("", "run", "--json=yes", "hi").err())
                .isEqualTo("error: shelly run: --json takes no value (see shelly run --help)\n");
        assertThat(shell.run("", "chat", "--session", "a", "--continue").err())
                .isEqualTo("error: shelly chat: --session and --continue exclude each other (see shelly chat --help)\n");
        assertThat(shell.run("", "chat", "--continue", "--agent", "reviewer").status()).isEqualTo(2);
        assertThat(shell.run("", "agents", "extra").err())
                .isEqualTo("error: shelly agents: unexpected argument 'extra' (see shelly agents --help)\n");
        assertThat(shell.run("", "--root", "a", "agents", "--root", "b").err())
                .isEqualTo("error: shelly agents: --root is given twice (see shelly agents --help)\n");
    }

    @Test
    void aBadConfigIsOneLineNamingTheFileAndLineWithTheStackTraceOnlyForDebugging() throws Exception {
        Shell shell = Shell.project(dir, ScriptedCompleter.of());
        shell.config(Shell.CONFIG.replaceFirst("provider: main", "provider: mian"));

        Shell.Result r = shell.run("", "chat");

        assertThat(r.status()).isEqualTo(1);
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).startsWith("error: " + dir.resolve(".shelly/config.yaml") + ":9: agents[0].provider: ")
                .contains("'mian'").endsWith("\n");
        assertThat(r.err().lines()).hasSize(1);

        shell.env.put("SHELLY_DEBUG", "1");
        Shell.Result debug = shell.run("", "agents");
        assertThat(debug.err()).startsWith(r.err()).contains("\tat dev.shelly.");
    }

    @Test
    void aMissingKeyIsOneLineNamingTheVariable() throws Exception {
        Shell shell = new Shell(dir);
        shell.config(Shell.CONFIG);

        Shell.Result r = shell.run("hello\n", "chat");

        assertThat(r.status()).isEqualTo(1);
        assertThat(r.err()).startsWith("error: ").contains("ANTHROPIC_API_KEY").doesNotContain("\tat ");
        assertThat(r.err().lines()).hasSize(1);
    }

    @Test
    void aFolderWithoutShellyIsToldToRunInit() {
        Shell.Result r = new Shell(dir).run("", "chat");

        assertThat(r.status()).isEqualTo(1);
        assertThat(r.err()).isEqualTo("error: no .shelly folder in " + dir + "; create one with: shelly init (or name the"
                + " project with --root DIR)\n");
    }

    @Test
    void theRootIsTheNearestFolderWithShellyElseWithGitElseTheWorkingDirectory() throws Exception {
        Path deep = Files.createDirectories(dir.resolve("outer/inner/src/main"));
        for (String folder : new String[] {"outer/.shelly", "outer/inner/.git", "outer/inner/.shelly"}) {
            Files.createDirectories(dir.resolve(folder));
        }

        assertThat(Project.findRoot(Optional.empty(), deep)).isEqualTo(dir.resolve("outer/inner"));
        Files.delete(dir.resolve("outer/inner/.shelly"));
        assertThat(Project.findRoot(Optional.empty(), deep)).isEqualTo(dir.resolve("outer"));
        Files.delete(dir.resolve("outer/.shelly"));
        assertThat(Project.findRoot(Optional.empty(), deep)).isEqualTo(dir.resolve("outer/inner"));
        Files.delete(dir.resolve("outer/inner/.git"));
        assertThat(Project.findRoot(Optional.empty(), deep)).isEqualTo(deep);
        assertThat(Project.findRoot(Optional.of(".."), deep)).isEqualTo(dir.resolve("outer/inner/src"));
    }
}
