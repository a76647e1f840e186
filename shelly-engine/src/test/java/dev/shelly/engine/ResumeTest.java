package dev.shelly.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.agent.Answer;
import dev.shelly.agent.PendingCall;
import dev.shelly.chats.Message;
import dev.shelly.chats.ToolResult;
import dev.shelly.storage.spi.FileSessionStore;
import dev.shelly.storage.spi.SessionStore;
import dev.shelly.storage.testing.CrashingStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A session turn that a crash cut short, taken up in another engine: what it shows, what runs
 * again and what does not, and the chat it leaves.
 */
@Timeout(60)
class ResumeTest {
    static final String UNKNOWN_PAY_1 = "the process stopped while tool 'pay' was running (call L1b); whether it "
            + "took effect is unknown";

    @TempDir
    Path dir;

    /** Runs the turn {@code go} in session {@code s} until the store stops in front of an entry. */
    private void crash(JournalEngines scene, Predicate<String> before) {
        CrashingStore store = new CrashingStore(FileSessionStore.in(dir)).crashBefore(before);
        try (Engine engine = scene.builder(store).build(); Session s = engine.newSession("s")) {
            assertThatThrownBy(() -> s.send("go")).isNotNull();
        }
        assertThat(store.crashed()).as("the store stopped").isTrue();
    }

    private static Predicate<String> entry(String type, String call) {
        return e -> e.startsWith("{\"type\":\"" + type + "\"") && (call == null || e.contains("\"call\":\"" + call + "\""));
    }

    private static String resultOf(List<Message> chat, String call) {
        for (Message m : chat) {
            for (ToolResult r : m.toolResults()) {
                if (r.toolCallId().equals(call)) {
                    return r.text();
                }
            }
        }
        return null;
    }

    /** The chat of the uninterrupted turn. */
    private List<Message> reference() {
        JournalEngines scene = new JournalEngines();
        try (Engine engine = scene.builder(FileSessionStore.in(dir.resolve("ref"))).build();
                Session s = engine.newSession("s")) {
            s.send("go");
            return s.chat().messages();
        }
    }

    @Test
    void aNonIdempotentCallCutShortIsShownAndTheModelReadsItsOutcomeIsUnknown() {
        JournalEngines scene = new JournalEngines();
        crash(scene, entry("finished", "L1b"));
        assertThat(scene.effects("pay 1")).hasSize(1);
        List<String> before = List.copyOf(scene.requests);
        try (Engine engine = scene.builder(FileSessionStore.in(dir)).build(); Session s = engine.resume("s")) {
            assertThat(s.paused()).isTrue();
            List<PendingCall> pending = s.pending();
            assertThat(pending).hasSize(1);
            PendingCall cut = pending.getFirst();
            assertThat(cut.id()).isEqualTo("L1b");
            assertThat(cut.kind()).isEqualTo(PendingCall.Kind.INTERRUPTED);
            assertThat(cut.agent()).isEqualTo("lead");
            assertThat(cut.call().name()).isEqualTo("pay");
            assertThat(cut.call().arguments()).isEqualTo("{\"amount\":1}");
            assertThat(cut.reason()).isEqualTo(UNKNOWN_PAY_1);
            assertThatThrownBy(() -> s.send("again")).isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith("session s waits for decisions on L1b;");

            Turn turn = s.proceed();
            assertThat(turn.text()).isEqualTo("done");
            assertThat(s.paused()).isFalse();
            assertThat(resultOf(s.chat().messages(), "L1b")).isEqualTo(UNKNOWN_PAY_1);
            EngineApprovalsTest.assertAnsweredOnceInOrder(s.chat().messages());
        }
        assertThat(scene.effects("pay 1")).as("never run again").hasSize(1);
        assertThat(scene.effects("pay 2")).hasSize(1);
        assertThat(scene.effects("pay 3")).hasSize(1);
        List<String> after = scene.requests.subList(before.size(), scene.requests.size());
        assertThat(after).as("the recorded response of lead/0 is not asked for again")
                .containsExactly("lead/1", "helper/0", "helper/1", "lead/2", "lead/3");
    }

