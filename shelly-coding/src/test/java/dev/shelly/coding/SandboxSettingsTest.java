package dev.shelly.coding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import dev.shelly.testing.logs.LogCapture;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.event.Level;

/** The sandbox's settings: its absence, running unconfined on purpose, the allowlist's entries. */
class SandboxSettingsTest {
    @TempDir
    Path ws;

    static String run(ToolBox box, Object... kv) {
        ToolResult r = box.call(new ToolCall("c1", CodingTools.RUN, EscapeTest.args(kv)), ToolContext.of("coder"));
        return r.text();
    }

    static String git(ToolBox box) {
        return box.call(new ToolCall("c1", CodingTools.GIT_STATUS, "{}"), ToolContext.of("coder")).text();
    }

    @Test
    void withoutBubblewrapCommandsAndGitAreRefusedNamingThePackageAndTheOptOut() {
        ToolBox box = CodingTools.builder(ws).sandbox(Sandbox.bubblewrap(Path.of("/nonexistent/bwrap"))).build()
                .toolBox();
        String expected = "the command sandbox bubblewrap is not installed (no executable '/nonexistent/bwrap'); install "
                + "the package 'bubblewrap' (Debian, Ubuntu: apt-get install bubblewrap; Fedora: dnf install "
                + "bubblewrap). To run commands without a sandbox on purpose, set 'sandbox: none' "
                + "(CodingTools.Builder.sandbox(Sandbox.NONE))";
        assertThat(run(box, "program", "echo", "args", List.of("hi"))).isEqualTo(expected);
        assertThat(git(box)).isEqualTo(expected);
    }

    @Test
    void aBubblewrapThatCannotStartIsRefusedSayingWhy() throws Exception {
        // Outside the workspace: the tools name no path inside it absolutely.
        Path fake = Files.createTempDirectory("fake-bwrap").resolve("bwrap");
        Files.writeString(fake, "#!/bin/sh\necho 'bwrap: No permissions to creating new namespace' >&2\nexit 1\n");
        Files.setPosixFilePermissions(fake, PosixFilePermissions.fromString("rwxr-xr-x"));
        ToolBox box = CodingTools.builder(ws).sandbox(Sandbox.bubblewrap(fake)).build().toolBox();
        assertThat(run(box, "program", "echo")).startsWith("the command sandbox bubblewrap ('" + fake + "') cannot start "
                + "a sandbox here: it exited with 1: bwrap: No permissions to creating new namespace; ")
                .endsWith("To run commands without a sandbox on purpose, set 'sandbox: none' "
                        + "(CodingTools.Builder.sandbox(Sandbox.NONE))");
        Files.delete(fake);
        Files.delete(fake.getParent());
    }

    @Test
    void runningUnconfinedIsAnExplicitSettingLoggedOncePerToolbox() {
        try (LogCapture logs = LogCapture.start()) {
            ToolBox box = CodingTools.builder(ws).sandbox(Sandbox.NONE).build().toolBox();
            run(box, "program", "echo", "args", List.of("a"));
            run(box, "program", "echo", "args", List.of("b"));
            CodingTools.builder(ws).build();
            List<LogCapture.Line> warns = logs.lines().stream()
                    .filter(l -> l.logger().equals(CodingTools.class.getName())).toList();
            assertThat(warns).hasSize(1);
            assertThat(warns.getFirst().level()).isEqualTo(Level.WARN);
            assertThat(warns.getFirst().message()).isEqualTo("coding tools in " + ws.getFileName() + ": commands and git "
                    + "run WITHOUT a sandbox (sandbox: none); a model can read and change everything this JVM can");
        }
        assertThat(Sandbox.NONE.confines()).isFalse();
        assertThat(Sandbox.bubblewrap().confines()).isTrue();
        assertThat(Sandbox.platformDefault().name()).isEqualTo("bubblewrap");
    }

