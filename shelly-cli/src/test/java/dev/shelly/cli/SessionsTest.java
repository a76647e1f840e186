package dev.shelly.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.modeladapter.Usage;
import dev.shelly.testing.ScriptedCompleter;
import dev.shelly.testing.Step;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code shelly sessions}, {@code shelly agents} and {@code shelly skills}: what a project holds. */
class SessionsTest {
    @TempDir
    Path dir;

    @Test
    void sessionsListsShowsAndDeletesTheSavedConversations() throws Exception {
        ScriptedCompleter model = ScriptedCompleter.of(
                Step.reply("Hi.").withUsage(Usage.of(10, 2)),
                Step.toolCall("fs_write", "{\"path\":\"x.txt\",\"content\":\"x\"}").withUsage(Usage.of(20, 3)));
        Shell shell = Shell.project(dir, model);
        Shell.Result empty = shell.run("", "sessions");
        assertThat(empty.out()).as(empty.err()).isEqualTo("no saved sessions in " + dir.resolve(".shelly/sessions") + "\n");
        shell.run("", "run", "hello", "--agent", "reviewer");
        String hello = shell.sessions().getFirst();
        shell.run("", "run", "write x.txt");
        List<String> ids = shell.sessions();
        assertThat(ids).hasSize(2);
        String write = ids.get(1 - ids.indexOf(hello));

        Shell.Result list = shell.run("", "sessions", "list");
        assertThat(list.status()).isZero();
        assertThat(list.out().lines().toList()).containsExactlyInAnyOrder(
                hello + "  reviewer   1 turn  12 tokens  $0",
                write + "  assistant  1 turn  23 tokens  $0  waits for a decision");

        Shell.Result show = shell.run("", "sessions", "show", write);
        assertThat(show.out()).isEqualTo("session " + write + ", agent assistant, 1 turn, 23 tokens (20 in, 3 out), $0"
                + " and 23 tokens of unpriced models\n"
                + "you: write x.txt\n"
                + "  → fs_write {\"path\":\"x.txt\",\"content\":\"x\"}\n"
                + "waits for a decision: assistant wants to run fs_write {\"path\":\"x.txt\",\"content\":\"x\"}\n"
                + "answer with: shelly chat --session " + write + "\n");

        Shell.Result delete = shell.run("", "sessions", "delete", hello);
        assertThat(delete.out()).isEqualTo("deleted session " + hello + "\n");
        assertThat(shell.sessions()).containsExactly(write);

        Shell.Result gone = shell.run("", "sessions", "show", hello);
        assertThat(gone.status()).isEqualTo(1);
        assertThat(gone.err()).isEqualTo("error: no saved session '" + hello + "'; shelly sessions lists the saved ones\n");
        assertThat(shell.run("", "sessions", "drop", write).status()).isEqualTo(2);
        assertThat(shell.run("", "sessions", "delete").err())
                .isEqualTo("error: shelly sessions: delete needs a session id (see shelly sessions --help)\n");
    }

    @Test
    void agentsListsEveryAgentWithItsModelAndMarksTheEntryAgent() throws Exception {
        Shell shell = Shell.project(dir, ScriptedCompleter.of());

        Shell.Result r = shell.run("", "agents");

        assertThat(r.status()).isZero();
        assertThat(r.out()).isEqualTo("""
                assistant *  main (anthropic claude-sonnet-4-5)  Helps with the project
                reviewer     main (anthropic claude-sonnet-4-5)  Reviews changes
                * answers in shelly chat and shelly run; --agent NAME picks another
                """);
    }

    @Test
    void agentsAndSkillsNeedNoKeyForTheyCallNoModel() throws Exception {
        Shell shell = new Shell(dir);
        shell.config(Shell.CONFIG);
        Path skill = Files.createDirectories(dir.resolve(".shelly/skills/review"));
        Files.writeString(skill.resolve("SKILL.md"), """
                ---
                name: review
                description: Reviews a change for bugs and missing tests
                ---
                Read the diff first.
                """);

        Shell.Result skills = shell.run("", "skills");
        assertThat(skills.err()).isEmpty();
        assertThat(skills.out()).isEqualTo("review  Reviews a change for bugs and missing tests  agents: assistant\n");
        assertThat(shell.run("", "agents").status()).isZero();

        Files.delete(skill.resolve("SKILL.md"));
        assertThat(shell.run("", "skills").out()).isEqualTo("no skills in " + dir.resolve(".shelly/skills")
                + "; a skill is a folder there with a SKILL.md\n");
    }
}
