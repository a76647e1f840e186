package dev.shelly.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.agent.AgentEvent;
import dev.shelly.agent.Answer;
import dev.shelly.agent.Approvals;
import dev.shelly.agent.PendingCall;
import dev.shelly.agent.ToolPolicy;
import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import dev.shelly.storage.internal.FilePermissionStore;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(120)
class EngineApprovalsTest {

    @TempDir
    Path dir;

    /** Every call is answered by the very next message, exactly once, in call order. */
    static void assertAnsweredOnceInOrder(List<Message> messages) {
        List<String> calls = new ArrayList<>();
        List<String> answers = new ArrayList<>();
        for (int i = 0; i < messages.size(); i++) {
            List<ToolCall> made = messages.get(i).toolCalls();
            made.forEach(c -> calls.add(c.id()));
            messages.get(i).toolResults().forEach(r -> answers.add(r.toolCallId()));
            if (!made.isEmpty()) {
                assertThat(messages.get(i + 1).toolResults()).extracting(ToolResult::toolCallId)
                        .containsExactlyElementsOf(made.stream().map(ToolCall::id).toList());
            }
        }
        assertThat(answers).containsExactlyElementsOf(calls);
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what);
            }
            Thread.sleep(5);
        }
    }

    @Test
    void aPausedSessionIsSavedWithWhatItWaitsForAndAnsweredInAnotherEngine() throws Exception {
        List<AgentEvent> events = Collections.synchronizedList(new ArrayList<>());
        List<PendingCall> first;
        try (Engine one = ApprovalEngines.builder(dir).build()) {
            one.events().subscribe(events::add);
            try (Session s = one.newSession("s1")) {
                Turn turn = s.send("x");
                assertThat(turn.paused()).isTrue();
                first = turn.pending();
                assertThat(first).extracting(PendingCall::id).containsExactly("c1");
                assertThat(first.getFirst().call()).isEqualTo(new ToolCall("c1", "fs_write", "{\"file\":\"a\",\"text\":\"x\"}"));
                assertThat(turn.reply().toolCalls()).hasSize(2);
                assertThat(s.pending()).isEqualTo(first);
                assertThatThrownBy(() -> s.send("another")).isInstanceOf(IllegalStateException.class)
                        .hasMessage("session s1 waits for decisions on c1; answer them and proceed, or cancel the "
                                + "session's paused turn, before sending a message");
            }
        }
        await(() -> events.stream().anyMatch(AgentEvent.DecisionNeeded.class::isInstance), "the bus got the decision");
        assertThat(ApprovalEngines.log(dir.resolve("tools.log"))).containsExactly("lead fs_read {\"file\":\"a\"}");

        try (Engine two = ApprovalEngines.builder(dir).build(); Session s = two.resume("s1")) {
            assertThat(s.paused()).isTrue();
            assertThat(s.pending()).isEqualTo(first);
            s.answer("c1", Answer.approve());
            Turn done = s.proceed();

            assertThat(done.paused()).isFalse();
            assertThat(done.text()).isEqualTo("done: wrote x | read a");
            assertThat(s.chat().messages()).extracting(Message::role)
                    .containsExactly(Role.SYSTEM, Role.USER, Role.ASSISTANT, Role.TOOL, Role.ASSISTANT);
            assertAnsweredOnceInOrder(s.chat().messages());
            assertThatThrownBy(s::proceed).isInstanceOf(IllegalStateException.class)
                    .hasMessage("session s1 waits for no decision; send a message instead");
        }
        assertThat(ApprovalEngines.log(dir.resolve("tools.log"))).containsExactly("lead fs_read {\"file\":\"a\"}",
                "lead fs_write {\"file\":\"a\",\"text\":\"x\"}");
    }

    @Test
    void anAnswerGivenBeforeARestartIsKeptAndADenialOrEditReachesTheModel() throws Exception {
        try (Engine one = ApprovalEngines.builder(dir).build(); Session s = one.newSession("s2")) {
            s.send("x");
            s.answer("c1", Answer.deny("not file a"));
        }
        try (Engine two = ApprovalEngines.builder(dir).build(); Session s = two.resume("s2")) {
            assertThat(s.proceed().text()).isEqualTo("done: tool 'fs_write' was not run: not file a | read a");
            Turn again = s.send("y");
            s.answer(again.pending().getFirst().id(), Answer.edit("{\"file\":\"a\",\"text\":\"edited\"}"));
            assertThat(s.proceed().text()).isEqualTo("done: wrote edited | read a");
            assertAnsweredOnceInOrder(s.chat().messages());
        }
    }

    @Test
    void aDelegatedChildsDecisionSurfacesAtTheTopAndItsChatResumesInAnotherEngine() throws Exception {
        try (Engine one = ApprovalEngines.builder(dir).build(); Session s = one.newSession("tree")) {
            Turn turn = s.send("delegate: z");
            assertThat(turn.pending()).singleElement().satisfies(p -> {
                assertThat(p.id()).isEqualTo("c2/0/c1");
                assertThat(p.agent()).isEqualTo("helper");
            });
        }
        assertThat(ApprovalEngines.log(dir.resolve("tools.log")))
                .containsExactlyInAnyOrder("lead fs_read {\"file\":\"a\"}", "helper fs_read {\"file\":\"a\"}");
        try (Engine two = ApprovalEngines.builder(dir).build(); Session s = two.resume("tree")) {
            s.answer("c2/0/c1", Answer.approve());
            Turn done = s.proceed();
            assertThat(done.text()).isEqualTo(
                    "done: read a | [{\"agent\":\"helper\",\"result\":\"done: wrote z | read a\"}]");
            assertAnsweredOnceInOrder(s.chat().messages());
        }
        assertThat(ApprovalEngines.log(dir.resolve("tools.log"))).containsExactlyInAnyOrder(
                "lead fs_read {\"file\":\"a\"}", "helper fs_read {\"file\":\"a\"}", "helper fs_write {\"file\":\"a\",\"text\":\"z\"}");
    }

    @Test
    void cancellingAPausedSessionAnswersEveryWaitingCall() {
        try (Engine one = ApprovalEngines.builder(dir).build(); Session s = one.newSession("c")) {
            s.send("x");
            s.cancel();

            assertThat(s.paused()).isFalse();
            assertThat(s.chat().get(3).toolResults()).containsExactly(
                    ToolResult.error("c1", "tool 'fs_write' was not run: the session was cancelled while the call "
                            + "waited for a decision"),
                    ToolResult.of("c2", "read a"));
            assertThat(s.send("y").paused()).isTrue();
        }
        try (Engine two = ApprovalEngines.builder(dir).build(); Session s = two.resume("c")) {
            assertThat(s.pending()).extracting(PendingCall::id).containsExactly("c3");
        }
    }

    @Test
    void alwaysForTheProjectIsWrittenToThePermissionFileAndHoldsInANewSession() throws Exception {
        try (Engine one = ApprovalEngines.builder(dir).build(); Session s = one.newSession("p1")) {
            s.send("x");
            s.answer("c1", Answer.approveAlways(Answer.Scope.PROJECT));
            s.proceed();
        }
        assertThat(Files.readString(dir.resolve("permissions.json"))).contains("\"fs_write\" : \"allow\"");
        try (Engine two = ApprovalEngines.builder(dir).build(); Session s = two.newSession("p2")) {
            Turn turn = s.send("y");
            assertThat(turn.paused()).isFalse();
            assertThat(turn.text()).isEqualTo("done: wrote y | read a");
        }
    }

    @Test
    void aDecisionThatTimesOutIsDeniedAndTheTurnGoesOn() throws Exception {
        try (Engine one = ApprovalEngines.builder(dir).decisionTimeout(Duration.ofMillis(200), Approvals.OnTimeout.DENY)
                .build(); Session s = one.newSession("t1")) {
            assertThat(s.send("x").paused()).isTrue();
            await(() -> !s.paused() && s.chat().size() == 5, "the timeout denied the call and the turn went on");
            assertThat(s.chat().get(4).text()).isEqualTo("done: tool 'fs_write' was not run: no decision within 200 ms | read a");
        }
    }

    @Test
    void aDecisionThatTimesOutCancelsTheTurnWhenSoConfiguredAlsoAfterARestart() throws Exception {
        try (Engine one = ApprovalEngines.builder(dir).build(); Session s = one.newSession("t2")) {
            assertThat(s.send("x").paused()).isTrue();
        }
        try (Engine two = ApprovalEngines.builder(dir).decisionTimeout(Duration.ofMillis(1), Approvals.OnTimeout.CANCEL)
                .build(); Session s = two.resume("t2")) {
            await(() -> !s.paused(), "the timeout cancelled the turn");
            assertThat(s.chat().get(3).toolResults().getFirst().text())
                    .isEqualTo("tool 'fs_write' was not run: no decision within 1 ms; the turn was cancelled");
            assertThat(s.chat().size()).isEqualTo(4);
        }
    }

    @Test
    void anAgentGivenAskUserAsksAndReadsTheReply() {
        try (Engine one = Engine.builder().config(ApprovalEngines.config()).sessionsDir(dir)
                .toolbox("files", ApprovalEngines.files(dir.resolve("log")))
                .completer("m", request -> {
                    Message last = request.last().orElseThrow();
                    return dev.shelly.modeladapter.ModelResponse.of(last.role() == Role.USER
                            ? new Message("m", Role.ASSISTANT, List.of(new ToolCall("q1", "ask_user",
                                    "{\"question\":\"Which file?\"}")))
                            : Message.of("m", Role.ASSISTANT, new dev.shelly.chats.Text("user said " + last.toolResults().getFirst().text())));
                })
                .askUser("lead").build(); Session s = one.newSession()) {
            Turn turn = s.send("write something");
            assertThat(turn.pending()).singleElement().satisfies(p -> {
                assertThat(p.kind()).isEqualTo(PendingCall.Kind.QUESTION);
                assertThat(p.reason()).isEqualTo("Which file?");
            });
            s.answer("q1", Answer.reply("b.txt"));
            assertThat(s.proceed().text()).isEqualTo("user said b.txt");
        }
    }

    @Test
    void policiesForUnknownAgentsAreRefusedWhenTheEngineIsBuilt() {
        assertThatThrownBy(() -> ApprovalEngines.builder(dir).toolPolicy("ghost", ToolPolicy.ALLOW_ALL).build())
                .hasMessage("Engine.Builder.toolPolicy names agent 'ghost', which is not configured; configured agents: "
                        + "helper, lead");
    }

    @Test
    void concurrentWritersOfThePermissionFileLoseNothing() throws Exception {
        Path file = dir.resolve("shared").resolve("permissions.json");
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            int writer = t;
            threads.add(Thread.ofVirtual().start(() -> {
                FilePermissionStore store = new FilePermissionStore(file);
                for (int i = 0; i < 10; i++) {
                    store.remember("agent" + writer, "tool" + i,
                            i % 2 == 0 ? ToolPolicy.Permission.ALLOW : ToolPolicy.Permission.DENY);
                }
            }));
        }
        for (Thread t : threads) {
            t.join();
        }
        FilePermissionStore store = new FilePermissionStore(file);
        for (int t = 0; t < 8; t++) {
            for (int i = 0; i < 10; i++) {
                assertThat(store.remembered("agent" + t, "tool" + i))
                        .contains(i % 2 == 0 ? ToolPolicy.Permission.ALLOW : ToolPolicy.Permission.DENY);
            }
        }
        try (var leftovers = Files.list(file.getParent())) {
            assertThat(leftovers.map(p -> p.getFileName().toString()))
                    .containsExactlyInAnyOrder("permissions.json", "permissions.json.lock");
        }
        Files.writeString(file, "{not json");
        assertThatThrownBy(() -> store.remembered("a", "b")).hasMessageStartingWith(file + " is not valid JSON (");
        assertThatThrownBy(() -> store.remember("a", "b", ToolPolicy.Permission.ALLOW))
                .hasMessageStartingWith(file + " is not valid JSON (");
        assertThat(Files.readString(file)).isEqualTo("{not json");
    }

    @Test
    void aSessionPausedInAKilledJvmIsAnsweredInThisOne() throws Exception {
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                System.getProperty("java.class.path"), "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                ApprovalPauseProcess.class.getName(), dir.toString(), "killed", "x");
        Process child = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String line;
        try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            line = out.readLine();
            assertThat(line).isEqualTo("PAUSED c1");
            child.destroyForcibly();
            assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
        } finally {
            child.destroyForcibly();
        }

        try (Engine here = ApprovalEngines.builder(dir).build(); Session s = here.resume("killed")) {
            assertThat(s.pending()).extracting(PendingCall::id).containsExactly("c1");
            s.answer("c1", Answer.approve());
            assertThat(s.proceed().text()).isEqualTo("done: wrote x | read a");
            assertAnsweredOnceInOrder(s.chat().messages());
        }
        assertThat(ApprovalEngines.log(dir.resolve("tools.log"))).containsExactly("lead fs_read {\"file\":\"a\"}",
                "lead fs_write {\"file\":\"a\",\"text\":\"x\"}");
    }

    private Path shelly(String yaml) throws Exception {
        Path shelly = Files.createDirectories(dir.resolve(".shelly"));
        Files.writeString(shelly.resolve("config.yaml"), yaml);
        return shelly;
    }

    @Test
    void theConfigurationSaysWhichToolsAskAndHowLongADecisionMayTake() throws Exception {
        Path shelly = shelly("""
                providers: [{ name: m, kind: openai, model: x, api_key: k }]
                approvals:
                  timeout: 10m
                  on_timeout: cancel
                entry_agent: lead
                agents:
                  - name: lead
                    toolboxes: [files]
                    approval:
                      ask: [fs_write*]
                      deny: [fs_read]
                      ask_user: true
                  - name: helper
                """);
        try (Engine engine = Engine.builder().dir(new ShellyDir(shelly)).completer("m", ApprovalEngines.model())
                .toolbox("files", ApprovalEngines.files(dir.resolve("tools.log"))).build();
                Session s = engine.newSession("cfg")) {
            Turn turn = s.send("x");
            assertThat(turn.pending()).extracting(PendingCall::id).containsExactly("c1");
            assertThat(s.chat().messages().get(2).toolCalls()).hasSize(2);
            assertThat(engine.agent("lead").toolboxes()).anySatisfy(b -> assertThat(b.contains("ask_user")).isTrue());
            assertThat(engine.agent("helper").toolboxes()).noneSatisfy(b -> assertThat(b.contains("ask_user")).isTrue());
            s.answer("c1", Answer.approveAlways(Answer.Scope.PROJECT));
            assertThat(s.proceed().text()).isEqualTo("done: wrote x | tool 'fs_read' was not run: the tool policy of "
                    + "agent 'lead' does not allow it");
        }
        assertThat(shelly.resolve("permissions.json")).exists();
    }

    @Test
    void aBadApprovalSettingIsReportedWithItsFileLineAndField() throws Exception {
        Path shelly = shelly("""
                providers: [{ name: m, kind: openai, model: x, api_key: k }]
                agents:
                  - name: lead
                    approval:
                      ask: [fs_write*, "fs write"]
                """);
        assertThatThrownBy(() -> Engine.builder().dir(new ShellyDir(shelly)).completer("m", ApprovalEngines.model()).build())
                .hasMessage(shelly.resolve("config.yaml") + ":5: agents[0].approval.ask[1]: tool pattern 'fs write' holds "
                        + "' ' at 2; a tool pattern holds letters, digits, '_', '-', '.', ':' and the wildcards '*' and '?'");
        Files.writeString(shelly.resolve("config.yaml"), """
                providers: [{ name: m, kind: openai, model: x, api_key: k }]
                approvals: { on_timeout: later }
                agents: [{ name: lead }]
                """);
        assertThatThrownBy(() -> Engine.builder().dir(new ShellyDir(shelly)).completer("m", ApprovalEngines.model()).build())
                .hasMessage(shelly.resolve("config.yaml") + ":2: approvals.on_timeout: expected deny or cancel, got 'later'");
    }
}
