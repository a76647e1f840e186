package dev.shelly.coding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.agent.ToolPolicy;
import dev.shelly.agent.ToolPolicy.Permission;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CommandsTest {
    @TempDir
    Path ws;

    ToolResult call(ToolBox box, String tool, Object... kv) {
        return box.call(new ToolCall("c1", tool, EscapeTest.args(kv)), ToolContext.of("coder"));
    }

    @Test
    void runsAProgramInTheWorkspaceWithAMinimalEnvironmentWithoutKeys() throws Exception {
        ToolBox box = CodingTools.builder(ws).environment("BUILD_MODE", "test").build().toolBox();
        ToolResult r = call(box, CodingTools.RUN, "program", "printenv");
        assertThat(r.isError()).as(r.text()).isFalse();
        Set<String> names = Arrays.stream(r.text().split("\n")).skip(1).filter(l -> l.contains("="))
                .map(l -> l.substring(0, l.indexOf('='))).collect(Collectors.toCollection(TreeSet::new));
        List<String> hardening = new java.util.ArrayList<>(List.of("GIT_CONFIG_COUNT"));
        for (int i = 0; i < CommandRunner.GIT_HARDENING.size(); i++) {
            hardening.addAll(List.of("GIT_CONFIG_KEY_" + i, "GIT_CONFIG_VALUE_" + i));
        }
        assertThat(names).containsExactlyInAnyOrderElementsOf(java.util.stream.Stream.concat(Stream.of("PATH", "HOME",
                "TMPDIR", "LANG", "LC_ALL", "TERM", "NO_COLOR", "PAGER", "GIT_PAGER", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR",
                "GIT_TERMINAL_PROMPT", "GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_GLOBAL", "GIT_CEILING_DIRECTORIES",
                "GIT_ALLOW_PROTOCOL", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL",
                "BUILD_MODE", "PWD"), hardening.stream()).toList());
        assertThat(r.text()).contains("HOME=/tmp\n", "GIT_ALLOW_PROTOCOL=file\n", "GIT_CONFIG_KEY_0=core.hooksPath\n",
                "GIT_CONFIG_VALUE_0=/dev/null\n");
        for (String key : System.getenv().keySet()) {
            if (CommandRunner.secretName(key)) {
                assertThat(r.text()).doesNotContain(key + "=");
            }
        }
        ToolResult pwd = call(box, CodingTools.RUN, "program", "pwd");
        assertThat(pwd.text()).isEqualTo("exit code 0\n" + ws.toRealPath() + "\n");
    }

    @Test
    void providerKeysNeverReachTheChildEvenWhenTheParentHasThem() throws Exception {
        // A parent process that carries provider keys runs the toolbox; its child must not see them.
        assertThatThrownBy(() -> CodingTools.builder(ws).environment("ANTHROPIC_API_KEY", "sk-ant-x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("CodingTools.Builder.environment 'ANTHROPIC_API_KEY' looks like a secret; commands run without keys");
        for (String name : List.of("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "XAI_API_KEY", "GEMINI_API_KEY",
                "GOOGLE_API_KEY", "AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN", "SHELLY_REDIS_PASSWORD")) {
            assertThat(CommandRunner.secretName(name)).as(name).isTrue();
        }
        String java = ProcessHandle.current().info().command().orElseThrow();
        Path probe = ws.resolve("Probe.java");
        Files.writeString(probe, """
                import java.nio.file.*;
                public class Probe {
                    public static void main(String[] a) throws Exception {
                        var box = dev.shelly.coding.CodingTools.builder(Path.of(a[0])).build().toolBox();
                        var r = box.call(new dev.shelly.chats.ToolCall("c", "run_command", "{\\"program\\":\\"printenv\\"}"),
                                dev.shelly.tools.ToolContext.of("coder"));
                        System.out.println(r.text());
                    }
                }
                """);
        ProcessBuilder pb = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), probe.toString(),
                ws.toString()).redirectErrorStream(true);
        pb.environment().put("ANTHROPIC_API_KEY", "sk-ant-parent-secret");
        pb.environment().put("OPENAI_API_KEY", "sk-openai-parent-secret");
        pb.environment().put("XAI_API_KEY", "xai-parent-secret");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor()).as(out).isZero();
        assertThat(out).contains("exit code 0", "PATH=").doesNotContain("parent-secret", "ANTHROPIC", "OPENAI", "XAI");
    }

    @Test
    void aCommandPastItsTimeoutIsKilledWithItsChildren() throws Exception {
        ToolBox box = CodingTools.builder(ws).shellAllowed(true).timeout(Duration.ofSeconds(1)).build().toolBox();
        Instant start = Instant.now();
        // A duration no other process uses, to find the background child among the host's processes
        // (inside the sandbox's PID namespace its own number means nothing out here).
        String marker = "61." + ProcessHandle.current().pid();
        String line = "sleep " + marker + " & echo started > child.txt; sleep 60";
        ToolResult r = call(box, CodingTools.RUN, "command", line);
        assertThat(r.isError()).isTrue();
        assertThat(r.text()).startsWith("command '" + line + "' did not finish within 1 s; "
                + "it and every process it started were killed");
        assertThat(Duration.between(start, Instant.now())).isLessThan(Duration.ofSeconds(30));
        assertThat(ws.resolve("child.txt")).hasContent("started");
        Instant deadline = Instant.now().plusSeconds(10);
        while (running(marker) && Instant.now().isBefore(deadline)) {
            Thread.onSpinWait();
        }
        assertThat(running(marker)).as("the background child").isFalse();
    }

    private static boolean running(String marker) {
        return ProcessHandle.allProcesses().anyMatch(h -> h.isAlive()
                && h.info().arguments().map(a -> Arrays.asList(a).contains(marker)).orElse(false));
    }

    @Test
    void outputIsCapped() {
        ToolBox box = CodingTools.builder(ws).maxOutputChars(100).build().toolBox();
        ToolResult r = call(box, CodingTools.RUN, "program", "seq", "args", List.of("1", "100000"));
        assertThat(r.text()).startsWith("exit code 0\n1\n2\n3\n").contains("[output truncated: ")
                .hasSizeLessThan(200);
    }

    @Test
    void allowlistAndDenylistAndExitCodes() {
        ToolBox box = CodingTools.builder(ws).allowCommands("echo", "false").build().toolBox();
        assertThat(call(box, CodingTools.RUN, "program", "echo", "args", List.of("hi", "there")).text())
                .isEqualTo("exit code 0\nhi there\n");
        ToolResult f = call(box, CodingTools.RUN, "program", "false");
        assertThat(f.isError()).isTrue();
        assertThat(f.text()).isEqualTo("exit code 1\n");
        assertThat(call(box, CodingTools.RUN, "program", "ls").text())
                .isEqualTo("program 'ls' is not on the allowlist of the coding tools; allowed: echo, false");
        assertThat(call(box, CodingTools.RUN, "command", "echo hi").text())
                .isEqualTo("tool 'run_command' needs the string parameter 'program'");
    }

    @Test
    void gitStatusDiffAddCommitLogAndNoPush() throws Exception {
        ToolBox box = CodingTools.builder(ws).build().toolBox();
        new ProcessBuilder("git", "init", "-q", "-b", "main").directory(ws.toFile()).start().waitFor();
        Files.writeString(ws.resolve("a.txt"), "one\n");
        assertThat(call(box, CodingTools.GIT_STATUS).text()).contains("?? a.txt");
        assertThat(call(box, CodingTools.GIT_ADD, "paths", List.of("a.txt")).isError()).isFalse();
        ToolResult commit = call(box, CodingTools.GIT_COMMIT, "message", "first; $(rm -rf /) `id`");
        assertThat(commit.isError()).as(commit.text()).isFalse();
        assertThat(call(box, CodingTools.GIT_LOG).text()).contains("Shelly coding agent", "first; $(rm -rf /) `id`");
        Files.writeString(ws.resolve("a.txt"), "two\n");
        assertThat(call(box, CodingTools.GIT_DIFF).text()).contains("-one", "+two");
        assertThat(box.names()).doesNotContain(CodingTools.GIT_PUSH);
        assertThat(call(box, CodingTools.RUN, "program", "git", "args", List.of("push")).text())
                .isEqualTo("'git push' is not allowed for the coding tools");
        assertThat(CodingTools.builder(ws).pushAllowed(true).build().toolBox().names()).contains(CodingTools.GIT_PUSH);
    }

    @Test
    void approvalDefaultsAskBeforeChangesAndAllowLooks() {
        CodingTools coding = CodingTools.builder(ws).build();
        ToolPolicy p = coding.policy();
        for (String t : List.of(CodingTools.READ, CodingTools.LIST, CodingTools.STAT, CodingTools.SEARCH,
                CodingTools.GIT_STATUS, CodingTools.GIT_DIFF, CodingTools.GIT_LOG, "other_tool")) {
            assertThat(p.decide(t)).as(t).isEqualTo(Permission.ALLOW);
        }
        for (String t : List.of(CodingTools.WRITE, CodingTools.EDIT, CodingTools.PATCH, CodingTools.MOVE,
                CodingTools.COPY, CodingTools.DELETE, CodingTools.MKDIR, CodingTools.RUN, CodingTools.GIT_ADD,
                CodingTools.GIT_COMMIT)) {
            assertThat(p.decide(t)).as(t).isEqualTo(Permission.ASK);
        }
        // The agent's own rules win, exact or glob; its default stays its default for other tools.
        ToolPolicy agent = ToolPolicy.builder().allow("fs_*").deny("run_command").otherwise(Permission.DENY).build();
        ToolPolicy combined = coding.policyOver(agent);
        assertThat(combined.decide(CodingTools.WRITE)).isEqualTo(Permission.ALLOW);
        assertThat(combined.decide(CodingTools.RUN)).isEqualTo(Permission.DENY);
        assertThat(combined.decide(CodingTools.GIT_COMMIT)).isEqualTo(Permission.ASK);
        assertThat(combined.decide("web_fetch")).isEqualTo(Permission.DENY);
        // Overridden in code.
        CodingTools trusting = CodingTools.builder(ws).permission(CodingTools.RUN, Permission.ALLOW).build();
        assertThat(trusting.policy().decide(CodingTools.RUN)).isEqualTo(Permission.ALLOW);
    }
}
