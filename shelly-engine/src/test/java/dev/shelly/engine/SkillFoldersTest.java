package dev.shelly.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.chats.Message;
import dev.shelly.chats.ToolResult;
import dev.shelly.engine.config.ConfigException;
import dev.shelly.testing.ScriptedCompleter;
import dev.shelly.testing.Step;
import dev.shelly.testing.logs.LogCapture;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolOutput;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A skill's folder brings tools ({@code tools.yaml}): an MCP server subprocess (the project's own
 * Java server over stdio) and a script, started when a run loads the skill and stopped when the
 * run ends, however it ends.
 */
@Timeout(120)
class SkillFoldersTest {
    @TempDir
    Path dir;
    private ShellyDir project;
    private Path skill;
    private final Map<String, String> env = Map.of("JAVA", java(), "CP", System.getProperty("java.class.path"));

    private static String java() {
        return ProcessHandle.current().info().command().orElse("java");
    }

    @BeforeEach
    void project() throws Exception {
        project = new ShellyDir(dir.resolve(".shelly"));
        skill = Files.createDirectories(project.skillsDir().resolve("ops"));
        Files.writeString(skill.resolve("SKILL.md"), "---\ndescription: Operations\n---\nAsk the server for its pid.\n");
        Path script = Files.createDirectories(skill.resolve("scripts")).resolve("where.sh");
        Files.writeString(script, "#!/bin/sh\nread -r input\necho \"$input in $(pwd) with ${GREETING}\"\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.writeString(project.configFile(), """
                providers: [{ name: m, kind: openai, model: x, api_key: k }]
                agents: [{ name: a, toolboxes: [wait] }]
                """);
    }

    private void tools(String yaml) throws Exception {
        Files.writeString(skill.resolve("tools.yaml"), yaml);
    }

    private static final String PID_SERVER = """
            mcp_servers:
              - name: pids
                command: "${JAVA}"
                args: ["-Dshelly.test=skill-pid-server", "-cp", "${CP}", "dev.shelly.engine.PidMcpServer"]
            """;

    private Engine engine(ScriptedCompleter model, ToolBox wait) {
        return Engine.builder().dir(project).environment(env::get).userDir(null).completer("m", model)
                .toolbox("wait", wait).build();
    }

    private static ToolBox noWait() {
        return ToolBox.of(Tool.of("wait", "Waits", "{\"type\":\"object\"}", (in, ctx) -> ToolOutput.text("waited")));
    }

    private static List<ToolResult> results(Session session) {
        List<ToolResult> all = new ArrayList<>();
        for (Message m : session.chat().messages()) {
            all.addAll(m.toolResults());
        }
        return all;
    }

    /** The JVM's child processes that run the skill's pid server (marked early on its command line, which is long). */
    private static List<ProcessHandle> servers() {
        return ProcessHandle.current().children()
                .filter(p -> p.info().commandLine().orElse("").contains("-Dshelly.test=skill-pid-server")).toList();
    }

    @Test
    void loadingTheSkillStartsItsServerAndScriptForTheRunAndTheRunsEndStopsThem() throws Exception {
        tools(PID_SERVER + """
                tools:
                  - name: where
                    description: Says where it runs
                    command: scripts/where.sh
                    env: { GREETING: hello }
                    input_schema: { type: object, properties: { q: { type: string } } }
                """);
        ScriptedCompleter model = ScriptedCompleter.of(
                Step.toolCall("load_skill", "{\"name\":\"ops\"}"),
                Step.toolCalls(new Step.Call("pid", "{}"), new Step.Call("where", "{\"q\":\"x\"}")),
                Step.reply(request -> request.last().orElseThrow().toolResults().getFirst().text()),
                Step.reply("no skill now"));
        try (Engine engine = engine(model, noWait()); Session session = engine.newSession()) {
            assertThat(model.requests()).isEmpty();
            assertThat(servers()).as("nothing starts before the skill is loaded").isEmpty();

            long pid = Long.parseLong(session.send("which process?").text());

            assertThat(model.requests().get(0).toolNames()).containsExactly("wait", "load_skill");
            assertThat(model.requests().get(1).toolNames()).containsExactly("wait", "load_skill", "pid", "where");
            assertThat(results(session).get(0).text()).endsWith("Skill directory: " + skill
                    + "\nSupplementary files mentioned above are in this directory.\n\n"
                    + "Tools this skill brings, offered from now on: pid, where.");
            assertThat(results(session).get(2).text()).isEqualTo("{\"q\":\"x\"} in " + skill.toRealPath() + " with hello");
            assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false))
                    .as("the run's end stopped the skill's server").isFalse();

            session.send("and now?");
            assertThat(model.requests().get(3).toolNames()).containsExactly("wait", "load_skill");
            assertThat(servers()).isEmpty();
        }
    }

    @Test
    void aServerThatDoesNotStartIsToldToTheModelAndTheRunGoesOn() throws Exception {
        tools("""
                mcp_servers:
                  - name: broken
                    command: shelly-no-such-program-here
                """);
        ScriptedCompleter model = ScriptedCompleter.of(Step.toolCall("load_skill", "{\"name\":\"ops\"}"),
                Step.reply("went on"));
        try (LogCapture log = LogCapture.start(); Engine engine = engine(model, noWait());
                Session session = engine.newSession()) {
            assertThat(session.send("go").text()).isEqualTo("went on");

            String problem = "MCP server 'broken' of " + skill.resolve("tools.yaml") + " did not start: ";
            assertThat(results(session).getFirst().text()).contains("\n\nNot available:\n- " + problem)
                    .endsWith("\nGo on without those tools, or tell the user what is missing.");
            assertThat(log.lines()).filteredOn(l -> l.message().contains(problem)).hasSize(1);
        }
    }

    @Test
    void aCancelledRunStopsTheSkillsServer() throws Exception {
        tools(PID_SERVER);
        CountDownLatch waiting = new CountDownLatch(1);
        ToolBox wait = ToolBox.of(Tool.of("wait", "Waits", "{\"type\":\"object\"}", (in, ctx) -> {
            waiting.countDown();
            new CountDownLatch(1).await();
            return ToolOutput.text("never");
        }));
        ScriptedCompleter model = ScriptedCompleter.of(Step.toolCall("load_skill", "{\"name\":\"ops\"}"),
                Step.toolCall("wait", "{}"));
        try (Engine engine = engine(model, wait); Session session = engine.newSession()) {
            Future<Turn> turn = session.submit("wait");
            assertThat(waiting.await(60, TimeUnit.SECONDS)).isTrue();
            List<ProcessHandle> running = servers();
            assertThat(running).hasSize(1);

            session.cancel();

            assertThat(turn.isDone()).isTrue();
            assertThat(running.getFirst().onExit().get(30, TimeUnit.SECONDS).isAlive()).isFalse();
            assertThat(servers()).isEmpty();
        }
    }

    @Test
    void aScriptThatFailsIsAnErrorResultAndOneThatOutlivesItsTimeoutIsKilled() throws Exception {
        Path scripts = skill.resolve("scripts");
        Files.writeString(scripts.resolve("fail.sh"), "#!/bin/sh\necho partial\necho 'no such issue' >&2\nexit 3\n");
        Files.writeString(scripts.resolve("hang.sh"), "#!/bin/sh\necho $$ > \"$1\"\nexec sleep 60\n");
        for (String name : List.of("fail.sh", "hang.sh")) {
            Files.setPosixFilePermissions(scripts.resolve(name), PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        Path pidFile = dir.resolve("hang.pid");
        tools("""
                tools:
                  - name: fail
                    description: Fails
                    command: scripts/fail.sh
                  - name: hang
                    description: Hangs
                    command: ./scripts/hang.sh
                    args: ["%s"]
                    timeout: 1s
                """.formatted(pidFile));
        ScriptedCompleter model = ScriptedCompleter.of(Step.toolCall("load_skill", "{\"name\":\"ops\"}"),
                Step.toolCalls(new Step.Call("fail", "{}"), new Step.Call("hang", "{}")), Step.reply("done"));
        try (Engine engine = engine(model, noWait()); Session session = engine.newSession()) {
            session.send("go");

            assertThat(results(session).get(1)).satisfies(r -> {
                assertThat(r.isError()).isTrue();
                assertThat(r.text()).isEqualTo("tool 'fail' exited with status 3: no such issue\npartial");
            });
            assertThat(results(session).get(2)).satisfies(r -> {
                assertThat(r.isError()).isTrue();
                assertThat(r.text()).startsWith("tool 'hang' did not finish within ").endsWith(" and was stopped");
            });
            long pid = Long.parseLong(Files.readString(pidFile).strip());
            ProcessHandle.of(pid).ifPresent(p -> p.onExit().join());
            assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
        }
    }

    /** Waits, at most a few seconds (far less than the 60 s its program sleeps), for the process in a pid file to be gone. */
    private static void assertGone(Path pidFile) throws Exception {
        long pid = Long.parseLong(Files.readString(pidFile).strip());
        ProcessHandle.of(pid).ifPresent(p -> {
            try {
                p.onExit().get(10, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new AssertionError("process " + pid + " was left running", e);
            }
        });
        assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
    }

    @Test
    void aChildAScriptLeavesRunningInTheBackgroundEndsWithTheCall() throws Exception {
        Path scripts = skill.resolve("scripts");
        Files.writeString(scripts.resolve("spawn.sh"), "#!/bin/sh\nsleep 60 &\necho $! > \"$1\"\necho started\n");
        Files.setPosixFilePermissions(scripts.resolve("spawn.sh"), PosixFilePermissions.fromString("rwxr-xr-x"));
        Path pidFile = dir.resolve("child.pid");
        tools("""
                tools:
                  - name: spawn
                    description: Starts a child and exits
                    command: scripts/spawn.sh
                    args: ["%s"]
                    timeout: 30s
                """.formatted(pidFile));
        ScriptedCompleter model = ScriptedCompleter.of(Step.toolCall("load_skill", "{\"name\":\"ops\"}"),
                Step.toolCall("spawn", "{}"), Step.reply("done"));
        try (Engine engine = engine(model, noWait()); Session session = engine.newSession()) {
            long start = System.nanoTime();
            session.send("go");

            assertThat(results(session).get(1)).satisfies(r -> {
                assertThat(r.isError()).isFalse();
                assertThat(r.text()).isEqualTo("started");
            });
            assertThat(System.nanoTime() - start).as("the call did not wait for its timeout")
                    .isLessThan(TimeUnit.SECONDS.toNanos(25));
            assertGone(pidFile);
        }
    }

    @Test
    void aScriptThatNeverReadsALargeInputStillTimesOutAndIsKilled() throws Exception {
        Path scripts = skill.resolve("scripts");
        Files.writeString(scripts.resolve("deaf.sh"), "#!/bin/sh\nsleep 60 &\necho $! > \"$1.child\"\necho $$ > \"$1\"\nwait\n");
        Files.setPosixFilePermissions(scripts.resolve("deaf.sh"), PosixFilePermissions.fromString("rwxr-xr-x"));
        Path pidFile = dir.resolve("deaf.pid");
        tools("""
                tools:
                  - name: deaf
                    description: Never reads its input
                    command: scripts/deaf.sh
                    args: ["%s"]
                    timeout: 1s
                """.formatted(pidFile));
        String big = "{\"q\":\"" + "x".repeat(1024 * 1024) + "\"}";
        ScriptedCompleter model = ScriptedCompleter.of(Step.toolCall("load_skill", "{\"name\":\"ops\"}"),
                Step.toolCall("deaf", big), Step.reply("done"));
        try (Engine engine = engine(model, noWait()); Session session = engine.newSession()) {
            session.send("go");

            assertThat(results(session).get(1)).satisfies(r -> {
                assertThat(r.isError()).isTrue();
                assertThat(r.text()).startsWith("tool 'deaf' did not finish within ").endsWith(" and was stopped");
            });
            assertGone(pidFile);
            assertGone(dir.resolve("deaf.pid.child"));
        }
    }

    @Test
    void concurrentSessionsLoadingTheSkillEachGetTheirOwnServer() throws Exception {
        tools(PID_SERVER);
        CountDownLatch both = new CountDownLatch(2);
        ToolBox wait = ToolBox.of(Tool.of("wait", "Waits for the other session", "{\"type\":\"object\"}", (in, ctx) -> {
            both.countDown();
            return ToolOutput.text(both.await(60, TimeUnit.SECONDS) ? "both" : "alone");
        }));
        ScriptedCompleter model = ScriptedCompleter.perChat(Step.toolCall("load_skill", "{\"name\":\"ops\"}"),
                Step.toolCalls(new Step.Call("pid", "{}"), new Step.Call("wait", "{}")),
                Step.reply(request -> request.last().orElseThrow().toolResults().getFirst().text()));
        try (Engine engine = engine(model, wait); Session one = engine.newSession(); Session two = engine.newSession()) {
            Future<Turn> first = one.submit("which process?");
            Future<Turn> second = two.submit("which process?");
            long a = Long.parseLong(first.get(60, TimeUnit.SECONDS).text());
            long b = Long.parseLong(second.get(60, TimeUnit.SECONDS).text());

            assertThat(a).isNotEqualTo(b);
            assertThat(servers()).isEmpty();
        }
    }

    @Test
    void aWrongToolsFileFailsTheEngineNamingTheFileAndLine() throws Exception {
        tools("""
                mcp_servers:
                  - name: pids
                    command: java
                    arg: [-version]
                """);
        assertThatThrownBy(() -> engine(ScriptedCompleter.of(), noWait())).isInstanceOf(ConfigException.class)
                .hasMessageStartingWith(skill.resolve("tools.yaml") + ":4: mcp_servers[0].arg: unknown field 'arg'; expected one of args, command, elicitation, env, headers, name, oauth, "
                        + "prompts, resources, sampling, url, working_dir");

        tools("""
                tools:
                  - name: where
                    command: scripts/where.sh
                """);
        assertThatThrownBy(() -> engine(ScriptedCompleter.of(), noWait())).isInstanceOf(ConfigException.class)
                .hasMessageStartingWith(skill.resolve("tools.yaml") + ":2: tools[0]");
    }
}
