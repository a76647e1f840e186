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
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Escape attempts, sent through the toolbox as a model would send them: each must come back as
 * an error result that says why, and nothing outside the workspace (or sensitive inside it) may
 * be read, written, listed or deleted.
 */
class EscapeTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String SECRET = "TOP-SECRET-OUTSIDE";

    static Path base;
    static Path ws;
    static Path outside;
    static ToolBox box;

    @BeforeAll
    static void setUp() throws Exception {
        base = Files.createTempDirectory("shelly-escape");
        ws = Files.createDirectories(base.resolve("ws"));
        outside = Files.createDirectories(base.resolve("outside"));
        Files.writeString(outside.resolve("canary.txt"), SECRET);
        Files.writeString(base.resolve("canary.txt"), SECRET);
        Files.createDirectories(ws.resolve("src"));
        Files.writeString(ws.resolve("src/Main.java"), "class Main {}\n");
        Files.writeString(ws.resolve(".env"), "ANTHROPIC_API_KEY=" + SECRET);
        Files.createDirectories(ws.resolve("config"));
        Files.writeString(ws.resolve("config/.env.local"), SECRET);
        Files.writeString(ws.resolve("server.pem"), SECRET);
        Files.createDirectories(ws.resolve(".shelly"));
        Files.writeString(ws.resolve(".shelly/permissions.json"), SECRET);
        Files.createDirectories(ws.resolve(".ssh"));
        Files.writeString(ws.resolve(".ssh/id_rsa"), SECRET);
        Files.createDirectories(ws.resolve(".git/hooks"));
        Files.createSymbolicLink(ws.resolve("out-link"), outside);
        Files.createSymbolicLink(ws.resolve("out-file"), outside.resolve("canary.txt"));
        Files.createSymbolicLink(ws.resolve("root-link"), Path.of("/"));
        Files.createSymbolicLink(ws.resolve("up-link"), Path.of(".."));
        Files.createSymbolicLink(ws.resolve("dangling"), outside.resolve("not-yet"));
        Files.createSymbolicLink(ws.resolve("env-link"), ws.resolve(".env"));
        Files.createDirectories(ws.resolve("deep/er"));
        Files.createSymbolicLink(ws.resolve("deep/er/back"), Path.of("../../.."));
        box = CodingTools.builder(ws).shellAllowed(false).build().toolBox();
    }

    @AfterAll
    static void tearDown() throws Exception {
        try (Stream<Path> s = Files.walk(base)) {
            s.sorted((a, b) -> b.compareTo(a)).forEach(p -> p.toFile().delete());
        }
    }

    static String longPath() {
        return "a/".repeat(600) + "x";
    }

    /** Paths that must be refused by every file tool. */
    static List<String> badPaths() {
        return List.of(
                "../canary.txt", "../../etc/passwd", "src/../../canary.txt", "./../canary.txt", "src/../..",
                "..", "../", "/etc/passwd", "/tmp", "/", base.resolve("canary.txt").toString(),
                outside.resolve("canary.txt").toString(), ws + "/../canary.txt", "~/.ssh/id_rsa", "~",
                "..\\canary.txt", "src\\..\\..\\canary.txt", "C:\\Windows\\win.ini", "C:/Windows/win.ini",
                "c:secret", "src/Main.java\u0000.txt", "\u0000", "src/\u0000/../../x", "src/\nMain.java",
                "src/\rx", longPath(), "out-link/canary.txt", "out-link", "out-file", "root-link/etc/passwd",
                "root-link", "up-link/canary.txt", "up-link/outside/canary.txt", "dangling", "dangling/x",
                "deep/er/back/canary.txt", "deep/er/back", ".env", "./.env", "src/../.env", "config/.env.local",
                ".ENV", "server.pem", ".shelly/permissions.json", ".shelly", ".shelly/config.yaml", ".ssh/id_rsa",
                "ID_RSA", "env-link", ".git/hooks/pre-commit", ".git/config", "");
    }

    static Stream<Arguments> attempts() {
        List<Arguments> out = new ArrayList<>();
        for (String p : badPaths()) {
            out.add(Arguments.of(CodingTools.READ, args("path", p)));
            out.add(Arguments.of(CodingTools.WRITE, args("path", p, "content", "pwned")));
        }
        for (String p : List.of("../canary.txt", "/etc/passwd", "out-link/x", "dangling/x", ".env", "..\\x",
                "x\u0000", longPath(), "up-link/canary.txt", ".shelly/permissions.json")) {
            out.add(Arguments.of(CodingTools.EDIT, args("path", p, "old_text", "a", "new_text", "b")));
            out.add(Arguments.of(CodingTools.STAT, args("path", p)));
            out.add(Arguments.of(CodingTools.DELETE, args("path", p, "recursive", true)));
            out.add(Arguments.of(CodingTools.MKDIR, args("path", p + "/d")));
            out.add(Arguments.of(CodingTools.LIST, args("path", p)));
            out.add(Arguments.of(CodingTools.SEARCH, args("pattern", "SECRET", "path", p)));
            out.add(Arguments.of(CodingTools.MOVE, args("from", "src/Main.java", "to", p)));
            out.add(Arguments.of(CodingTools.MOVE, args("from", p, "to", "src/x")));
            out.add(Arguments.of(CodingTools.COPY, args("from", p, "to", "src/copy")));
            out.add(Arguments.of(CodingTools.COPY, args("from", "src/Main.java", "to", p)));
        }
        for (String root : List.of(".", "/", "./", "src/..", ws.toString())) {
            out.add(Arguments.of(CodingTools.DELETE, args("path", root, "recursive", true)));
            out.add(Arguments.of(CodingTools.MOVE, args("from", root, "to", "elsewhere")));
        }
        for (String p : List.of("../canary.txt", "/etc/passwd", "out-link/canary.txt", ".env", "dangling")) {
            out.add(Arguments.of(CodingTools.PATCH, args("patch", "--- a/" + p + "\n+++ b/" + p
                    + "\n@@ -0,0 +1 @@\n+pwned\n")));
            out.add(Arguments.of(CodingTools.GIT_ADD, args("paths", List.of(p))));
            out.add(Arguments.of(CodingTools.GIT_DIFF, args("paths", List.of(p))));
        }
        // Commands: shells, substitutions, metacharacters, absolute and parent paths, links.
        List<List<String>> commands = List.of(
                List.of("cat", "/etc/passwd"), List.of("cat", "../canary.txt"), List.of("cat", "src/../../canary.txt"),
                List.of("cat", ".env"), List.of("cat", "./.env"), List.of("cat", "config/.env.local"),
                List.of("cat", ".shelly/permissions.json"), List.of("ls", "~"), List.of("ls", "-la", "/"),
                List.of("sh", "-c", "cat ../canary.txt"), List.of("bash", "-c", "id"), List.of("env", "cat", "x"),
                List.of("xargs", "cat"), List.of("/bin/cat", "src/Main.java"), List.of("../bin/cat", "x"),
                List.of("echo", "$(cat ../canary.txt)"), List.of("echo", "`id`"), List.of("echo", "a;id"),
                List.of("echo", "a|id"), List.of("echo", "a&&id"), List.of("echo", "x>out"), List.of("cat", "<x"),
                List.of("echo", "a\nid"), List.of("echo", "${HOME}"), List.of("ln", "-s", "/etc", "etc-link"),
                List.of("ln", "-s", "..", "parent"), List.of("ln", "-s", "../outside", "o"), List.of("cp", "x", ".git/hooks/pre-commit"),
                List.of("cat", "--file=/etc/passwd"), List.of("tar", "-C", "/", "-cf", "x.tar", "etc"),
                List.of("sudo", "ls"), List.of("curl", "http://example.com"), List.of("wget", "http://example.com"),
                List.of("ssh", "host"), List.of("kill", "-9", "1"), List.of("git", "push"),
                List.of("git", "-C", "..", "status"), List.of("cat", "C:\\Windows\\win.ini"), List.of("cat", "a\u0000b"),
                List.of("cat", "x:../y"));
        for (List<String> c : commands) {
            out.add(Arguments.of(CodingTools.RUN, args("program", c.getFirst(), "args", c.subList(1, c.size()))));
        }
        out.add(Arguments.of(CodingTools.RUN, args("command", "cat ../canary.txt")));
        return out.stream();
    }

    static String args(Object... kv) {
        ObjectNode n = JSON.createObjectNode();
        for (int i = 0; i < kv.length; i += 2) {
            n.set((String) kv[i], JSON.valueToTree(kv[i + 1]));
        }
        return n.toString();
    }

    @Test
    void thereAreAtLeastAHundredAttempts() {
        assertThat(attempts().count()).isGreaterThanOrEqualTo(100);
    }

    @ParameterizedTest(name = "[{index}] {0} {1}")
    @MethodSource("attempts")
    void failsSafe(String tool, String arguments) throws Exception {
        ToolResult r = box.call(new ToolCall("c1", tool, arguments), ToolContext.of("coder"));
        String text = text(r);
        assertThat(r.isError()).as("%s %s -> %s", tool, arguments, text).isTrue();
        assertThat(text).as("an error that says why").isNotBlank().doesNotContain(SECRET);
        assertThat(text).doesNotStartWith("tool '" + tool + "' failed: java.lang");
        // Nothing outside changed, nothing sensitive changed, the workspace is still there.
        assertThat(Files.readString(outside.resolve("canary.txt"))).isEqualTo(SECRET);
        assertThat(Files.readString(base.resolve("canary.txt"))).isEqualTo(SECRET);
        try (Stream<Path> s = Files.list(outside)) {
            assertThat(s.map(p -> p.getFileName().toString())).containsExactly("canary.txt");
        }
        assertThat(Files.readString(ws.resolve(".env"))).contains(SECRET);
        assertThat(Files.readString(ws.resolve(".shelly/permissions.json"))).isEqualTo(SECRET);
        assertThat(ws.resolve(".git/hooks/pre-commit")).doesNotExist();
        assertThat(ws.resolve("src/Main.java")).exists();
        assertThat(Files.isSymbolicLink(ws.resolve("out-link"))).isTrue();
        assertThat(ws.resolve("etc-link")).doesNotExist();
    }

    @Test
    void refusalsSayWhy() {
        assertThat(call(CodingTools.READ, args("path", "../canary.txt")))
                .isEqualTo("path '../canary.txt' holds '..'; paths stay inside the workspace");
        assertThat(call(CodingTools.READ, args("path", "out-link/canary.txt")))
                .isEqualTo("path 'out-link/canary.txt' goes through the link 'out-link', which points outside the workspace");
        assertThat(call(CodingTools.READ, args("path", ".env")))
                .isEqualTo("path '.env' is a sensitive file (pattern '.env'); the coding tools do not touch it");
        assertThat(call(CodingTools.READ, args("path", "env-link")))
                .isEqualTo("path 'env-link' is a sensitive file (pattern '.env'); the coding tools do not touch it");
        assertThat(call(CodingTools.READ, args("path", "a\u0000b")))
                .isEqualTo("path 'a\\u0000b' holds a NUL character at 1");
        assertThat(call(CodingTools.READ, args("path", "src\\x")))
                .isEqualTo("path 'src\\x' holds a backslash at 3; use '/' to separate directories");
        assertThat(call(CodingTools.RUN, args("program", "echo", "args", List.of("$(id)"))))
                .isEqualTo("argument 1 '$(id)' holds the shell metacharacter '$'; commands run without a shell, so pass "
                        + "each argument on its own and use no pipes, redirections or substitutions");
        assertThat(call(CodingTools.RUN, args("program", "sudo", "args", List.of("ls"))))
                .isEqualTo("program 'sudo' is on the denylist of the coding tools");
    }

    @Test
    void aLinkMadeByTheAgentsOwnCommandIsNotFollowed() throws Exception {
        // With the argument checks off (a shell allowed), the agent can make a link; the file tools still refuse it.
        ToolBox shell = CodingTools.builder(ws).shellAllowed(true).build().toolBox();
        ToolResult made = shell.call(new ToolCall("c1", CodingTools.RUN,
                args("command", "ln -s " + outside + " made-link && ln -s " + outside.resolve("canary.txt") + " made-file")),
                ToolContext.of("coder"));
        assertThat(made.isError()).as(text(made)).isFalse();
        for (String p : List.of("made-link/canary.txt", "made-file")) {
            String read = call(CodingTools.READ, args("path", p));
            assertThat(read).contains("points outside the workspace").doesNotContain(SECRET);
            assertThat(call(CodingTools.WRITE, args("path", p, "content", "x"))).contains("points outside the workspace");
        }
        assertThat(call(CodingTools.DELETE, args("path", "made-link"))).isEqualTo(null);
        assertThat(Files.readString(outside.resolve("canary.txt"))).isEqualTo(SECRET);
        Files.deleteIfExists(ws.resolve("made-file"));
    }

    @Test
    void aLinkSwappedInBetweenCheckAndUseIsNotFollowed() throws Exception {
        // Another process keeps replacing a workspace file with a link to a secret outside while reads go on.
        Path target = ws.resolve("race.txt");
        Files.writeString(target, "inside");
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        Thread swapper = Thread.ofPlatform().start(() -> {
            while (!stop.get()) {
                try {
                    Path tmp = ws.resolve("race.tmp");
                    Files.deleteIfExists(tmp);
                    Files.createSymbolicLink(tmp, outside.resolve("canary.txt"));
                    Files.move(tmp, target, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                            java.nio.file.StandardCopyOption.ATOMIC_MOVE);
                    Path tmp2 = ws.resolve("race.tmp2");
                    Files.writeString(tmp2, "inside");
                    Files.move(tmp2, target, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                            java.nio.file.StandardCopyOption.ATOMIC_MOVE);
                } catch (Exception e) {
                    // keep swapping
                }
            }
        });
        try {
            for (int i = 0; i < 300; i++) {
                ToolResult r = box.call(new ToolCall("c" + i, CodingTools.READ, args("path", "race.txt")),
                        ToolContext.of("coder"));
                assertThat(text(r)).doesNotContain(SECRET);
            }
        } finally {
            stop.set(true);
            swapper.join();
        }
        assertThat(Files.readString(outside.resolve("canary.txt"))).isEqualTo(SECRET);
    }

    /** The error text of a call, or null when it succeeded. */
    static String call(String tool, String arguments) {
        ToolResult r = box.call(new ToolCall("c1", tool, arguments), ToolContext.of("coder"));
        return r.isError() ? text(r) : null;
    }

    static String text(ToolResult r) {
        return r.text();
    }
}
