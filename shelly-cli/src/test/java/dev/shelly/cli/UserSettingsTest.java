package dev.shelly.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.engine.Engine;
import dev.shelly.engine.Session;
import dev.shelly.engine.ShellyDir;
import dev.shelly.testing.ScriptedCompleter;
import dev.shelly.testing.Step;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command over a project's settings and the user's own ({@code SHELLY_HOME}), agents written
 * as markdown, and sessions chosen by when they were used.
 */
class UserSettingsTest {
    @TempDir
    Path dir;

    private static void write(Path file, String text) throws Exception {
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
    }

    @Test
    void theUsersAgentsAndSkillsLieUnderTheProjectsAndAHiddenSkillIsSaidOnce() throws Exception {
        Shell shell = Shell.project(dir, ScriptedCompleter.of(Step.reply(r -> r.systemPrompt().orElse(""))));
        Path home = dir.resolve("home");
        shell.env.put("SHELLY_HOME", home.toString());
        write(home.resolve("agents/helper.md"), """
                ---
                description: My own helper
                model: claude-haiku-4-5
                skills: []
                ---
                You help me, whatever the project.
                """);
        write(home.resolve("agents/reviewer.md"), "---\ndescription: My reviewer, hidden by the project's\n---\nNo.\n");
        write(home.resolve("skills/review/SKILL.md"), "---\ndescription: My review\n---\nMine.\n");
        write(home.resolve("skills/notes/SKILL.md"), "---\ndescription: Keeps notes\n---\nNote.\n");
        write(dir.resolve(".shelly/skills/review/SKILL.md"), "---\ndescription: The project's review\n---\nOurs.\n");
        write(dir.resolve(".shelly/agents/README.md"), "# Agents\n");

        Shell.Result agents = shell.run("", "agents");
        assertThat(agents.out()).isEqualTo("""
                assistant *  main (anthropic claude-sonnet-4-5)  Helps with the project
                reviewer     main (anthropic claude-sonnet-4-5)  Reviews changes
                helper       main (anthropic claude-haiku-4-5)   My own helper
                * answers in shelly chat and shelly run; --agent NAME picks another
                """);
        String warning = "warning: skill 'review' of " + home.resolve("skills")
                + " is hidden by the project's skill of that name in " + dir.resolve(".shelly/skills/review") + "\n";
        assertThat(agents.err()).isEqualTo(warning);

        Shell.Result skills = shell.run("", "skills");
        assertThat(skills.out()).isEqualTo("""
                notes   Keeps notes           agents: assistant
                review  The project's review  agents: assistant
                """);
        assertThat(skills.err()).isEqualTo(warning);

        Shell.Result run = shell.run("", "run", "--agent", "helper", "who are you?");
        assertThat(run.status()).as(run.err()).isZero();
        assertThat(run.out()).contains("You help me, whatever the project.");
    }

    @Test
    void theEnvironmentOverridesTheSettingsAndABadValueNamesItsPlace() throws Exception {
        Shell shell = Shell.project(dir, ScriptedCompleter.of());
        shell.env.put("SHELLY_ENTRY_AGENT", "reviewer");
        shell.env.put("SHELLY_MODEL", "claude-opus-4-1");
        assertThat(shell.run("", "agents").out()).isEqualTo("""
                assistant   main (anthropic claude-sonnet-4-5)  Helps with the project
                reviewer *  main (anthropic claude-opus-4-1)    Reviews changes
                * answers in shelly chat and shelly run; --agent NAME picks another
                """);

        shell.env.put("SHELLY_APPROVALS_TIMEOUT", "soon");
        Shell.Result bad = shell.run("", "agents");
        assertThat(bad.status()).isEqualTo(1);
        assertThat(bad.err()).isEqualTo("error: environment variable SHELLY_APPROVALS_TIMEOUT: expected a duration "
                + "such as 500ms, 30s, 2m or 1h, got 'soon'\n");

        shell.env.remove("SHELLY_APPROVALS_TIMEOUT");
        Path file = dir.resolve(".shelly/agents/critic.md");
        write(file, "---\ndescription: Critic\nmax_iterations: none\n---\nCriticise.\n");
        assertThat(shell.run("", "agents").err()).isEqualTo("error: " + file + ":3: max_iterations: expected a positive "
                + "whole number or 'unlimited', got 'none'\n");
        write(file, "---\nname: reviewer\n---\n");
        assertThat(shell.run("", "agents").err()).isEqualTo("error: " + file + ":2: name: is 'reviewer', but the file names agent 'critic'; an agent file is named after its agent: "
                + "rename the file, or remove the field\n");
    }

    @Test
    @SuppressWarnings("try") // the resource is held for the block, not used in it
    void continueGoesOnWithTheSessionUsedLastAndTheListReadsSessionsOthersHold() throws Exception {
        Shell shell = Shell.project(dir, ScriptedCompleter.of(Step.reply("one"), Step.reply("two"), Step.reply("three"),
                Step.reply("four")));
        shell.run("", "run", "first");
        String first = shell.sessions().getFirst();
        shell.run("", "run", "second");
        shell.run("", "run", "--session", first, "again");

        Shell.Result resumed = shell.run("", "run", "--continue", "and again");
        assertThat(resumed.out()).isEqualTo("four\n");

        List<String> ids = shell.sessions();
        String second = ids.get(1 - ids.indexOf(first));
        try (Engine other = Engine.builder().dir(new ShellyDir(dir.resolve(".shelly")))
                .environment(shell.env::get).completer("main", ScriptedCompleter.of()).build();
                Session held = other.resume(first)) {
            Shell.Result list = shell.run("", "sessions");
            assertThat(list.out().lines().toList()).containsExactlyInAnyOrder(
                    first + "  assistant  3 turns  0 tokens  $0",
                    second + "  assistant  1 turn   0 tokens  $0");
        }
    }
}
