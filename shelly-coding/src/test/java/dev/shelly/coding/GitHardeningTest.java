package dev.shelly.coding;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * git runs nothing it was not asked to: a repository whose own configuration names a program
 * for an operation gets a refusal naming the setting, the program never runs, and what git
 * prints holds no credential and no sensitive file.
 */
class GitHardeningTest {
    @TempDir
    Path dir;
    Path ws;
    Path marker;
    ToolBox box;

    @BeforeEach
    void setUp() throws Exception {
        ws = Files.createDirectories(dir.resolve("ws"));
        // Outside the workspace, where an escaped program would leave its trace.
        marker = dir.resolve("ran");
        git("init", "-q", "-b", "main");
        Files.writeString(ws.resolve("a.txt"), "one\n");
        git("add", "a.txt");
        git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "init");
        box = CodingTools.builder(ws).pushAllowed(true).build().toolBox();
    }

    void git(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("git"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).directory(ws.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor()).as(out).isZero();
    }

    String call(String tool, Object... kv) {
        ToolResult r = box.call(new ToolCall("c1", tool, EscapeTest.args(kv)), ToolContext.of("coder"));
        return r.text();
    }

    @ParameterizedTest(name = "{0} refuses {2}")
    @CsvSource(delimiter = '|', value = {
        "core.fsmonitor|touch MARK|git_status",
        "core.fsmonitor|touch MARK|git_diff",
        "core.fsmonitor|touch MARK|git_add",
        "core.fsmonitor|touch MARK|git_commit",
        "filter.evil.clean|touch MARK|git_add",
        "filter.evil.smudge|touch MARK|git_status",
        "filter.evil.process|touch MARK|git_diff",
        "diff.evil.textconv|touch MARK|git_diff",
        "diff.evil.command|touch MARK|git_diff",
        "diff.external|touch MARK|git_diff",
        "core.hooksPath|hooks|git_commit",
        "core.hooksPath|hooks|git_push",
        "core.sshCommand|touch MARK|git_push",
        "remote.origin.uploadpack|touch MARK|git_push",
        "remote.origin.receivepack|touch MARK|git_push",
        "url.ext::sh -c touch% MARK.insteadOf|https://|git_push",
        "credential.https://example.invalid.helper|!touch MARK|git_push",
        "protocol.ext.allow|always|git_push",
        "alias.st|!touch MARK|run_command",
    })
    void aSettingThatRunsAProgramIsRefusedForItsOperation(String key, String value, String tool) throws Exception {
        git("config", key.replace("MARK", marker.toString()), value.replace("MARK", marker.toString()));
        Files.writeString(ws.resolve("a.txt"), "two\n");
        Files.writeString(ws.resolve(".gitattributes"), "*.txt filter=evil diff=evil\n");
        String out = switch (tool) {
            case "git_add" -> call(tool, "paths", List.of("a.txt"));
            case "git_commit" -> call(tool, "message", "m");
            case "run_command" -> call(tool, "program", "git", "args", List.of("st"));
            default -> call(tool);
        };
        String op = switch (tool) {
            case "run_command" -> "some commands";
            default -> "'git " + tool.substring(4) + "'";
        };
        String shown = asGitPrints(key.replace("MARK", marker.toString()));
        assertThat(out).isEqualTo("the repository's configuration sets '" + shown + "' (local), which makes git run a "
                + "program for " + op + "; the coding tools refuse it. Remove the setting (git config --local --unset "
                + shown + ") if you trust it and want the tool");
        assertThat(marker).doesNotExist();
    }

    /** Section and name in lower case, a subsection as written. */
    static String asGitPrints(String key) {
        int first = key.indexOf('.');
        int last = key.lastIndexOf('.');
        String section = key.substring(0, first).toLowerCase(java.util.Locale.ROOT);
        String name = key.substring(last + 1).toLowerCase(java.util.Locale.ROOT);
        return first == last ? section + "." + name : section + key.substring(first, last + 1) + name;
    }

    @Test
    void settingsThatDoNotRunAProgramLeaveTheToolsAlone() throws Exception {
        git("config", "core.fsmonitor", "false");
        git("config", "alias.st", "status");
        git("config", "core.editor", "touch " + marker);
        git("config", "commit.gpgSign", "true");
        git("config", "gpg.program", "touch " + marker);
        git("config", "core.pager", "touch " + marker);
        Files.writeString(ws.resolve("a.txt"), "two\n");
        assertThat(call(CodingTools.GIT_STATUS)).contains(" M a.txt");
        assertThat(call(CodingTools.GIT_DIFF)).contains("-one", "+two");
        assertThat(call(CodingTools.GIT_ADD, "paths", List.of("a.txt"))).isEqualTo("exit code 0\n");
        assertThat(call(CodingTools.GIT_COMMIT, "message", "second")).contains("second");
        assertThat(marker).doesNotExist();
    }

    @Test
    void aHookPlantedInTheRepositoryNeverRuns() throws Exception {
        Path hooks = Files.createDirectories(ws.resolve(".git/hooks"));
        for (String hook : List.of("pre-commit", "commit-msg", "post-commit", "prepare-commit-msg", "pre-push")) {
            Path h = hooks.resolve(hook);
            Files.writeString(h, "#!/bin/sh\ntouch " + marker + "\n");
            h.toFile().setExecutable(true);
        }
        Files.writeString(ws.resolve("a.txt"), "two\n");
        assertThat(call(CodingTools.GIT_ADD, "paths", List.of("a.txt"))).isEqualTo("exit code 0\n");
        assertThat(call(CodingTools.GIT_COMMIT, "message", "hooked?")).contains("hooked?");
        assertThat(call(CodingTools.RUN, "program", "git", "args", List.of("commit", "--allow-empty", "-m", "again")))
                .startsWith("exit code 0");
        assertThat(marker).doesNotExist();
    }

    @Test
    void addingAFolderNeverStagesASensitiveFileAndADiffLeavesThemOut() throws Exception {
        box = CodingTools.builder(ws).sensitive("*.secret").build().toolBox();
        Files.writeString(ws.resolve(".env"), "KEY=CANARY-ENV\n");
        Files.createDirectories(ws.resolve("conf"));
        Files.writeString(ws.resolve("conf/db.secret"), "CANARY-SECRET\n");
        Files.writeString(ws.resolve("conf/app.yaml"), "a: 1\n");
        Files.writeString(ws.resolve(".gitignore"), "");
        assertThat(call(CodingTools.GIT_ADD, "paths", List.of("."))).isEqualTo("exit code 0\n");
        String staged = call(CodingTools.GIT_DIFF, "staged", true);
        assertThat(staged).contains("conf/app.yaml").doesNotContain("CANARY", ".env");
        // Staged behind the toolbox's back, it is still left out of the diff.
        git("add", "-f", ".env", "conf/db.secret");
        String diff = call(CodingTools.GIT_DIFF, "staged", true);
        assertThat(diff).doesNotContain("CANARY").contains("+a: 1");
        // A hard link to .env under an innocent name, staged behind the toolbox's back.
        Files.createLink(ws.resolve("notes.txt"), ws.resolve(".env"));
        git("add", "notes.txt");
        assertThat(call(CodingTools.GIT_DIFF, "staged", true)).doesNotContain("CANARY")
                .contains("[the diff of the sensitive file 'notes.txt' is left out]");
        // What a pathspec cannot leave out (a diff of every path), the output filter does.
        GitOps git = new GitOps(Workspace.of(ws, Workspace.DEFAULT_SENSITIVE), null, null, new FileOpener());
        assertThat(git.withoutSensitive("""
                diff --git a/.env b/.env
                new file mode 100644
                +KEY=CANARY-ENV
                diff --git a/a.txt b/a.txt
                -one
                +two
                diff --git a/x.txt b/config/.env.prod
                rename from x.txt
                +CANARY-2"""))
                .isEqualTo("""
                        [the diff of the sensitive file '.env' is left out]
                        diff --git a/a.txt b/a.txt
                        -one
                        +two
                        [the diff of the sensitive file 'config/.env.prod' is left out]""");
    }

    @Test
    void noProtocolButFileUnlessPushIsAllowed() throws Exception {
        ToolBox noPush = CodingTools.builder(ws).build().toolBox();
        ToolResult r = noPush.call(new ToolCall("c", CodingTools.RUN, EscapeTest.args("program", "git", "args",
                List.of("ls-remote", "ext::sh -c touch% " + marker))), ToolContext.of("coder"));
        assertThat(r.isError()).isTrue();
        assertThat(r.text()).contains("transport 'ext' not allowed");
        assertThat(marker).doesNotExist();
        // file:// still works: a clone inside the workspace.
        ToolResult clone = noPush.call(new ToolCall("c", CodingTools.RUN, EscapeTest.args("program", "git", "args",
                List.of("clone", "-q", ".", "copy"))), ToolContext.of("coder"));
        assertThat(clone.text()).isEqualTo("exit code 0\n");
        assertThat(ws.resolve("copy/a.txt")).hasContent("one\n");
    }
}
