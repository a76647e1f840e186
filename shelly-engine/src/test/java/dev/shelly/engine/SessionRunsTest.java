package dev.shelly.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.agent.ToolPolicy;
import dev.shelly.chats.Message;
import dev.shelly.chats.Part;
import dev.shelly.chats.Role;
import dev.shelly.chats.Text;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import dev.shelly.engine.Session.RunInfo;
import dev.shelly.engine.config.AgentConfig;
import dev.shelly.engine.config.EngineConfig;
import dev.shelly.engine.config.ProviderConfig;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.Usage;
import dev.shelly.storage.spi.FileSessionStore;
import dev.shelly.storage.testing.CrashingStore;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolOutput;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Run control in a service: the runs of a turn as a tree, and the cancelling of one run (and
 * those below it) while the others go on.
 */
@Timeout(60)
class SessionRunsTest {
    @TempDir
    Path dir;

    /** Each helper's run id, by its task; the tasks in {@code stuck} block until interrupted. */
    private final Map<String, String> helperRuns = new ConcurrentHashMap<>();
    private final CountDownLatch release = new CountDownLatch(1);
    private CountDownLatch inTool;

    /**
     * A lead that delegates {@code t0..t(n-1)} at once (on a user message {@code fan n}), or asks
     * about {@code ship} (on any other), then answers with the results it read; a helper that calls
     * {@code work} with its task and answers {@code done <task>}.
     */
    private static Completer model() {
        return request -> {
            List<Message> messages = request.messages();
            boolean lead = messages.getFirst().text().contains("You are lead.");
            Message last = messages.getLast();
            List<Part> parts = new ArrayList<>();
            if (lead && last.role() == Role.USER && last.text().startsWith("fan ")) {
                int n = Integer.parseInt(last.text().substring(4));
                StringBuilder tasks = new StringBuilder();
                for (int i = 0; i < n; i++) {
                    tasks.append(i == 0 ? "" : ",").append("{\"agent\":\"helper\",\"task\":\"t").append(i).append("\"}");
                }
                parts.add(new ToolCall("c1", "delegate", "{\"tasks\":[" + tasks + "]}"));
            } else if (lead && last.role() == Role.USER) {
                parts.add(new ToolCall("c1", "ship", "{}"));
            } else if (last.role() == Role.USER) {
                parts.add(new ToolCall("h1", "work", "{\"task\":\"" + last.text() + "\"}"));
            } else {
                List<String> results = new ArrayList<>();
                for (ToolResult r : last.toolResults()) {
                    results.add(r.text());
                }
                parts.add(new Text((lead ? "lead read: " : "done ") + String.join(" | ", results)));
            }
            return ModelResponse.of(new Message("model", Role.ASSISTANT, parts)).withUsage(Usage.of(10, 2));
        };
    }

    private ToolBox tools(List<String> stuck) {
        Tool work = Tool.of("work", "Works", "{\"type\":\"object\"}", (input, ctx) -> {
            String task = input.path("task").asString();
            helperRuns.put(task, ctx.runId());
            inTool.countDown();
            if (stuck.contains(task)) {
                new CountDownLatch(1).await();
            }
            release.await();
            return ToolOutput.text("worked " + task);
        });
        Tool ship = Tool.of("ship", "Ships", "{\"type\":\"object\"}", (input, ctx) -> ToolOutput.text("shipped"));
        return ToolBox.of(work, ship);
    }

    private Engine engine(CrashingStore store, List<String> stuck) {
        EngineConfig config = EngineConfig.builder()
                .provider(ProviderConfig.builder("m", "openai", "x").apiKey("k").build())
                .agent(AgentConfig.builder("lead").description("Leads").instructions("You are lead.").toolboxes("ops")
                        .build())
                .agent(AgentConfig.builder("helper").description("Helps").instructions("You are helper.")
                        .toolboxes("ops").build())
                .entryAgent("lead")
                .build();
        return Engine.builder().config(config).completer("m", model()).toolbox("ops", tools(stuck))
                .toolPolicy("lead", ToolPolicy.builder().ask("ship").build())
                .sessionStore(store).sessionWait(Duration.ofSeconds(30)).build();
    }

    private static RunInfo run(List<RunInfo> runs, String id) {
        return runs.stream().filter(r -> r.runId().equals(id)).findFirst()
                .orElseThrow(() -> new AssertionError("no run " + id + " in " + runs));
    }

