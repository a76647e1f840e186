package dev.shelly.durable;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.chats.ToolResult;
import dev.shelly.redis.RedisBackends;
import dev.shelly.redis.SharedRedis;
import dev.shelly.storage.SessionRecord;
import dev.shelly.storage.spi.FileSessionStore;
import dev.shelly.storage.spi.SessionStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;

/**
 * Runs that survive {@code kill -9} at any step: a child JVM runs the 20-step turn of
 * {@link TurnScript} in many sessions at once, each blocked at its own kill point, and is killed
 * with {@link Process#destroyForcibly()}; a second JVM resumes every session, answers what
 * {@code pending()} shows and finishes the turn. On the file store and on a real redis-server,
 * with a provider of kind {@code openai} and of kind {@code anthropic} against a strict
 * {@link ModelEmulator}, for every kill point:
 * <ul>
 *   <li>each non-idempotent effect (a line a tool appends to a file outside the session)
 *       happened at most once, and exactly once for every call not cut by the kill;</li>
 *   <li>a call cut by the kill is shown as interrupted and the model reads that its outcome is
 *       unknown; an idempotent one is run again, with the same idempotency key;</li>
 *   <li>no acknowledged turn is lost and the cut turn ends as an uninterrupted one does;</li>
 *   <li>no model step is requested twice, across both JVMs;</li>
 *   <li>every request is valid, and each request equals, as JSON, the one an uninterrupted run
 *       sends at that step (the cut call's result aside);</li>
 *   <li>the messages' ids and creation times are in the session and in no request.</li>
 * </ul>
 * The emulator and redis-server start once; the four store and format pairs run side by side,
 * each pair's sessions in one killed JVM and one resuming JVM.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class DurableRunsTest {
    static final String UNKNOWN = "whether it took effect is unknown";
    private static final Set<String> EFFECT_TOOLS = Set.of("charge", "ship", "note");

    @TempDir
    static Path dir;

    private static ModelEmulator emulator;
    private static ExecutorService pool;
    private static final Map<String, CompletableFuture<Outcome>> RUNS = new LinkedHashMap<>();

    /** One kill point of one session: the point, and the occurrence to block at (-1: the reference never reached it). */
    record Case(String name, String point, int n) {}

    /** The uninterrupted run of one format: its output, its requests by step, its saved session. */
    record Reference(String format, String token, Jvm jvm, Map<String, JsonNode> requests, SessionRecord record,
            long millis) {}

    /** A store and format pair after the kill and the resume. */
    record Outcome(String store, String format, String prefix, List<Case> cases, Jvm crashed, Jvm resumed,
            Map<String, SessionRecord> records, Path effects, Reference reference, long crashMillis, long resumeMillis) {
        String session(Case c) {
            return prefix + "-" + c.name();
        }
    }

    @BeforeAll
    static void runEveryPair() throws IOException {
        emulator = ModelEmulator.start();
        SharedRedis.server();
        pool = Executors.newCachedThreadPool();
        Map<String, CompletableFuture<Reference>> references = new HashMap<>();
        for (String format : List.of("openai", "anthropic")) {
            references.put(format, CompletableFuture.supplyAsync(() -> reference(format), pool));
        }
        // -Ddurable.pairs=files/openai,... runs only those pairs (the others are skipped), to look at one closely.
        String only = System.getProperty("durable.pairs", "");
        for (String store : List.of("files", "redis")) {
            for (String format : List.of("openai", "anthropic")) {
                if (!only.isBlank() && !List.of(only.split(",")).contains(store + "/" + format)) {
                    continue;
                }
                RUNS.put(store + "/" + format,
                        references.get(format).thenApplyAsync(ref -> crashAndResume(store, format, ref), pool));
            }
        }
    }

    @AfterAll
    static void stop() {
        if (pool != null) {
            pool.shutdownNow();
        }
        if (emulator != null) {
            emulator.close();
        }
    }

    @Test
    void filesOpenAi() {
        check("files", "openai");
    }

    @Test
    void filesAnthropic() {
        check("files", "anthropic");
    }

    @Test
    void redisOpenAi() {
        check("redis", "openai");
    }

    @Test
    void redisAnthropic() {
        check("redis", "anthropic");
    }

    // ---- the runs ----

    private static Reference reference(String format) {
        try {
            long start = System.nanoTime();
            String token = "zzref" + format.charAt(0);
            Path store = Files.createDirectories(dir.resolve("ref-" + format));
            Path effects = Files.createDirectories(dir.resolve("ref-effects-" + format));
            Jvm jvm = Jvm.launch(Map.of(), dir.resolve("ref-" + format + ".err"), List.of("run", format,
                    emulator.baseUrl(format), effects.toString(), "file", store.toString(), "-", token));
            if (!jvm.awaitExit(120) || !jvm.of("DONE", token).equals(List.of("done " + token))) {
                throw new AssertionError("the uninterrupted " + format + " run did not finish: " + jvm.lines + "\n"
                        + jvm.errors());
            }
            Map<String, JsonNode> requests = new HashMap<>();
            for (ModelEmulator.Request r : emulator.requests()) {
                if (token.equals(r.session())) {
                    if (!r.problems().isEmpty() || requests.put(r.key(), r.body()) != null) {
                        throw new AssertionError("the uninterrupted run sent an invalid or repeated request: " + r);
                    }
                }
            }
            assertThat(requests.keySet()).containsExactlyInAnyOrderElementsOf(TurnScript.allKeys());
            return new Reference(format, token, jvm, requests, load(FileSessionStore.in(store), token),
                    Duration.ofNanos(System.nanoTime() - start).toMillis());
        } catch (IOException | InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The kill points, each at the occurrence the uninterrupted run shows for it. */
    private static List<Case> cases(Reference ref) {
        String f = ref.format();
        List<Case> cases = new ArrayList<>();
        cases.add(new Case("model-first", "model", n(ref, "model", "lead/2/0")));
        cases.add(new Case("model-mid", "model", n(ref, "model", "lead/2/5")));
        // A response is journalled right after its call: the n-th response recorded is the n-th call's.
        cases.add(new Case("recorded-mid", "recorded", n(ref, "model", "lead/2/7")));
        cases.add(new Case("recorded-last", "recorded", n(ref, "model", "lead/2/19")));
        cases.add(new Case("started", "started", n(ref, "started", "charge/" + TurnScript.callId(f, "lead", 2, 9, 0))));
        cases.add(new Case("started-idempotent", "started",
                n(ref, "started", "lookup/" + TurnScript.callId(f, "lead", 2, 13, 0))));
        cases.add(new Case("effect", "effect", n(ref, "effect", "charge/" + TurnScript.callId(f, "lead", 2, 5, 0))));
        cases.add(new Case("effect-parallel", "effect",
                n(ref, "effect", "charge/" + TurnScript.callId(f, "lead", 2, 6, 0))));
        cases.add(new Case("returned", "returned", n(ref, "returned", TurnScript.callId(f, "lead", 2, 3, 0))));
        cases.add(new Case("child-tool", "child", n(ref, "child", "note/" + TurnScript.callId(f, "helper", 1, 0, 0))));
        cases.add(new Case("paused", "paused", 1));
        cases.add(new Case("approved-effect", "effect",
                n(ref, "effect", "ship/" + TurnScript.callId(f, "lead", 2, TurnScript.SHIP_STEP, 0))));
        cases.add(new Case("save-end", "save", lastBeforeAck(ref, "save")));
        cases.add(new Case("saved-end", "saved", lastBeforeAck(ref, "saved")));
        return cases;
    }

    private static int n(Reference ref, String point, String detail) {
        for (String at : ref.jvm().of("AT", ref.token())) {
            String[] w = at.split(" ", 3);
            if (w[0].equals(point) && w.length == 3 && w[2].equals(detail)) {
                return Integer.parseInt(w[1]);
            }
        }
        return -1;
    }

    /** The last occurrence of a point in the long turn, before it was acknowledged. */
    private static int lastBeforeAck(Reference ref, String point) {
        int last = -1;
        String prefix = "AT " + ref.token() + " " + point + " ";
        for (String l : ref.jvm().lines) {
            if (l.equals("ACK " + ref.token() + " 2")) {
                break;
            }
            if (l.startsWith(prefix)) {
                last = Integer.parseInt(l.substring(prefix.length()).split(" ")[0]);
            }
        }
        return last;
    }

    private static Outcome crashAndResume(String store, String format, Reference ref) {
        try {
            String prefix = store.charAt(0) + "" + format.charAt(0);
            List<Case> cases = cases(ref);
            List<String> sessions = new ArrayList<>();
            List<String> killAt = new ArrayList<>();
            for (Case c : cases) {
                sessions.add(prefix + "-" + c.name());
                killAt.add(c.n() < 0 ? "-" : c.point() + ":" + c.n());
            }
            Path effects = Files.createDirectories(dir.resolve(prefix + "-effects"));
            Path files = Files.createDirectories(dir.resolve(prefix + "-sessions"));
            String keys = "dur-" + UUID.randomUUID() + ":";
            List<String> storeArgs = store.equals("files") ? List.of("file", files.toString(), "-")
                    : List.of("redis", SharedRedis.server().url(), keys);
            List<String> common = new ArrayList<>(List.of(format, emulator.baseUrl(format), effects.toString()));
            common.addAll(storeArgs);
            common.add(String.join(",", sessions));

            long start = System.nanoTime();
            List<String> run = new ArrayList<>(List.of("run"));
            run.addAll(common);
            Jvm crashed = Jvm.launch(Map.of("KILL_AT", String.join(",", killAt)), dir.resolve(prefix + "-run.err"), run);
            crashed.awaitLines(lines -> {
                for (String s : sessions) {
                    if (crashed.of("BLOCKED", s).isEmpty() && crashed.of("DONE", s).isEmpty()
                            && crashed.of("FAILED", s).isEmpty()) {
                        return false;
                    }
                }
                return true;
            }, 120);
            Thread.sleep(200); // let a blocked call's siblings of the same turn settle
            crashed.kill();
            long crashMillis = Duration.ofNanos(System.nanoTime() - start).toMillis();

            start = System.nanoTime();
            List<String> resume = new ArrayList<>(List.of("resume"));
            resume.addAll(common);
            Jvm resumed = Jvm.launch(Map.of(), dir.resolve(prefix + "-resume.err"), resume);
            resumed.awaitExit(120);
            long resumeMillis = Duration.ofNanos(System.nanoTime() - start).toMillis();

            Map<String, SessionRecord> records = new HashMap<>();
            if (store.equals("files")) {
                FileSessionStore saved = FileSessionStore.in(files);
                for (String s : sessions) {
                    records.put(s, load(saved, s));
                }
            } else {
                try (RedisBackends redis = RedisBackends.builder(SharedRedis.server().url()).keyPrefix(keys).build()) {
                    for (String s : sessions) {
                        records.put(s, load(redis.sessions(), s));
                    }
                }
            }
            return new Outcome(store, format, prefix, cases, crashed, resumed, records, effects, ref, crashMillis,
                    resumeMillis);
        } catch (IOException | InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    private static SessionRecord load(SessionStore store, String id) {
        try (SessionStore.Lease lease = store.open(id, Duration.ofSeconds(30))) {
            return lease.load().orElse(null);
        }
    }

    // ---- the checks ----

    private static void check(String store, String format) {
        Assumptions.assumeTrue(RUNS.containsKey(store + "/" + format), "not among -Ddurable.pairs");
        Outcome o = RUNS.get(store + "/" + format).join();
        List<String> failures = new ArrayList<>();
        List<String> rows = new ArrayList<>();
        for (Case c : o.cases()) {
            List<String> found = new ArrayList<>();
            rows.add(verify(o, c, found));
            for (String f : found) {
                failures.add(o.session(c) + ": " + f);
            }
        }
        System.out.printf("%n%s / %s: killed after %d ms, resumed in %d ms (uninterrupted run: %d ms)%n", store, format,
                o.crashMillis(), o.resumeMillis(), o.reference().millis());
        System.out.printf("%-20s %-14s %-40s %-10s %-8s %-8s %-6s %s%n", "case", "kill at", "blocked in", "pending",
                "effects", "unknown", "asked", "problems");
        rows.forEach(System.out::println);
        assertThat(failures).as("%s / %s; resuming JVM's stderr:%n%s", store, format, o.resumed().errors()).isEmpty();
    }

    private static String verify(Outcome o, Case c, List<String> failures) {
        String s = o.session(c);
        String f = o.format();
        List<String> blocked = o.crashed().of("BLOCKED", s);
        String blockedIn = blocked.isEmpty() ? "-" : blocked.getFirst();
        if (c.n() < 0) {
            failures.add("the uninterrupted run never reached kill point '" + c.point() + "'");
        } else if (blocked.isEmpty()) {
            failures.add("the kill point " + c.point() + ":" + c.n() + " was not reached; printed "
                    + o.crashed().of("FAILED", s) + o.crashed().of("DONE", s));
        }
        if (!o.resumed().of("FAILED", s).isEmpty()) {
            failures.add("the resume failed: " + o.resumed().of("FAILED", s));
        }
        if (!o.resumed().of("DONE", s).equals(List.of("done " + s))) {
            failures.add("the resumed turn did not end with 'done " + s + "': " + o.resumed().of("DONE", s));
        }

        // What pending() showed after the resume.
        Set<String> interrupted = new HashSet<>();
        List<String> pending = new ArrayList<>();
        for (String p : o.resumed().of("PENDING", s)) {
            String[] w = p.split(" ");
            pending.add(w[0].charAt(0) + ":" + w[2]);
            if (w[0].equals("INTERRUPTED") && !w[1].equals("-")) {
                interrupted.add(w[1]);
            }
        }
        // blocked in "<point> <n> <detail>": the call is the detail's last part, after "tool/" if any
        String[] words = blockedIn.split(" ");
        String blockedCall = words.length < 3 ? null : words[2].substring(words[2].lastIndexOf('/') + 1);
        Map<String, String> scripted = scriptedCalls(f, s);
        switch (c.point()) {
            case "started", "effect", "child" -> {
                boolean idempotent = blockedIn.contains(" lookup/");
                if (blockedCall != null && idempotent == interrupted.contains(blockedCall)) {
                    failures.add("the call cut by the kill (" + blockedIn + ") " + (idempotent
                            ? "is idempotent, yet was shown as interrupted" : "was not shown as interrupted")
                            + "; pending: " + pending);
                }
            }
            case "returned" -> {
                if (blockedCall != null && !interrupted.contains(blockedCall)) {
                    failures.add("the call whose result was not recorded (" + blockedIn + ") was not shown as "
                            + "interrupted; pending: " + pending);
                }
            }
            default -> {
                if (!interrupted.isEmpty()) {
                    failures.add("no call was running at the kill, yet " + interrupted + " were shown as interrupted");
                }
            }
        }
        if (c.point().equals("paused") && pending.stream().noneMatch(p -> p.equals("A:ship"))) {
            failures.add("the decision pending at the kill was not shown after the resume: " + pending);
        }
        for (String call : interrupted) {
            if (!EFFECT_TOOLS.contains(scripted.getOrDefault(call, ""))) {
                failures.add("call " + call + " (" + scripted.get(call) + ") was shown as interrupted; only a "
                        + "non-idempotent call that had started can be");
            }
        }

        // The effects outside the session.
        Map<String, Integer> effects = new HashMap<>();
        Map<String, Set<String>> lookupKeys = new HashMap<>();
        int effectCount = readEffects(o.effects().resolve(s + ".effects"), s, effects, null, failures);
        readEffects(o.effects().resolve(s + ".lookups"), s, new HashMap<>(), lookupKeys, failures);
        for (Map.Entry<String, String> call : scripted.entrySet()) {
            String id = call.getKey();
            int times = effects.getOrDefault(id, 0);
            if (call.getValue().equals("lookup")) {
                if (!lookupKeys.containsKey(id)) {
                    failures.add("the idempotent lookup " + id + " never ran");
                }
            } else if (times > 1) {
                failures.add("the effect of " + call.getValue() + " " + id + " happened " + times + " times");
            } else if (times == 0 && !interrupted.contains(id)) {
                failures.add("the effect of " + call.getValue() + " " + id + " never happened, and it was not "
                        + "reported as unknown");
            } else if (times == 0 && c.point().matches("effect|child|returned") && id.equals(blockedCall)) {
                failures.add("the effect of " + id + " happened before the kill, yet is not in the file");
            }
        }
        lookupKeys.forEach((id, keys) -> {
            if (keys.size() != 1) {
                failures.add("the lookup " + id + " ran with different idempotency keys: " + keys);
            }
        });

        // The saved session: both turns, each call answered once, unknown outcomes reported.
        SessionRecord record = o.records().get(s);
        String unknown = "-";
        if (record == null) {
            failures.add("nothing saved");
        } else {
            List<Message> messages = record.messages();
            List<String> users = messages.stream().filter(m -> m.role() == Role.USER).map(Message::text).toList();
            if (!users.equals(List.of("hello " + s, "run " + s))) {
                failures.add("the user's turns are " + users);
            }
            if (messages.stream().noneMatch(m -> m.text().equals("hi " + s))) {
                failures.add("the acknowledged first turn's answer is lost");
            }
            if (!messages.getLast().text().equals("done " + s)) {
                failures.add("the session does not end with the turn's answer: " + messages.getLast());
            }
            if (messages.size() != o.reference().record().messages().size()) {
                failures.add(messages.size() + " messages saved; an uninterrupted run saves "
                        + o.reference().record().messages().size());
            }
            Map<String, Integer> answered = new HashMap<>();
            Set<String> called = new HashSet<>();
            Map<String, String> results = new HashMap<>();
            for (Message m : messages) {
                m.toolCalls().forEach(tc -> called.add(tc.id()));
                for (ToolResult r : m.toolResults()) {
                    answered.merge(r.toolCallId(), 1, Integer::sum);
                    results.put(r.toolCallId(), r.text());
                }
            }
            if (!answered.keySet().equals(called) || answered.values().stream().anyMatch(n -> n != 1)) {
                failures.add("not every call of the lead has exactly one result: calls " + called + ", results "
                        + answered);
            }
            for (String call : interrupted) {
                String text = resultText(record, call, results);
                if (text == null || !text.contains(UNKNOWN)) {
                    failures.add("the model did not read that the outcome of " + call + " is unknown: " + text);
                }
            }
            unknown = interrupted.isEmpty() ? "-" : "yes";
        }

        // The messages' ids and creation times stay in the session, never on the wire.
        if (record != null) {
            List<String> bodies = new ArrayList<>();
            for (ModelEmulator.Request r : emulator.requests()) {
                if (s.equals(r.session())) {
                    bodies.add(r.body().toString());
                }
            }
            Set<String> ids = new HashSet<>();
            for (Chat.Entry e : record.entries()) {
                if (!ids.add(e.id())) {
                    failures.add("two messages with the id " + e.id());
                }
                String created = e.created().toString();
                if (bodies.stream().anyMatch(b -> b.contains(e.id()) || b.contains(created))) {
                    failures.add("the id or creation time of message " + e.id() + " was sent to the model");
                }
            }
        }

        // The requests: each step once, valid, and as an uninterrupted run sends it.
        Map<String, List<ModelEmulator.Request>> byKey = new HashMap<>();
        for (ModelEmulator.Request r : emulator.requests()) {
            if (s.equals(r.session())) {
                byKey.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(r);
            }
        }
        int maxAsked = 0;
        int problems = 0;
        for (String key : TurnScript.allKeys()) {
            List<ModelEmulator.Request> asked = byKey.getOrDefault(key, List.of());
            maxAsked = Math.max(maxAsked, asked.size());
            if (asked.size() != 1) {
                failures.add("step " + key + " was requested " + asked.size() + " times");
            }
        }
        for (Map.Entry<String, List<ModelEmulator.Request>> e : byKey.entrySet()) {
            for (ModelEmulator.Request r : e.getValue()) {
                if (!r.problems().isEmpty()) {
                    problems++;
                    failures.add("an invalid request at " + e.getKey() + ": " + r.problems());
                    continue;
                }
                JsonNode reference = o.reference().requests().get(e.getKey());
                if (reference == null) {
                    failures.add("a request at " + e.getKey() + ", a step an uninterrupted run does not take");
                    continue;
                }
                JsonNode expected = ModelEmulator.JSON.readTree(reference.toString().replace(o.reference().token(), s));
                for (String call : interrupted) {
                    JsonNode actual = toolResult(f, r.body(), call);
                    if (actual != null) {
                        replaceToolResult(f, expected, call, actual);
                    }
                }
                if (!expected.equals(r.body())) {
                    problems++;
                    failures.add("the request at " + e.getKey() + " differs from an uninterrupted run's: "
                            + difference(expected, r.body()));
                }
            }
        }
        return String.format("%-20s %-14s %-40s %-10s %-8s %-8s %-6s %s", c.name(), c.point() + ":" + c.n(), blockedIn,
                pending.isEmpty() ? "-" : String.join(",", pending), effectCount, unknown, maxAsked, problems);
    }

    /** Where two request bodies differ: the first field, or the first message, that is not the same. */
    private static String difference(JsonNode expected, JsonNode actual) {
        for (String field : expected.propertyNames()) {
            if (!expected.get(field).equals(actual.get(field))) {
                if (field.equals("messages") && actual.path(field).isArray()) {
                    JsonNode em = expected.get(field);
                    JsonNode am = actual.get(field);
                    for (int i = 0; i < Math.max(em.size(), am.size()); i++) {
                        if (!em.path(i).equals(am.path(i))) {
                            return "message " + i + ": expected " + em.path(i) + ", was " + am.path(i);
                        }
                    }
                }
                return field + ": expected " + expected.get(field) + ", was " + actual.get(field);
            }
        }
        return "the fields " + actual.propertyNames() + " instead of " + expected.propertyNames();
    }

    /** Every scripted call of a session by id: the lead's long turn and the helper's. */
    private static Map<String, String> scriptedCalls(String format, String session) {
        Map<String, String> calls = new LinkedHashMap<>();
        for (int step = 0; step < TurnScript.STEPS; step++) {
            List<TurnScript.Call> cs = TurnScript.step("lead", 2, step, session).calls();
            for (int i = 0; i < cs.size(); i++) {
                calls.put(TurnScript.callId(format, "lead", 2, step, i), cs.get(i).tool());
            }
        }
        calls.put(TurnScript.callId(format, "helper", 1, 0, 0), "note");
        calls.remove(TurnScript.callId(format, "lead", 2, TurnScript.DELEGATE_STEP, 0));
        return calls;
    }

    /** Reads an effects file: lines {@code <tool> <value> <key>}, counted by the call id that ends the key. */
    private static int readEffects(Path file, String session, Map<String, Integer> byCall, Map<String, Set<String>> keys,
            List<String> failures) {
        if (!Files.exists(file)) {
            return 0;
        }
        List<String> lines;
        try {
            lines = Files.readAllLines(file);
        } catch (IOException e) {
            failures.add("cannot read " + file + ": " + e);
            return 0;
        }
        for (String line : lines) {
            String key = line.substring(line.lastIndexOf(' ') + 1);
            if (!key.startsWith(session + "/")) {
                failures.add("the idempotency key '" + key + "' is not SESSION/RUN/CALL of session " + session);
            }
            String call = key.substring(key.lastIndexOf('/') + 1);
            byCall.merge(call, 1, Integer::sum);
            if (keys != null) {
                keys.computeIfAbsent(call, k -> new HashSet<>()).add(key);
            }
        }
        return lines.size();
    }

    /** The text of a call's result in the saved session, the lead's or, for the helper's call, the helper's. */
    private static String resultText(SessionRecord record, String call, Map<String, String> leadResults) {
        if (leadResults.containsKey(call)) {
            return leadResults.get(call);
        }
        // The helper's chat is not the session's: its result is what the lead's delegate result says
        // the helper was told; the request checks show the helper's model read it.
        for (ModelEmulator.Request r : emulator.requests()) {
            if (record.id().equals(r.session()) && "helper".equals(r.agent())) {
                JsonNode result = toolResult(r.format(), r.body(), call);
                if (result != null) {
                    return result.toString();
                }
            }
        }
        return null;
    }

    /** The tool result for a call in a request body: OpenAI's tool message, Anthropic's tool_result block. */
    private static JsonNode toolResult(String format, JsonNode body, String call) {
        for (JsonNode m : body.path("messages")) {
            if (format.equals("openai")) {
                if (m.path("role").asString("").equals("tool") && m.path("tool_call_id").asString("").equals(call)) {
                    return m;
                }
            } else {
                for (JsonNode b : m.path("content")) {
                    if (b.path("type").asString("").equals("tool_result") && b.path("tool_use_id").asString("").equals(call)) {
                        return b;
                    }
                }
            }
        }
        return null;
    }

    private static void replaceToolResult(String format, JsonNode body, String call, JsonNode with) {
        ArrayNode messages = (ArrayNode) body.path("messages");
        for (int i = 0; i < messages.size(); i++) {
            JsonNode m = messages.get(i);
            if (format.equals("openai")) {
                if (m.path("role").asString("").equals("tool") && m.path("tool_call_id").asString("").equals(call)) {
                    messages.set(i, with.deepCopy());
                }
            } else if (m.path("content").isArray()) {
                ArrayNode content = (ArrayNode) m.path("content");
                for (int j = 0; j < content.size(); j++) {
                    JsonNode b = content.get(j);
                    if (b.path("type").asString("").equals("tool_result") && b.path("tool_use_id").asString("").equals(call)) {
                        content.set(j, with.deepCopy());
                    }
                }
            }
        }
    }
}
