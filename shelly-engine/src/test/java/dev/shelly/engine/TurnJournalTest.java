package dev.shelly.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.agent.Agent;
import dev.shelly.agent.RunContext;
import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.chats.ToolCall;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.storage.testing.CrashingStore;
import dev.shelly.storage.spi.FileSessionStore;
import dev.shelly.storage.spi.SessionStore;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolOutput;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** What the journal of a session turn records, in which order, and what a run outside a session pays for it. */
@Timeout(60)
class TurnJournalTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @TempDir
    Path dir;

    private static List<JsonNode> parsed(List<String> entries) {
        List<JsonNode> nodes = new ArrayList<>();
        for (String e : entries) {
            nodes.add(JSON.readTree(e));
        }
        return nodes;
    }

    private static JsonNode find(List<JsonNode> entries, String type, String call) {
        for (JsonNode n : entries) {
            if (n.path("type").asString().equals(type) && (call == null || n.path("call").asString().equals(call))) {
                return n;
            }
        }
        throw new AssertionError("no " + type + " entry for " + call + " in " + entries);
    }

    private static int indexOf(List<String> log, String line) {
        int at = log.indexOf(line);
        assertThat(at).as("%s in %s", line, log).isNotNegative();
        return at;
    }

    @Test
    void everyStepIsRecordedBeforeTheTurnGoesOnFromItAndTheSaveCompactsTheJournal() {
        JournalEngines scene = new JournalEngines();
        CrashingStore store = new CrashingStore(FileSessionStore.in(dir));
        store.afterEachEntry(entry -> {
            JsonNode last = JSON.readTree(entry);
            scene.log.add("entry " + last.path("type").asString()
                    + (last.has("call") ? " " + last.path("call").asString() : ""));
        });
        try (Engine engine = scene.builder(store).build(); Session s = engine.newSession("j1")) {
            assertThat(s.send("go").text()).isEqualTo("done");
        }
        List<JsonNode> entries = parsed(store.written());
        assertThat(entries.getFirst().path("type").asString()).isEqualTo("turn");
        assertThat(entries.getFirst().path("input").get(0).path("parts").get(0).path("text").asString()).isEqualTo("go");
        assertThat(entries.getLast().path("type").asString()).isEqualTo("end");
        assertThat(entries).extracting(n -> n.path("type").asString()).filteredOn("model"::equals).hasSize(6);
        assertThat(entries).extracting(n -> n.path("type").asString()).filteredOn("started"::equals).hasSize(5);
        assertThat(entries).extracting(n -> n.path("type").asString()).filteredOn("finished"::equals).hasSize(5);

        JsonNode lead = find(entries, "model", null);
        String leadRun = lead.path("run").asString();
        assertThat(lead.path("agent").asString()).isEqualTo("lead");
        assertThat(lead.path("message").path("parts")).hasSize(2);
        JsonNode pay = find(entries, "started", "L1b");
        assertThat(pay.path("run").asString()).isEqualTo(leadRun);
        assertThat(pay.path("tool").asString()).isEqualTo("pay");
        assertThat(pay.path("idempotent").asBoolean()).isFalse();
        assertThat(pay.path("key").asString()).isEqualTo("j1/" + leadRun + "/L1b");
        assertThat(find(entries, "started", "L1a").path("idempotent").asBoolean()).isTrue();
        assertThat(find(entries, "finished", "L1b").path("result").path("content").get(0).path("text").asString())
                .isEqualTo("paid 1");
        JsonNode child = find(entries, "child", null);
        assertThat(child.path("parent").asString()).isEqualTo(leadRun);
        assertThat(child.path("call").asString()).isEqualTo("L2");
        assertThat(child.path("agent").asString()).isEqualTo("helper");
        assertThat(child.path("path").asString()).isEqualTo("L2/0");
        String helperRun = child.path("run").asString();
        assertThat(find(entries, "started", "H1").path("run").asString()).isEqualTo(helperRun);
        assertThat(find(entries, "started", "H1").path("key").asString()).isEqualTo("j1/" + helperRun + "/H1");

        // Durable before the next effect: each call is on record as started before its handler
        // runs and as finished before the model is asked again; each response before the next step.
        List<String> log = List.copyOf(scene.log);
        for (String[] call : new String[][] {{"L1a", "look a"}, {"L1b", "pay 1"}, {"H1", "pay 2"}, {"L3", "pay 3"}}) {
            int effect = -1;
            for (int i = 0; i < log.size(); i++) {
                if (log.get(i).startsWith("effect " + call[1] + " ")) {
                    effect = i;
                }
            }
            assertThat(indexOf(log, "entry started " + call[0])).as(call[0]).isLessThan(effect);
            assertThat(indexOf(log, "entry finished " + call[0])).as(call[0]).isGreaterThan(effect);
        }
        assertThat(indexOf(log, "entry finished L1b")).isLessThan(indexOf(log, "model lead/1"));
        assertThat(indexOf(log, "entry child L2")).isLessThan(indexOf(log, "model helper/0"));
        assertThat(indexOf(log, "entry finished H1")).isLessThan(indexOf(log, "model helper/1"));
        assertThat(indexOf(log, "entry finished L2")).isLessThan(indexOf(log, "model lead/2"));
        assertThat(indexOf(log, "entry started L3")).isGreaterThan(indexOf(log, "model lead/2"));
        for (String step : List.of("lead/0", "lead/1", "helper/0", "helper/1", "lead/2")) {
            int asked = indexOf(log, "model " + step);
            int recorded = -1;
            for (int i = asked + 1; i < log.size() && recorded < 0; i++) {
                if (log.get(i).equals("entry model")) {
                    recorded = i;
                }
            }
            assertThat(recorded).as("the response to %s is recorded", step).isPositive();
            for (int i = asked + 1; i < recorded; i++) {
                assertThat(log.get(i)).as("nothing happens between %s and its record", step).doesNotStartWith("effect");
            }
        }
        try (SessionStore.Lease lease = FileSessionStore.in(dir).open("j1", Duration.ZERO)) {
            assertThat(lease.journal()).as("compacted into the record by the turn's save").isEmpty();
            assertThat(lease.load().orElseThrow().messages()).extracting(Message::role).containsExactly(Role.SYSTEM,
                    Role.USER, Role.ASSISTANT, Role.TOOL, Role.ASSISTANT, Role.TOOL, Role.ASSISTANT, Role.TOOL,
                    Role.ASSISTANT);
        }
    }

    @Test
    @SuppressWarnings("try") // the resource is held for the block, not used in it
    void aNewSessionIsSavedAtOnceSoAnotherEngineResumesItBeforeItsFirstTurn() {
        JournalEngines scene = new JournalEngines();
        try (Engine one = scene.builder(FileSessionStore.in(dir)).build();
                Engine two = scene.builder(FileSessionStore.in(dir)).build()) {
            try (Session s = one.newSession("fresh")) {
                assertThat(two.savedSessions()).containsExactly("fresh");
            }
            try (Session s = two.resume("fresh")) {
                assertThat(s.chat().isEmpty()).isTrue();
                assertThat(s.paused()).isFalse();
                assertThat(s.send("go").text()).isEqualTo("done");
            }
        }
    }

    @Test
    void aRunOutsideASessionHasNoJournalLinkAndItsKeysNameTheRunAndTheCall() {
        AtomicReference<String> key = new AtomicReference<>();
        AtomicReference<List<?>> links = new AtomicReference<>();
        Tool probe = Tool.of("probe", "Probes", "{\"type\":\"object\"}", (input, ctx) -> {
            key.set(ctx.idempotencyKey());
            links.set(RunContext.from(ctx).orElseThrow().interceptors());
            return ToolOutput.text("ok");
        });
        List<Message> seen = new ArrayList<>();
        Agent agent = Agent.builder("solo").toolboxes(ToolBox.of(probe)).completer(request -> {
            seen.add(request.messages().getLast());
            return ModelResponse.of(request.messages().getLast().role() == Role.USER
                    ? new Message("solo", Role.ASSISTANT, List.of(new ToolCall("c7", "probe", "{}")))
                    : Message.text("solo", Role.ASSISTANT, "ok"));
        }).build();
        RunContext scope = RunContext.root();
        agent.run("probe it", scope);
        assertThat(links.get()).as("no link of any kind, the journal's included").isEmpty();
        assertThat(key.get()).matches("run_[0-9a-v]{13}_[0-9a-v]+/c7");
    }
}
