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
        assertThat(names).containsExactlyInAnyOrder("PATH", "HOME", "LANG", "LC_ALL", "TERM", "NO_COLOR",
                "GIT_TERMINAL_PROMPT", "GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_GLOBAL", "BUILD_MODE");
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
        ToolResult r = call(box, CodingTools.RUN, "command", "sleep 60 & echo $! > child.pid; sleep 60");
        assertThat(r.isError()).isTrue();
        assertThat(r.text()).startsWith("command 'sleep 60 & echo $! > child.pid; sleep 60' did not finish within 1 s; "
                + "it and every process it started were killed");
        assertThat(Duration.between(start, Instant.now())).isLessThan(Duration.ofSeconds(30));
        long pid = Long.parseLong(Files.readString(ws.resolve("child.pid")).strip());
        Instant deadline = Instant.now().plusSeconds(10);
        while (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false) && Instant.now().isBefore(deadline)) {
            Thread.onSpinWait();
        }
        assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).as("the background child").isFalse();
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