    @Test
    void theChatAfterResumeIsTheOneAnUninterruptedTurnBuildsButForTheUnknownOutcome() {
        List<Message> reference = reference();
        JournalEngines scene = new JournalEngines();
        crash(scene, entry("finished", "L1b"));
        try (Engine engine = scene.builder(FileSessionStore.in(dir)).build(); Session s = engine.resume("s")) {
            s.proceed();
            List<Message> chat = s.chat().messages();
            assertThat(chat).hasSameSizeAs(reference);
            for (int i = 0; i < chat.size(); i++) {
                if (resultOf(List.of(chat.get(i)), "L1b") == null) {
                    assertThat(chat.get(i)).as("message %d", i).isEqualTo(reference.get(i));
                } else {
                    assertThat(chat.get(i).toolResults()).extracting(ToolResult::toolCallId).containsExactly("L1a", "L1b");
                    assertThat(chat.get(i).toolResults().getFirst()).isEqualTo(reference.get(i).toolResults().getFirst());
                }
            }
        }
    }

    @Test
    void anApprovedCallCutShortRunsAgainWithTheSameIdempotencyKey() {
        JournalEngines scene = new JournalEngines();
        crash(scene, entry("finished", "H1"));
        assertThat(scene.effects("pay 2")).hasSize(1);
        try (Engine engine = scene.builder(FileSessionStore.in(dir)).build(); Session s = engine.resume("s")) {
            assertThat(s.pending()).extracting(PendingCall::id).containsExactly("L2/0/H1");
            assertThat(s.pending().getFirst().agent()).isEqualTo("helper");
            s.answer("L2/0/H1", Answer.approve());
            assertThat(s.pending()).as("an answered call is not listed").isEmpty();
            assertThat(s.paused()).isTrue();
            assertThatThrownBy(() -> s.answer("L2/0/H1", Answer.deny("no"))).isInstanceOf(IllegalStateException.class);
            assertThat(s.proceed().text()).isEqualTo("done");
        }
        List<String> twice = scene.effects("pay 2");
        assertThat(twice).as("run again, as approved").hasSize(2);
        assertThat(twice.get(1)).as("with the key of its first attempt").isEqualTo(twice.get(0));
        assertThat(twice.get(0)).matches("pay 2 s/run_[0-9a-v_]+/H1");
        assertThat(scene.effects("pay 1")).hasSize(1);
        assertThat(scene.requests.stream().filter("helper/0"::equals)).as("the child's recorded reply is reused")
                .hasSize(1);
    }

    @Test
    void anIdempotentCallCutShortRunsAgainByItselfAndADeniedOneIsReportedUnknown() {
        JournalEngines scene = new JournalEngines();
        // Both calls of the first step have run; the process dies before either is recorded as finished.
        crash(scene, e -> e.startsWith("{\"type\":\"finished\"") && bothRan(scene));
        assertThat(scene.effects("look a")).hasSize(1);
        try (Engine engine = scene.builder(FileSessionStore.in(dir)).build(); Session s = engine.resume("s")) {
            assertThat(s.pending()).extracting(PendingCall::id).as("the idempotent look is not asked about")
                    .containsExactly("L1b");
            s.answer("L1b", Answer.deny("do not pay twice"));
            assertThat(s.proceed().text()).isEqualTo("done");
            assertThat(resultOf(s.chat().messages(), "L1b")).isEqualTo(UNKNOWN_PAY_1);
            assertThat(resultOf(s.chat().messages(), "L1a")).isEqualTo("saw a");
        }
        assertThat(scene.effects("pay 1")).hasSize(1);
        List<String> looks = scene.effects("look a");
        assertThat(looks).as("run again by itself, with the same key").hasSize(2);
        assertThat(looks.get(1)).isEqualTo(looks.get(0));
    }