    @Test
    void anAllowlistEntryIsAResolvedExecutableNeverAFileOfTheWorkspace() throws Exception {
        // The agent writes a script named like an allowed program; it must not run as that program.
        Path fake = ws.resolve("ls");
        Files.writeString(fake, "#!/bin/sh\necho FAKE-LS\n");
        Files.setPosixFilePermissions(fake, PosixFilePermissions.fromString("rwxr-xr-x"));
        ToolBox box = CodingTools.builder(ws).allowCommands("ls").build().toolBox();
        assertThat(run(box, "program", "./ls")).isEqualTo("program './ls' is a file in the workspace; only the "
                + "allowlist's programs may run: ls");
        String real = run(box, "program", "ls");
        assertThat(real).startsWith("exit code 0\n").contains("ls\n").doesNotContain("FAKE-LS");
        // Even with the workspace first on the search path, 'ls' is the program resolved when the toolbox was built.
        ToolBox shadowed = CodingTools.builder(ws).allowCommands("ls").build().toolBox();
        ToolBox prepended = CodingTools.builder(ws).prependSearchPath(ws).allowCommands("/usr/bin/ls").build()
                .toolBox();
        assertThat(run(prepended, "program", "ls")).isEqualTo("program 'ls' is a file in the workspace; only the "
                + "allowlist's programs may run: /usr/bin/ls");
        assertThat(run(shadowed, "program", "ls")).doesNotContain("FAKE-LS");
        assertThatThrownBy(() -> CodingTools.builder(ws).prependSearchPath(ws).allowCommands("ls").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("CodingTools.Builder.allowCommands 'ls': 'ls' is a file in the workspace; an allowlist "
                        + "names programs installed outside it");
        assertThatThrownBy(() -> CodingTools.builder(ws).allowCommands("no-such-program-here").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("CodingTools.Builder.allowCommands 'no-such-program-here': 'no-such-program-here' was not "
                        + "found on the search path commands see; name the program by its absolute path");
    }

    @Test
    void anInterpreterIsAllowedOnlyWithTheArgumentsItsEntryNames() throws Exception {
        assertThatThrownBy(() -> CodingTools.builder(ws).allowCommands("python3").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("CodingTools.Builder.allowCommands 'python3': 'python3' runs code given on its command line; "
                        + "allow it with the arguments it may take, e.g. 'python3 -m pytest'");
        assertThatThrownBy(() -> CodingTools.builder(ws).allowCommands("perl -e").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("CodingTools.Builder.allowCommands 'perl -e': '-e' makes 'perl' run the text that follows as "
                        + "code; allow a module or a script instead");
        Files.writeString(ws.resolve("tool.py"), "import sys\nprint('tool', sys.argv[1:])\n");
        ToolBox box = CodingTools.builder(ws).allowCommands("python3 -m json.tool", "python3 tool.py", "node --version")
                .build().toolBox();
        Files.writeString(ws.resolve("x.json"), "{\"a\":1}");
        assertThat(run(box, "program", "python3", "args", List.of("-m", "json.tool", "x.json")))
                .isEqualTo("exit code 0\n{\n    \"a\": 1\n}\n");
        assertThat(run(box, "program", "python3", "args", List.of("tool.py", "--flag")))
                .isEqualTo("exit code 0\ntool ['--flag']\n");
        for (List<String> bad : List.of(List.of("-c", "print(1)"), List.of("tool.py", "-c", "print(1)"),
                List.of("-m", "http.server"), List.of("-ctouch x"))) {
            assertThat(run(box, "program", "python3", "args", bad)).as(bad.toString())
                    .isEqualTo("program 'python3' is allowed only with the arguments its allowlist entries name: "
                            + "python3 -m json.tool, python3 tool.py");
        }
        assertThat(run(box, "program", "node", "args", List.of("--version", "-e", "1"))).startsWith("program 'node' is "
                + "allowed only with the arguments its allowlist entries name: node --version");
        assertThat(run(box, "program", "node", "args", List.of("--version"))).startsWith("exit code 0\nv");
    }
}
