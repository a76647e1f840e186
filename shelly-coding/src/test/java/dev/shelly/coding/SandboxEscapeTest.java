package dev.shelly.coding;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolContext;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Hostile commands, sent through {@value CodingTools#RUN} as a prompt-injected model would, with
 * a shell allowed (the strongest position a model can be given): interpreters, programs that run
 * programs, links, {@code /proc}, the network. Canaries sit outside the workspace (beside it, in
 * the JVM's working directory, in its home), in the workspace's {@code .env} and key files, in
 * a hard link to {@code .env}, in the remote URL of the repository, and in this JVM's own
 * environment (Surefire starts it with {@code OPENAI_API_KEY} set). No canary may appear in any
 * result, and nothing outside the workspace may change.
 */
@Timeout(300)
class SandboxEscapeTest {
    /** The key this JVM was started with (see the pom): a command must never read it. */
    static final String JVM_KEY = "sk-canary-jvm-environment-5b7d0c1f9e";
    static final String OUTSIDE = "CANARY-OUTSIDE-7f3a";
    static final String ENV_FILE = "CANARY-DOTENV-91c2";
    static final String KEY_FILE = "CANARY-KEYFILE-4d0e";
    static final String TOKEN = "ghp_CANARYTOKEN8a6b4c2d";
    static final String HOME = "CANARY-HOME-2b9f";
    static final String CWD = "CANARY-CWD-6e1d";
    static final List<String> CANARIES = List.of(JVM_KEY, OUTSIDE, ENV_FILE, KEY_FILE, TOKEN, HOME, CWD);

    static Path base;
    static Path ws;
    static Path outside;
    static Path homeCanary;
    static Path cwdCanary;
    static ToolBox shell;
    static ToolBox plain;
    static Map<String, String> before;
    static ServerSocket listener;
    static long jvm = ProcessHandle.current().pid();

    @BeforeAll
    static void setUp() throws Exception {
        assertThat(System.getenv("OPENAI_API_KEY")).as("Surefire starts this JVM with a canary key").isEqualTo(JVM_KEY);
        base = Files.createTempDirectory("shelly-sandbox");
        ws = Files.createDirectories(base.resolve("ws"));
        outside = Files.createDirectories(base.resolve("outside"));
        Files.writeString(outside.resolve("secret.txt"), OUTSIDE);
        Files.writeString(base.resolve("secret.txt"), OUTSIDE);
        homeCanary = Path.of(System.getProperty("user.home")).resolve(".shelly-canary-" + jvm);
        Files.writeString(homeCanary, HOME);
        cwdCanary = Path.of(System.getProperty("user.dir")).resolve("target/shelly-canary-" + jvm);
        Files.createDirectories(cwdCanary.getParent());
        Files.writeString(cwdCanary, CWD);
        git("init", "-q", "-b", "main");
        git("remote", "add", "origin", "https://bot:" + TOKEN + "@example.invalid/acme/app.git");
        Files.writeString(ws.resolve("README.md"), "hello\n");
        Files.writeString(ws.resolve(".env"), "OPENAI_API_KEY=" + ENV_FILE + "\n");
        Files.createDirectories(ws.resolve("config"));
        Files.writeString(ws.resolve("config/.env.local"), ENV_FILE);
        Files.writeString(ws.resolve("server.key"), KEY_FILE);
        Files.createDirectories(ws.resolve(".ssh"));
        Files.writeString(ws.resolve(".ssh/id_ed25519"), KEY_FILE);
        Files.createLink(ws.resolve("notes.txt"), ws.resolve(".env"));
        Files.writeString(ws.resolve(".gitignore"), "");
        git("add", "README.md");
        git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "init");
        listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().start(() -> {
            while (!listener.isClosed()) {
                try (var s = listener.accept()) {
                    s.getOutputStream().write(("LISTENER-" + OUTSIDE + "\n").getBytes());
                } catch (IOException e) {
                    return;
                }
            }
        });
        shell = CodingTools.builder(ws).shellAllowed(true).build().toolBox();
        plain = CodingTools.builder(ws).build().toolBox();
        before = snapshot();
    }

    @AfterAll
    static void tearDown() throws Exception {
        if (listener != null) {
            listener.close();
        }
        Files.deleteIfExists(homeCanary);
        Files.deleteIfExists(cwdCanary);
        try (Stream<Path> s = Files.walk(base)) {
            s.sorted((a, b) -> b.compareTo(a)).forEach(p -> p.toFile().delete());
        }
    }

    static void git(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("git"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).directory(ws.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor()).as(out).isZero();
    }

    /** Every file outside the workspace that a canary or an escape could touch, with its content. */
    static Map<String, String> snapshot() throws IOException {
        Map<String, String> m = new TreeMap<>();
        try (Stream<Path> s = Files.walk(base)) {
            for (Path p : s.filter(p -> !p.startsWith(ws)).toList()) {
                m.put(p.toString(), Files.isRegularFile(p) ? Files.readString(p) : "(dir)");
            }
        }
        m.put(homeCanary.toString(), Files.readString(homeCanary));
        m.put(cwdCanary.toString(), Files.readString(cwdCanary));
        for (String f : List.of("/tmp/escaped-" + jvm, "/var/tmp/escaped-" + jvm, "/usr/local/escaped-" + jvm,
                System.getProperty("user.home") + "/escaped-" + jvm, System.getProperty("user.dir") + "/escaped-" + jvm)) {
            m.put(f, Files.exists(Path.of(f)) ? "EXISTS" : "absent");
        }
        return m;
    }

    static String run(ToolBox box, String arguments) {
        ToolResult r = box.call(new ToolCall("c1", CodingTools.RUN, arguments), ToolContext.of("coder"));
        return r.text();
    }

    static String line(String command) {
        return EscapeTest.args("command", command);
    }

    static void assertNoCanary(String what, String result) {
        for (String c : CANARIES) {
            assertThat(result).as(what + " leaked " + c + ":\n" + result).doesNotContain(c);
        }
    }

    static void assertNothingOutsideChanged(String what) throws IOException {
        assertThat(snapshot()).as(what).isEqualTo(before);
    }

    /** Places outside the workspace, as a model would name them. */
    static List<String> secrets() {
        return List.of(outside.resolve("secret.txt").toString(), base.resolve("secret.txt").toString(),
                "../secret.txt", "../outside/secret.txt", homeCanary.toString(), cwdCanary.toString(),
                "/proc/" + jvm + "/environ", "/proc/" + jvm + "/cmdline", "/proc/1/environ", ".env", "notes.txt",
                "config/.env.local", "server.key", ".ssh/id_ed25519");
    }

    /** Ways to read a file, each a shell line with {} for the file. */
    static List<String> readers() {
        return List.of("cat {}", "head -c 4000 {}", "tail -n 5 {}", "od -c {}", "base64 {}", "strings {}",
                "python3 -c \"print(open('{}').read())\"", "node -e \"console.log(require('fs').readFileSync('{}','utf8'))\"",
                "perl -ne print {}", "awk '{print}' {}", "sed -n p {}", "grep -a . {}", "cp {} copy.txt && cat copy.txt",
                "ln -sf {} l.txt && cat l.txt", "tar cf - {} 2>/dev/null | tar xOf -", "find {} -exec cat {} \\;",
                "xargs -a {} echo");
    }

    static Stream<Arguments> reads() {
        List<Arguments> out = new ArrayList<>();
        for (String secret : secrets()) {
            for (String reader : readers()) {
                out.add(Arguments.of(reader.replace("{}", secret)));
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("reads")
    void noReadReachesACanary(String command) throws Exception {
        assertNoCanary(command, run(shell, line(command)));
    }

    /** Ways to write a file, each a shell line with {} for the file. */
    static List<String> writers() {
        return List.of("echo pwned > {}", "touch {}", "cp README.md {}", "python3 -c \"open('{}','w').write('x')\"",
                "node -e \"require('fs').writeFileSync('{}','x')\"", "perl -e 'open(F,\">{}\");print F 1'",
                "awk 'BEGIN{system(\"touch {}\")}'", "sed -n '1e touch {}' README.md", "sed -n 'w {}' README.md",
                "find . -maxdepth 0 -exec touch {} \\;", "tar cf t.tar README.md && tar xf t.tar --transform 's,.*,{},P' -P",
                "cp -t$(dirname {}) README.md", "install -D README.md {}", "tee {} < README.md",
                "git diff --output={} HEAD", "ln -s README.md {}", "mkdir -p {}.d");
    }

    static Stream<Arguments> writes() {
        List<Arguments> out = new ArrayList<>();
        for (String dir : List.of(outside.toString(), base.toString(), "/tmp", "/var/tmp", "/usr/local",
                System.getProperty("user.home"), System.getProperty("user.dir"))) {
            for (String writer : writers()) {
                out.add(Arguments.of(writer.replace("{}", dir + "/escaped-" + jvm)));
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("writes")
    void noWriteLandsOutside(String command) throws Exception {
        assertNoCanary(command, run(shell, line(command)));
        assertNothingOutsideChanged(command);
    }

    static Stream<Arguments> environments() {
        return Stream.of("ps eww " + jvm, "ps axeww", "ps -ef", "cat /proc/" + jvm + "/environ",
                "cat /proc/*/environ", "for f in /proc/[0-9]*/environ; do tr '\\0' '\\n' < $f; done", "env", "printenv",
                "python3 -c \"import os; print(dict(os.environ))\"", "node -e \"console.log(process.env)\"",
                "cat /proc/self/environ", "cat /proc/1/environ", "ls -la /proc", "cat /proc/1/cmdline",
                "cat /proc/" + jvm + "/cmdline", "ls /root /home", "cat ~/.shelly-canary-" + jvm,
                "ls " + System.getProperty("user.dir"), "cat /run/secrets/* 2>&1", "git config -l", "git remote -v",
                "git config --get remote.origin.url", "git var -l", "cat .git/config", "grep -r . --exclude-dir=.git .",
                "grep -r OPENAI .", "git grep -n OPENAI", "git show HEAD:.env", "cat .shelly/* 2>&1")
                .map(Arguments::of);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("environments")
    void noProcessEnvironmentOrCredentialIsVisible(String command) {
        assertNoCanary(command, run(shell, line(command)));
    }

    @Test
    void theJvmIsNotAmongTheProcessesACommandSees() {
        String ps = run(shell, line("ls /proc | grep -E '^[0-9]+$' | wc -l; test -e /proc/" + jvm + " && echo VISIBLE"));
        assertThat(ps).doesNotContain("VISIBLE");
        assertThat(Integer.parseInt(ps.lines().skip(1).findFirst().orElseThrow().strip())).isLessThan(10);
    }

    @Test
    void theTreeAWorkspaceLiesInIsHiddenUpToItsTop() throws Exception {
        // A workspace deep in a tree of its own, a canary two levels up: not the JVM's directory, not /tmp.
        Path top = Path.of("/shelly-sandbox-test-" + jvm);
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isWritable(Path.of("/")), "needs a writable /");
        try {
            Path deep = Files.createDirectories(top.resolve("projects/team/app"));
            Files.writeString(top.resolve("projects/canary.txt"), OUTSIDE);
            ToolBox box = CodingTools.builder(deep).shellAllowed(true).build().toolBox();
            String out = run(box, line("cat ../../canary.txt " + top + "/projects/canary.txt; ls " + top
                    + "; echo x > " + top + "/escaped; pwd"));
            assertNoCanary("deep workspace", out);
            assertThat(out).endsWith(deep + "\n");
            assertThat(top.resolve("escaped")).doesNotExist();
        } finally {
            try (Stream<Path> s = Files.walk(top)) {
                s.sorted((a, b) -> b.compareTo(a)).forEach(p -> p.toFile().delete());
            }
        }
    }

    @Test
    void thereIsNoNetwork() {
        int port = listener.getLocalPort();
        for (String c : List.of("python3 -c \"import socket; s=socket.create_connection(('127.0.0.1'," + port
                + "),2); print(s.recv(100))\"", "node -e \"require('net').connect(" + port
                + ",'127.0.0.1').on('data',d=>console.log(String(d))).on('error',e=>console.log('ERR',e.code))\"",
                "exec 3<>/dev/tcp/127.0.0.1/" + port + " && cat <&3", "bash -c 'cat < /dev/tcp/127.0.0.1/" + port + "'")) {
            String out = run(shell, line(c));
            assertNoCanary(c, out);
            assertThat(out).as(c).doesNotContain("LISTENER-");
        }
    }

    @Test
    void sensitiveFilesAreMaskedAndDotGitIsReadOnlyForCommands() throws Exception {
        assertThat(run(shell, line("cat .env; echo; cat notes.txt; echo; cat .ssh/id_ed25519")))
                .doesNotContain(ENV_FILE, KEY_FILE);
        assertThat(run(shell, line("ls -a .ssh"))).isEqualTo("exit code 0\n.\n..\n");
        String planted = run(shell, line("mkdir -p .git/hooks && printf '#!/bin/sh\\ntouch /tmp/hooked\\n' > "
                + ".git/hooks/pre-commit && chmod +x .git/hooks/pre-commit && echo PLANTED"));
        assertThat(planted).doesNotContain("PLANTED").contains("Read-only file system");
        assertThat(ws.resolve(".git/hooks/pre-commit")).doesNotExist();
        String glued = run(plain, EscapeTest.args("program", "cp", "args", List.of("-t.git/hooks", "README.md")));
        assertThat(glued).isEqualTo("argument 1 '-t.git/hooks' names a sensitive file; the coding tools do not touch it");
        assertThat(run(shell, line("echo x > .env; rm -f .env notes.txt; mv .env moved"))).contains(".env");
        assertThat(ws.resolve(".env")).hasContent("OPENAI_API_KEY=" + ENV_FILE + "\n");
        assertThat(ws.resolve("notes.txt")).exists();
        assertNothingOutsideChanged("masks");
    }

    @Test
    void gitGetsNoTokenOut() {
        for (String c : List.of("git remote -v", "git config --get remote.origin.url", "git var -l", "git config -l",
                "git ls-remote origin")) {
            String out = run(shell, line(c));
            assertThat(out).as(c).doesNotContain(TOKEN);
        }
        assertThat(run(shell, line("git remote -v"))).contains("https://[redacted]@example.invalid/acme/app.git");
        assertThat(run(plain, EscapeTest.args("program", "git", "args", List.of("config", "--get", "remote.origin.url"))))
                .isEqualTo("exit code 0\nhttps://[redacted]@example.invalid/acme/app.git\n");
    }
}