    /** Waits (a little) until both calls of the first step ran. */
    private static boolean bothRan(JournalEngines scene) {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (scene.effects("look a").isEmpty() || scene.effects("pay 1").isEmpty()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the first step's calls did not both run");
            }
            Thread.onSpinWait();
        }
        return true;
    }

    @Test
    void aTurnCutShortWithNoCallRunningIsOneEntryAndGoesOnFromItsLastRecordedStep() {
        JournalEngines scene = new JournalEngines();
        crash(scene, entry("model", null).and(e -> e.contains("\"agent\":\"helper\"")));
        int asked = scene.requests.size();
        try (Engine engine = scene.builder(FileSessionStore.in(dir)).build(); Session s = engine.resume("s")) {
            List<PendingCall> pending = s.pending();
            assertThat(pending).hasSize(1);
            assertThat(pending.getFirst().id()).isEqualTo("turn");
            assertThat(pending.getFirst().call()).isNull();
            assertThat(pending.getFirst().kind()).isEqualTo(PendingCall.Kind.INTERRUPTED);
            assertThat(s.proceed().text()).isEqualTo("done");
            EngineApprovalsTest.assertAnsweredOnceInOrder(s.chat().messages());
        }
        assertThat(scene.requests.subList(asked, scene.requests.size()))
                .as("helper/0's reply was never recorded, so it is asked for again; nothing before it")
                .containsExactly("helper/0", "helper/1", "lead/2", "lead/3");
        assertThat(scene.effects("pay 1")).hasSize(1);
    }

    @Test
    void theTurnsEntryAnsweredDenyEndsTheTurnWhereItsJournalEnds() {
        JournalEngines scene = new JournalEngines();
        crash(scene, entry("model", null).and(e -> e.contains("\"agent\":\"helper\"")));
        int asked = scene.requests.size();
        try (Engine engine = scene.builder(FileSessionStore.in(dir)).build(); Session s = engine.resume("s")) {
            assertThatThrownBy(() -> s.answer("turn", Answer.edit("{}"))).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("call 'turn' of session s was interrupted by a crash: approve runs it again, deny "
                            + "reports its outcome as unknown; other answers do not fit");
            s.answer("turn", Answer.deny("start over"));
            Turn turn = s.proceed();
            assertThat(s.paused()).isFalse();
            List<Message> chat = s.chat().messages();
            assertThat(turn.reply()).isEqualTo(chat.getLast());
            assertThat(resultOf(chat, "L2")).as("the delegate call ends with its child, which took no live step")
                    .isNotNull();
            EngineApprovalsTest.assertAnsweredOnceInOrder(chat);
        }
        assertThat(scene.requests).as("no model was asked").hasSize(asked);
        assertThat(scene.effects("pay 2")).isEmpty();
    }

    @Test
    void aTurnThatEndedBeforeItsSaveFinishesWithoutAskingAnyModel() {
        JournalEngines scene = new JournalEngines();
        CrashingStore store = new CrashingStore(FileSessionStore.in(dir));
        store.afterEachEntry(e -> {
            if (e.startsWith("{\"type\":\"end\"")) {
                store.crash();
            }
        });
        try (Engine engine = scene.builder(store).build(); Session s = engine.newSession("s")) {
            assertThatThrownBy(() -> s.send("go")).hasMessageContaining("the process died before it saved session s");
        }
        int asked = scene.requests.size();
        int effects = scene.effects.size();
        try (Engine engine = scene.builder(FileSessionStore.in(dir)).build(); Session s = engine.resume("s")) {
            assertThat(s.pending()).extracting(PendingCall::id).containsExactly("turn");
            assertThat(s.proceed().text()).isEqualTo("done");
        }
        assertThat(scene.requests).hasSize(asked);
        assertThat(scene.effects).hasSize(effects);
        try (Engine engine = scene.builder(FileSessionStore.in(dir)).build(); Session s = engine.resume("s")) {
            assertThat(s.paused()).as("saved and compacted").isFalse();
            assertThat(s.chat().last().orElseThrow().text()).isEqualTo("done");
        }
    }

    @Test
    void cancellingATurnCutShortEndsItWhereItsJournalEndsAndAnswersEveryCall() {
        JournalEngines scene = new JournalEngines();
        crash(scene, entry("finished", "L1b"));
        int asked = scene.requests.size();
        try (Engine engine = scene.builder(FileSessionStore.in(dir)).build(); Session s = engine.resume("s")) {
            s.cancel();
            assertThat(s.paused()).isFalse();
            assertThat(s.pending()).isEmpty();
            List<Message> chat = s.chat().messages();
            assertThat(resultOf(chat, "L1b")).isEqualTo(UNKNOWN_PAY_1);
            EngineApprovalsTest.assertAnsweredOnceInOrder(chat);
            assertThat(s.send("go").text()).as("the next message starts a new turn").isNotNull();
        }
        assertThat(scene.requests.get(asked)).as("nothing was asked for the cancelled turn").isEqualTo("lead/0");
    }

    @Test
    void anApprovedCallThatStartedIsNeverRunAgainAfterACrashWhicheverEngineApprovedIt() {
        JournalEngines scene = new JournalEngines();
        try (Engine one = scene.builder(FileSessionStore.in(dir)).toolPolicy("lead", JournalEngines.ASK_PAY).build();
                Session s = one.newSession("s")) {
            Turn turn = s.send("go");
            assertThat(turn.pending()).extracting(PendingCall::id).containsExactly("L1b");
        }
        CrashingStore store = new CrashingStore(FileSessionStore.in(dir)).crashBefore(entry("finished", "L1b"));
        try (Engine two = scene.builder(store).toolPolicy("lead", JournalEngines.ASK_PAY).build();
                Session s = two.resume("s")) {
            s.answer("L1b", Answer.approve());
            assertThatThrownBy(s::proceed).isNotNull();
        }
        assertThat(scene.effects("pay 1")).hasSize(1);
        try (Engine three = scene.builder(FileSessionStore.in(dir)).toolPolicy("lead", JournalEngines.ASK_PAY).build();
                Session s = three.resume("s")) {
            List<PendingCall> pending = s.pending();
            assertThat(pending).as("the answered approval is gone; the cut call is shown").hasSize(1);
            assertThat(pending.getFirst().kind()).isEqualTo(PendingCall.Kind.INTERRUPTED);
            assertThat(pending.getFirst().call().name()).isEqualTo("pay");
            assertThatThrownBy(s::proceed).as("a person is asked about pay under this policy")
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage("session s waits for a person's answer on L1b, which a crash cut short: approve runs a "
                            + "call again, deny tells the model its outcome is unknown");
            s.answer("L1b", Answer.deny("it may have gone through"));
            Turn turn = s.proceed();
            List<String> waiting = new ArrayList<>();
            while (turn.paused()) {
                turn.pending().forEach(p -> waiting.add(p.id()));
                turn.pending().forEach(p -> s.answer(p.id(), Answer.approve()));
                turn = s.proceed();
            }
            assertThat(turn.text()).isEqualTo("done");
            assertThat(waiting).as("the later payments are asked about as usual").containsExactly("L3");
            assertThat(resultOf(s.chat().messages(), "L1b")).isEqualTo(UNKNOWN_PAY_1);
        }
        assertThat(scene.effects("pay 1")).as("approved in one engine, started there, never run again").hasSize(1);
    }

    @Test
    void theJournalOfATurnOutlivesTwoCrashesInARow() {
        JournalEngines scene = new JournalEngines();
        crash(scene, entry("finished", "L1b"));
        CrashingStore second = new CrashingStore(FileSessionStore.in(dir)).crashBefore(entry("finished", "L3"));
        try (Engine engine = scene.builder(second).build(); Session s = engine.resume("s")) {
            s.answer("L1b", Answer.deny("unknown"));
            assertThatThrownBy(s::proceed).isNotNull();
        }
        try (Engine engine = scene.builder(FileSessionStore.in(dir)).build(); Session s = engine.resume("s")) {
            assertThat(s.pending()).extracting(PendingCall::id).containsExactly("L3");
            assertThat(s.proceed().text()).isEqualTo("done");
            EngineApprovalsTest.assertAnsweredOnceInOrder(s.chat().messages());
        }
        assertThat(scene.effects("pay 1")).hasSize(1);
        assertThat(scene.effects("pay 2")).hasSize(1);
        assertThat(scene.effects("pay 3")).hasSize(1);
        assertThat(scene.requests.stream().filter("lead/0"::equals)).hasSize(1);
        assertThat(scene.requests.stream().filter("lead/2"::equals)).hasSize(1);
        try (SessionStore.Lease lease = FileSessionStore.in(dir).open("s", Duration.ZERO)) {
            assertThat(lease.journal()).isEmpty();
        }
    }
}