    @RepeatedTest(3)
    void runsFormATreeAndCancellingOneChildLetsItsSiblingsAndTheParentFinish() throws Exception {
        inTool = new CountDownLatch(3);
        CrashingStore store = new CrashingStore(FileSessionStore.in(dir));
        Instant before = Instant.now();
        try (Engine engine = engine(store, List.of("t1")); Session session = engine.newSession("fan")) {
            Future<Turn> turn = session.submit("fan 3");
            assertThat(inTool.await(20, TimeUnit.SECONDS)).isTrue();

            List<RunInfo> running = session.runs();
            assertThat(running).hasSize(4).allMatch(r -> r.state() == RunInfo.State.RUNNING)
                    .allMatch(r -> !r.startedAt().isBefore(before));
            RunInfo lead = running.getFirst();
            assertThat(lead.agent()).isEqualTo("lead");
            assertThat(lead.parentRunId()).isNull();
            assertThat(running.subList(1, 4)).allMatch(r -> r.agent().equals("helper"))
                    .allMatch(r -> lead.runId().equals(r.parentRunId()))
                    .extracting(RunInfo::runId).containsExactlyInAnyOrderElementsOf(helperRuns.values());
            assertThat(lead.usage()).as("its first model call, and each child's").isEqualTo(Usage.of(40, 8));

            String stuck = helperRuns.get("t1");
            assertThat(session.cancel(stuck)).isTrue();
            release.countDown();
            Turn done = turn.get(20, TimeUnit.SECONDS);

            assertThat(done.text()).isEqualTo("lead read: [{\"agent\":\"helper\",\"result\":\"done worked t0\"},"
                    + "{\"agent\":\"helper\",\"error\":\"agent 'helper' was cancelled\"},"
                    + "{\"agent\":\"helper\",\"result\":\"done worked t2\"}]");
            List<RunInfo> ended = session.runs();
            assertThat(run(ended, lead.runId()).state()).isEqualTo(RunInfo.State.FINISHED);
            assertThat(run(ended, stuck).state()).isEqualTo(RunInfo.State.CANCELLED);
            assertThat(run(ended, helperRuns.get("t0")).state()).isEqualTo(RunInfo.State.FINISHED);
            assertThat(run(ended, helperRuns.get("t2")).state()).isEqualTo(RunInfo.State.FINISHED);
            assertThat(run(ended, lead.runId()).usage())
                    .as("two calls of its own, three of the children's and two more of those that finished")
                    .isEqualTo(Usage.of(70, 14));
            assertThat(store.written()).as("the journal records the cancel")
                    .contains("{\"type\":\"cancelled\",\"run\":\"" + stuck + "\"}");
            assertThat(session.cancel(stuck)).as("it ended").isFalse();
            assertThatThrownBy(() -> session.cancel("nope")).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("session fan has no run 'nope'; the runs of its turn: " + lead.runId() + ", ");
        }
    }

    @Test
    void aChildCancelledBeforeACrashStaysCancelledWhenTheTurnIsTakenUpAndItsSiblingsGoOn() throws Exception {
        inTool = new CountDownLatch(3);
        CrashingStore store = new CrashingStore(FileSessionStore.in(dir));
        String stuck;
        try (Engine engine = engine(store, List.of("t1")); Session session = engine.newSession("crash")) {
            Future<Turn> turn = session.submit("fan 3");
            assertThat(inTool.await(20, TimeUnit.SECONDS)).isTrue();
            stuck = helperRuns.get("t1");
            assertThat(session.cancel(stuck)).isTrue();
            store.crash();
            release.countDown();
            assertThatThrownBy(() -> turn.get(20, TimeUnit.SECONDS)).as("the process died under it");
        }
        assertThat(store.written()).contains("{\"type\":\"cancelled\",\"run\":\"" + stuck + "\"}");

        try (Engine engine = engine(new CrashingStore(FileSessionStore.in(dir)), List.of());
                Session session = engine.resume("crash")) {
            assertThat(session.paused()).isTrue();
            for (var p : session.pending()) {
                if (p.call() != null) {
                    session.answer(p.id(), dev.shelly.agent.Answer.deny("unknown"));
                }
            }
            Turn done = session.proceed();

            assertThat(done.text()).contains("{\"agent\":\"helper\",\"error\":\"agent 'helper' was cancelled\"}")
                    .doesNotContain("cancelled because");
            assertThat(run(session.runs(), stuck).state()).isEqualTo(RunInfo.State.CANCELLED);
        }
    }

    @Test
    void cancellingTheEntryAgentsRunCancelsTheTurnAndEveryRunBelowIt() throws Exception {
        inTool = new CountDownLatch(2);
        CrashingStore store = new CrashingStore(FileSessionStore.in(dir));
        try (Engine engine = engine(store, List.of("t0", "t1")); Session session = engine.newSession("top")) {
            Future<Turn> turn = session.submit("fan 2");
            assertThat(inTool.await(20, TimeUnit.SECONDS)).isTrue();
            String lead = session.runs().getFirst().runId();

            assertThat(session.cancel(lead)).isTrue();

            assertThatThrownBy(() -> turn.get(20, TimeUnit.SECONDS)).hasCauseInstanceOf(CancellationException.class);
            assertThat(session.runs()).hasSize(3).allMatch(r -> r.state() == RunInfo.State.CANCELLED);
            assertThat(session.chat().last().orElseThrow().toolResults())
                    .containsExactly(ToolResult.error("c1", "tool 'delegate' was cancelled before it finished"));
            assertThat(session.send("fan 0").text()).as("the next turn runs").startsWith("lead read: ");
        }
    }

    @Test
    void cancellingARunOfAPausedTurnEndsThePausedTurn() {
        inTool = new CountDownLatch(0);
        try (Engine engine = engine(new CrashingStore(FileSessionStore.in(dir)), List.of());
                Session session = engine.newSession("paused")) {
            Turn turn = session.send("ship it");
            assertThat(turn.paused()).isTrue();
            RunInfo lead = session.runs().getFirst();
            assertThat(lead.state()).isEqualTo(RunInfo.State.PAUSED);

            assertThat(session.cancel(lead.runId())).isTrue();

            assertThat(session.paused()).isFalse();
            assertThat(session.chat().last().orElseThrow().toolResults()).containsExactly(ToolResult.error("c1",
                    "tool 'ship' was not run: run " + lead.runId() + " was cancelled while the turn waited for a decision"));
        }
    }
}
