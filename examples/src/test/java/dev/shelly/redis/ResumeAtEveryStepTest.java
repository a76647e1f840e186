package dev.shelly.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.agent.Answer;
import dev.shelly.agent.PendingCall;
import dev.shelly.chats.Message;
import dev.shelly.chats.Part;
import dev.shelly.chats.Role;
import dev.shelly.chats.Text;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import dev.shelly.engine.Engine;
import dev.shelly.engine.Session;
import dev.shelly.engine.Turn;
import dev.shelly.engine.config.AgentConfig;
import dev.shelly.engine.config.EngineConfig;
import dev.shelly.engine.config.ProviderConfig;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.storage.spi.FileSessionStore;
import dev.shelly.storage.spi.SessionStore;
import dev.shelly.storage.testing.CrashingStore;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolOutput;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

/**
 * A session turn cut short in front of each of its journal entries in turn (a process that dies
 * there), on the file store and on a real redis-server, and taken up by another engine: every
 * payment happens at most once (twice, with the same idempotency key, only when a person approved
 * running it again), every response the journal held is not asked for again, and the turn ends
 * as an uninterrupted one does, every call answered once in call order.
 */
@Timeout(300)
class ResumeAtEveryStepTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @TempDir
    Path dir;

    /** A lead that pays twice at once, delegates a payment, pays again; a helper that pays. */
    private static final class Scene {
        final List<String> requests = Collections.synchronizedList(new ArrayList<>());
        final List<String> effects = Collections.synchronizedList(new ArrayList<>());

        Completer model() {
            return request -> {
                boolean lead = request.messages().getFirst().text().startsWith("You are lead.");
                int step = 0;
                for (Message m : request.messages()) {
                    step = m.role() == Role.USER && !m.text().isEmpty() ? 0 : m.role() == Role.ASSISTANT ? step + 1 : step;
                }
                requests.add((lead ? "lead/" : "helper/") + step);
                List<Part> parts = new ArrayList<>();
                if (lead && step == 0) {
                    parts.add(new ToolCall("L1", "pay", "{\"amount\":1}"));
                    parts.add(new ToolCall("L2", "pay", "{\"amount\":2}"));
                } else if (lead && step == 1) {
                    parts.add(new ToolCall("L3", "delegate", "{\"tasks\":[{\"agent\":\"helper\",\"task\":\"pay 3\"}]}"));
                } else if (lead && step == 2) {
                    parts.add(new ToolCall("L4", "pay", "{\"amount\":4}"));
                } else if (!lead && step == 0) {
                    parts.add(new ToolCall("H1", "pay", "{\"amount\":3}"));
                } else {
                    parts.add(new Text(lead ? "done" : "helper paid"));
                }
                return ModelResponse.of(new Message("model", Role.ASSISTANT, parts));
            };
        }

        Engine engine(SessionStore store) {
            Tool pay = Tool.of("pay", "Pays", "{\"type\":\"object\"}", (input, ctx) -> {
                effects.add("pay " + input.path("amount").asInt() + " " + ctx.idempotencyKey());
                return ToolOutput.text("paid " + input.path("amount").asInt());
            });
            EngineConfig config = EngineConfig.builder()
                    .provider(ProviderConfig.builder("m", "openai", "x").apiKey("k").build())
                    .agent(AgentConfig.builder("lead").description("Leads").toolboxes("ops").build())
                    .agent(AgentConfig.builder("helper").description("Helps").toolboxes("ops").build())
                    .entryAgent("lead").build();
            return Engine.builder().config(config).completer("m", model()).toolbox("ops", ToolBox.of(pay))
                    .sessionStore(store).sessionWait(Duration.ofSeconds(30)).build();
        }

        List<String> paid(int amount) {
            List<String> found = new ArrayList<>();
            synchronized (effects) {
                for (String e : effects) {
                    if (e.startsWith("pay " + amount + " ")) {
                        found.add(e);
                    }
                }
            }
            return found;
        }
    }

    @Test
    void onFiles() {
        everyStep("files", place -> FileSessionStore.in(dir.resolve(place)));
    }

    @Test
    void onRedis() {
        String name = SharedRedis.freshName().substring(2, 14);
        everyStep("redis", place -> SharedRedis.backends().sessionStore(name + "-" + place));
    }

    private interface Stores {
        SessionStore on(String place);
    }

    private void everyStep(String kind, Stores stores) {
        Scene reference = new Scene();
        CrashingStore counting = new CrashingStore(stores.on("ref"));
        try (Engine engine = reference.engine(counting); Session s = engine.newSession("s")) {
            assertThat(s.send("go").text()).isEqualTo("done");
        }
        int entries = counting.written().size();
        assertThat(entries).as("the turn's journal").isGreaterThan(15);
        for (int k = 1; k <= entries; k++) {
            for (boolean approve : new boolean[] {false, true}) {
                String at = kind + ", dies before entry " + k + (approve ? ", cut calls approved" : "");
                check(at, stores.on("k" + k + (approve ? "a" : "d")), k, approve, reference);
            }
        }
    }

    private void check(String at, SessionStore below, int k, boolean approve, Scene reference) {
        Scene scene = new Scene();
        CrashingStore dying = new CrashingStore(below).crashBefore(k);
        try (Engine engine = scene.engine(dying); Session s = engine.newSession("s")) {
            try {
                s.send("go");
            } catch (RuntimeException expected) {
                // the process died
            }
        }
        assertThat(dying.crashed()).as(at).isTrue();
        Map<String, Integer> recorded = new HashMap<>();
        for (String entry : dying.written()) {
            if (entry.startsWith("{\"type\":\"model\"")) {
                recorded.merge(JSON.readTree(entry).path("agent").asString(), 1, Integer::sum);
            }
        }
        List<String> before = List.copyOf(scene.requests);
        List<String> approved = new ArrayList<>();
        List<Message> chat;
        try (Engine engine = scene.engine(below); Session s = engine.resume("s")) {
            if (dying.written().isEmpty()) {
                // Died before the turn was on record: it never began, and nothing of it happened.
                assertThat(s.paused()).as(at).isFalse();
                assertThat(scene.effects).as(at).isEmpty();
                assertThat(s.send("go").text()).as(at).isEqualTo("done");
                return;
            }
            assertThat(s.paused()).as(at).isTrue();
            for (PendingCall p : s.pending()) {
                assertThat(p.kind()).as(at).isEqualTo(PendingCall.Kind.INTERRUPTED);
                if (p.call() != null) {
                    s.answer(p.id(), approve ? Answer.approve() : Answer.deny("unknown"));
                    if (approve) {
                        approved.add(p.call().arguments());
                    }
                }
            }
            Turn turn = s.proceed();
            assertThat(turn.text()).as(at).isEqualTo("done");
            chat = s.chat().messages();
        }
        for (int amount = 1; amount <= 4; amount++) {
            List<String> paid = scene.paid(amount);
            boolean again = approved.contains("{\"amount\":" + amount + "}");
            assertThat(paid).as("%s: pay %d", at, amount).hasSizeBetween(1, again ? 2 : 1);
            if (paid.size() == 2) {
                assertThat(paid.get(1)).as("%s: the key of pay %d's first attempt", at, amount).isEqualTo(paid.get(0));
            }
        }
        List<String> after = scene.requests.subList(before.size(), scene.requests.size());
        for (String agent : List.of("lead", "helper")) {
            long lost = before.stream().filter(r -> r.startsWith(agent + "/")).count()
                    - recorded.getOrDefault(agent, 0);
            long again = after.stream().filter(r -> r.startsWith(agent + "/")).count();
            long all = reference.requests.stream().filter(r -> r.startsWith(agent + "/")).count();
            assertThat(again).as("%s: %s's recorded responses are not asked for again", at, agent)
                    .isEqualTo(all - recorded.getOrDefault(agent, 0));
            assertThat(lost).as("%s: %s asked at most once without a record", at, agent).isBetween(0L, 1L);
        }
        List<String> calls = new ArrayList<>();
        List<String> answers = new ArrayList<>();
        for (int i = 0; i < chat.size(); i++) {
            List<ToolCall> made = chat.get(i).toolCalls();
            made.forEach(c -> calls.add(c.id()));
            chat.get(i).toolResults().forEach(r -> answers.add(r.toolCallId()));
            if (!made.isEmpty()) {
                assertThat(chat.get(i + 1).toolResults()).extracting(ToolResult::toolCallId).as(at)
                        .containsExactlyElementsOf(made.stream().map(ToolCall::id).toList());
            }
        }
        assertThat(answers).as(at).containsExactlyElementsOf(calls);
        try (SessionStore.Lease lease = below.open("s", Duration.ofSeconds(30))) {
            assertThat(lease.journal()).as(at).isEmpty();
        }
    }
}
