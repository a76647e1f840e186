package dev.shelly.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.agent.AgentEvent;
import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.storage.spi.FileSessionStore;
import dev.shelly.storage.SessionBusyException;
import dev.shelly.storage.SessionExistsException;
import dev.shelly.storage.SessionNotFoundException;
import dev.shelly.storage.SessionRecord;
import dev.shelly.modeladapter.Usage;
import dev.shelly.testing.ScriptedCompleter;
import dev.shelly.testing.Step;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

/** Sessions as a service uses them: a resume, a turn and a close per request, many at once. */
class SessionServiceTest {

    private static long userTurnsOnDisk(Path dir, String id) {
        SessionRecord saved = new FileSessionStore(dir, JsonMapper.builder().build()).read(id);
        return saved.messages().stream().filter(m -> m.role() == Role.USER).count();
    }

    private static List<String> newSessions(Engine engine, int n) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            try (Session s = engine.newSession()) {
                s.send("hello");
                ids.add(s.id());
            }
        }
        return ids;
    }

    /** Runs {@code turns} requests per session from a pool of threads, each on the engine chosen for it. */
    private static int requests(List<Engine> engines, List<String> ids, int turns) throws Exception {
        List<Future<?>> done = new ArrayList<>();
        CountDownLatch go = new CountDownLatch(1);
        try (ExecutorService pool = Executors.newFixedThreadPool(16)) {
            int n = 0;
            for (int t = 0; t < turns; t++) {
                for (String id : ids) {
                    Engine engine = engines.get(n++ % engines.size());
                    String text = "turn " + t;
                    done.add(pool.submit(() -> {
                        go.await();
                        try (Session s = engine.resume(id)) {
                            assertThat(s.send(text).text()).isEqualTo("re: " + text);
                        }
                        return null;
                    }));
                }
            }
            go.countDown();
            for (Future<?> f : done) {
                f.get(120, TimeUnit.SECONDS);
            }
        }
        return done.size();
    }

    @Test
    void concurrentRequestsOnFiveSessionsLoseNoTurn(@TempDir Path dir) throws Exception {
        try (Engine engine = EchoEngines.builder(dir, Duration.ofMillis(2)).build()) {
            List<String> ids = newSessions(engine, 5);
            int sent = requests(List.of(engine), ids, 10);
            long onDisk = 0;
            for (String id : ids) {
                assertThat(userTurnsOnDisk(dir, id)).as(id).isEqualTo(11);
                onDisk += userTurnsOnDisk(dir, id) - 1;
            }
            System.out.printf("one engine: %d turns sent, %d on disk%n", sent, onDisk);
            assertThat(onDisk).isEqualTo(sent);
            assertThat(engine.openSessions()).isZero();
        }
    }

    @Test
    void twoEnginesOnOneFolderWaitForEachOtherAndLoseNoTurn(@TempDir Path dir) throws Exception {
        try (Engine one = EchoEngines.builder(dir, Duration.ofMillis(2)).build();
                Engine two = EchoEngines.builder(dir, Duration.ofMillis(2)).build()) {
            List<String> ids = newSessions(one, 5);
            int sent = requests(List.of(one, two), ids, 10);
            long onDisk = 0;
            for (String id : ids) {
                onDisk += userTurnsOnDisk(dir, id) - 1;
            }
            System.out.printf("two engines: %d turns sent, %d on disk%n", sent, onDisk);
            assertThat(onDisk).isEqualTo(sent);
        }
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString())).allMatch(n -> n.endsWith(".json") || n.equals(".sessions.lock"));
        }
    }

    @Test
    void aSessionHeldByAnotherEngineFailsWithATypedErrorAfterTheWait(@TempDir Path dir) {
        try (Engine one = EchoEngines.builder(dir, Duration.ZERO).build();
                Engine two = EchoEngines.builder(dir, Duration.ZERO).sessionWait(Duration.ofMillis(100)).build()) {
            Session held = one.newSession();
            held.send("mine");
            assertThatThrownBy(() -> two.resume(held.id()))
                    .isInstanceOfSatisfying(SessionBusyException.class, e -> assertThat(e.id()).isEqualTo(held.id()))
                    .hasMessage("session '" + held.id() + "' is held by another engine or process and did not come free "
                            + "within 100 ms");
            held.close();
            try (Session s = two.resume(held.id())) {
                assertThat(s.chat().messages()).extracting(Message::text).endsWith("mine", "re: mine");
            }
        }
    }

    @Test
    void twoProcessesOnOneFolderLoseNoTurn(@TempDir Path dir) throws Exception {
        int turns = 15;
        try (Engine engine = EchoEngines.builder(dir, Duration.ofMillis(5)).build()) {
            String id = newSessions(engine, 1).getFirst();
            Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp", System.getProperty("java.class.path"), SessionTurnsProcess.class.getName(),
                    dir.toString(), id, String.valueOf(turns), "child ")
                    .redirectErrorStream(true)
                    .start();
            List<String> childOutput = new CopyOnWriteArrayList<>();
            CountDownLatch ready = new CountDownLatch(1);
            Thread reader = Thread.ofVirtual().start(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(child.getInputStream(),
                        StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = r.readLine()) != null) {
                        childOutput.add(line);
                        if (line.equals("ready")) {
                            ready.countDown();
                        }
                    }
                } catch (java.io.IOException e) {
                    childOutput.add(e.toString());
                } finally {
                    ready.countDown();
                }
            });
            try {
                assertThat(ready.await(60, TimeUnit.SECONDS)).as("child started: %s", childOutput).isTrue();
                for (int i = 0; i < turns; i++) {
                    try (Session s = engine.resume(id)) {
                        s.send("parent " + i);
                    }
                    SessionTurnsProcess.pauseBetweenRequests();
                }
                assertThat(child.waitFor(120, TimeUnit.SECONDS)).as("child ended: %s", childOutput).isTrue();
            } finally {
                child.destroyForcibly();
            }
            reader.join(Duration.ofSeconds(10));
            assertThat(child.exitValue()).as("child output: %s", childOutput).isZero();
            assertThat(childOutput).contains("sent " + turns);
            long onDisk = userTurnsOnDisk(dir, id) - 1;
            System.out.printf("two processes: %d turns sent, %d on disk%n", 2 * turns, onDisk);
            assertThat(onDisk).isEqualTo(2 * turns);
            SessionRecord saved = new FileSessionStore(dir, JsonMapper.builder().build()).read(id);
            List<String> texts = saved.messages().stream().filter(m -> m.role() == Role.USER).map(Message::text).toList();
            for (int i = 0; i < turns; i++) {
                assertThat(texts).contains("parent " + i, "child " + i);
            }
            long switches = java.util.stream.IntStream.range(1, texts.size())
                    .filter(i -> texts.get(i).charAt(0) != texts.get(i - 1).charAt(0)).count();
            System.out.printf("two processes: the turns on disk switch between the processes %d times%n", switches);
        }
    }

    @Test
    void resumeHandsOutOneLiveSessionPerIdAndReleasesItWhenTheLastHandleCloses(@TempDir Path dir) {
        try (Engine engine = EchoEngines.builder(dir, Duration.ZERO).build()) {
            Session first = engine.newSession();
            Session second = engine.resume(first.id());
            assertThat(second).isNotSameAs(first);
            assertThat(second.chat()).isSameAs(first.chat());
            assertThat(engine.openSessions()).isEqualTo(1);
            first.send("one");
            first.close();
            first.close();
            assertThat(engine.openSessions()).isEqualTo(1);
            assertThat(second.send("two").text()).isEqualTo("re: two");
            assertThatThrownBy(() -> first.send("three"))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage("session " + first.id() + " is closed");
            second.close();
            assertThat(engine.openSessions()).isZero();
            try (Session again = engine.resume(first.id())) {
                assertThat(again.chat()).isNotSameAs(first.chat());
                assertThat(again.chat().messages()).extracting(Message::text)
                        .containsExactly("You are echo. Echoes", "one", "re: one", "two", "re: two");
            }
        }
    }

    @Test
    void openingAndClosingTenThousandSessionsLeavesNoneHeld(@TempDir Path dir) {
        try (Engine engine = Engine.builder().config(EchoEngines.config()).completer("m", EchoEngines.echo(Duration.ZERO))
                .build()) {
            for (int i = 0; i < 10_000; i++) {
                try (Session s = engine.newSession()) {
                    s.chat();
                }
            }
            assertThat(engine.openSessions()).isZero();
        }
        try (Engine engine = EchoEngines.builder(dir, Duration.ZERO).build()) {
            String id = newSessions(engine, 1).getFirst();
            for (int i = 0; i < 10_000; i++) {
                engine.resume(id).close();
            }
            assertThat(engine.openSessions()).isZero();
        }
    }

    @Test
    void concurrentSavesNeverLetAnOlderSnapshotWin(@TempDir Path dir) throws Exception {
        try (Engine engine = EchoEngines.builder(dir, Duration.ZERO).build();
                Session session = engine.newSession();
                ExecutorService pool = Executors.newFixedThreadPool(8)) {
            List<Future<?>> saves = new ArrayList<>();
            CountDownLatch go = new CountDownLatch(1);
            for (int i = 0; i < 8; i++) {
                saves.add(pool.submit(() -> {
                    go.await();
                    for (int j = 0; j < 100; j++) {
                        session.save();
                    }
                    return null;
                }));
            }
            go.countDown();
            for (int t = 0; t < 20; t++) {
                session.send("t" + t);
            }
            for (Future<?> f : saves) {
                f.get(60, TimeUnit.SECONDS);
            }
            SessionRecord saved = new FileSessionStore(dir, JsonMapper.builder().build()).read(session.id());
            assertThat(saved.messages()).isEqualTo(session.chat().messages());
            assertThat(saved.version()).isGreaterThan(20);
        }
    }

    @Test
    void aCopiedFileResumesUnderItsNewNameAndLeavesTheOriginalAlone(@TempDir Path dir) throws Exception {
        try (Engine engine = EchoEngines.builder(dir, Duration.ZERO).build()) {
            String id = newSessions(engine, 1).getFirst();
            Files.copy(dir.resolve(id + ".json"), dir.resolve("fork.json"));
            try (Session fork = engine.resume("fork")) {
                assertThat(fork.id()).isEqualTo("fork");
                fork.send("only in the fork");
            }
            assertThat(userTurnsOnDisk(dir, id)).isEqualTo(1);
            assertThat(userTurnsOnDisk(dir, "fork")).isEqualTo(2);
            assertThat(engine.savedSessions()).containsExactlyInAnyOrder(id, "fork");
        }
    }

    @Test
    void leftoversOfCrashedSavesAreRemovedWhenTheEngineStarts(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve(".20261124-050000-abc-4711.tmp"), "{\"id\":");
        try (Engine engine = EchoEngines.builder(dir, Duration.ZERO).build()) {
            try (Stream<Path> files = Files.list(dir)) {
                assertThat(files.map(p -> p.getFileName().toString())).containsExactly(".sessions.lock");
            }
            assertThat(engine.savedSessions()).isEmpty();
        }
    }

    @Test
    void aMissingSessionIsATypedErrorNamingOnlyTheIdAskedFor(@TempDir Path dir) {
        try (Engine engine = EchoEngines.builder(dir, Duration.ZERO).build()) {
            List<String> others = newSessions(engine, 3);
            assertThatThrownBy(() -> engine.resume("guess"))
                    .isInstanceOfSatisfying(SessionNotFoundException.class, e -> assertThat(e.id()).isEqualTo("guess"))
                    .hasMessage("no saved session 'guess'")
                    .satisfies(e -> assertThat(e.toString()).doesNotContain(others).doesNotContain(dir.toString()));
            assertThat(engine.openSessions()).isZero();
        }
    }

    @Test
    void aCallerMayCreateListAndDeleteSessionsUnderItsOwnIds(@TempDir Path dir) {
        try (Engine engine = EchoEngines.builder(dir, Duration.ZERO).build()) {
            try (Session s = engine.newSession("conversation-42")) {
                assertThat(s.id()).isEqualTo("conversation-42");
                s.send("hi");
                assertThatThrownBy(() -> engine.newSession("conversation-42"))
                        .isInstanceOfSatisfying(SessionExistsException.class,
                                e -> assertThat(e.id()).isEqualTo("conversation-42"))
                        .hasMessage("session 'conversation-42' already exists; resume it or choose another id");
                assertThatThrownBy(() -> engine.deleteSession("conversation-42"))
                        .isInstanceOf(SessionBusyException.class)
                        .hasMessage("session 'conversation-42' is open in this engine; close it before deleting it");
            }
            assertThatThrownBy(() -> engine.newSession("conversation-42")).isInstanceOf(SessionExistsException.class);
            assertThat(engine.savedSessions()).containsExactly("conversation-42");
            engine.deleteSession("conversation-42");
            assertThat(engine.savedSessions()).isEmpty();
            assertThatThrownBy(() -> engine.deleteSession("conversation-42"))
                    .isInstanceOf(SessionNotFoundException.class)
                    .hasMessage("no saved session 'conversation-42'");
            for (String bad : List.of("../x", "a/b", "a" + File.separator + "b", "..", "x".repeat(129))) {
                assertThatThrownBy(() -> engine.newSession(bad))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageStartingWith("Engine.newSession id '");
                assertThatThrownBy(() -> engine.resume(bad))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageStartingWith("Engine.resume id '");
            }
            try (Session fresh = engine.newSession("conversation-42")) {
                assertThat(fresh.chat().messages()).isEmpty();
            }
            assertThat(engine.openSessions()).isZero();
        }
    }

    @Test
    void closingAHandleCancelsOnlyItsOwnTurns(@TempDir Path dir) throws Exception {
        ScriptedCompleter model = ScriptedCompleter.of(Step.hang(), Step.reply("for b"));
        try (Engine engine = Engine.builder().config(EchoEngines.config()).completer("m", model).sessionsDir(dir).build()) {
            Session a = engine.newSession();
            Session b = engine.resume(a.id());
            Future<Turn> hanging = a.submit("a waits");
            assertThat(model.awaitCalls(1, Duration.ofSeconds(10))).isTrue();
            Future<Turn> queued = b.submit("b asks");
            a.close(); // the client of a went away
            assertThat(hanging.isCancelled()).isTrue();
            assertThat(queued.get(10, TimeUnit.SECONDS).text()).isEqualTo("for b");
            b.close();
            try (Session c = engine.resume(a.id())) {
                assertThat(c.chat().messages()).extracting(Message::text)
                        .containsExactly("You are echo. Echoes", "a waits", "b asks", "for b");
            }
        }
    }

    @Test
    void turnsSessionsAndTheEngineCountUsageOfCompletersGivenInCode(@TempDir Path dir) {
        ScriptedCompleter lead = ScriptedCompleter.of(Step.delegate("researcher", "look it up").withUsage(Usage.of(100, 10)),
                Step.reply("done").withUsage(Usage.of(200, 20)), Step.reply("again").withUsage(Usage.of(300, 30)));
        ScriptedCompleter worker = ScriptedCompleter.perChat(Step.reply("found").withUsage(Usage.of(7, 3)));
        var config = dev.shelly.engine.config.EngineConfig.builder()
                .provider(dev.shelly.engine.config.ProviderConfig.builder("lead-model",
                        "openai", "x").apiKey("k").build())
                .provider(dev.shelly.engine.config.ProviderConfig.builder("worker-model",
                        "openai", "x").apiKey("k").build())
                .agent(dev.shelly.engine.config.AgentConfig.builder("lead").provider("lead-model")
                        .maxDelegationDepth(1).build())
                .agent(dev.shelly.engine.config.AgentConfig.builder("researcher").description("Finds")
                        .provider("worker-model").build())
                .entryAgent("lead")
                .build();
        String id;
        try (Engine engine = Engine.builder().config(config).completer("lead-model", lead).completer("worker-model", worker)
                .sessionsDir(dir).build();
                Session session = engine.newSession()) {
            id = session.id();
            Turn turn = session.send("go");
            assertThat(turn.text()).isEqualTo("done");
            assertThat(turn.usage()).isEqualTo(Usage.of(307, 33));
            assertThat(turn.took()).isPositive();
            assertThat(turn.id()).matches("[0-9a-f]{16}");
            assertThat(session.usage()).isEqualTo(Usage.of(307, 33));
            assertThat(engine.usage().total()).isEqualTo(Usage.of(307, 33));
            assertThat(engine.usage().count()).isEqualTo(3);
        }
        try (Engine engine = Engine.builder().config(config).completer("lead-model", lead).completer("worker-model", worker)
                .sessionsDir(dir).build();
                Session session = engine.resume(id)) {
            assertThat(session.usage()).as("totals are saved with the session").isEqualTo(Usage.of(307, 33));
            assertThat(session.send("more").usage()).isEqualTo(Usage.of(300, 30));
            assertThat(session.usage()).isEqualTo(Usage.of(607, 63));
        }
    }

    @Test
    void aHandlesListenerHearsOnlyItsOwnTurns(@TempDir Path dir) {
        try (Engine engine = EchoEngines.builder(dir, Duration.ZERO).build()) {
            List<AgentEvent> heardA = new CopyOnWriteArrayList<>();
            List<AgentEvent> heardB = new CopyOnWriteArrayList<>();
            try (Session a = engine.newSession().listen(heardA::add);
                    Session b = engine.resume(a.id()).listen(heardB::add)) {
                a.send("from a");
                b.send("from b");
            }
            assertThat(heardA).filteredOn(e -> e instanceof AgentEvent.AgentFinished).hasSize(1)
                    .allSatisfy(e -> assertThat(((AgentEvent.AgentFinished) e).reply().text()).isEqualTo("re: from a"));
            assertThat(heardB).filteredOn(e -> e instanceof AgentEvent.AgentFinished).hasSize(1)
                    .allSatisfy(e -> assertThat(((AgentEvent.AgentFinished) e).reply().text()).isEqualTo("re: from b"));
        }
    }

    @Test
    void closingTheEngineCancelsWhatIsQueued(@TempDir Path dir) throws Exception {
        ScriptedCompleter model = ScriptedCompleter.of(Step.hang());
        Future<Turn> hanging;
        Future<Turn> queued;
        try (Engine engine = Engine.builder().config(EchoEngines.config()).completer("m", model).sessionsDir(dir).build()) {
            Session s = engine.newSession();
            hanging = s.submit("one");
            queued = s.submit("two");
            assertThat(model.awaitCalls(1, Duration.ofSeconds(10))).isTrue();
        }
        assertThatThrownBy(() -> hanging.get(10, TimeUnit.SECONDS)).isInstanceOf(CancellationException.class);
        assertThatThrownBy(() -> queued.get(10, TimeUnit.SECONDS)).isInstanceOf(CancellationException.class);
    }
}
