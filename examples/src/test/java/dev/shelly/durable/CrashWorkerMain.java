package dev.shelly.durable;

import dev.shelly.agent.Answer;
import dev.shelly.agent.PendingCall;
import dev.shelly.agent.RunInterceptor;
import dev.shelly.agent.ToolPolicy;
import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.engine.Engine;
import dev.shelly.engine.Session;
import dev.shelly.engine.Turn;
import dev.shelly.engine.config.AgentConfig;
import dev.shelly.engine.config.EngineConfig;
import dev.shelly.engine.config.ProviderConfig;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.RetryPolicy;
import dev.shelly.redis.RedisBackends;
import dev.shelly.storage.SessionRecord;
import dev.shelly.storage.spi.FileSessionStore;
import dev.shelly.storage.spi.SessionStore;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolContext;
import dev.shelly.tools.ToolOutput;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The JVM that {@link DurableRunsTest} kills and the one that resumes after it: an engine whose
 * provider (kind {@code openai} or {@code anthropic}) points at the test's {@link ModelEmulator},
 * whose sessions are kept in files or in Redis, running several sessions at once.
 *
 * <p>Arguments: {@code run|resume <format> <baseUrl> <effectsDir> file|redis <dir-or-url> <prefix>
 * <session,...>}. In {@code run}, each session takes a short first turn ({@code hello <s>}) and
 * then the long one ({@code run <s>}), approving the call it is asked about; in {@code resume},
 * each session is resumed, prints what {@link Session#pending()} shows, answers it (an
 * interrupted call: deny, so the model reads that its outcome is unknown; an approval: approve)
 * and proceeds to the end.
 *
 * <p>Kill points: the JVM prints {@code AT <session> <point> <n> <detail>} at each, and blocks
 * for ever (printing {@code BLOCKED ...}) at the n-th occurrence of a point when the environment
 * variable {@code KILL_AT} says {@code <point>:<n>} for that session (one entry per session, in
 * the order of the sessions, {@code -} for none). The points: {@code model} (before a model
 * call), {@code recorded} (after a model response is journalled), {@code started} (after a tool
 * call is journalled as started), {@code effect} (inside a tool, after its effect), {@code child}
 * (inside the delegated helper's tool, after its effect), {@code returned} (after a tool returned,
 * before its result is journalled), {@code save} and {@code saved} (before and after a save of
 * the session), {@code paused} (while a decision is pending).
 */
public final class CrashWorkerMain {
    private static final PrintStream OUT = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    private static final Pattern TYPE = Pattern.compile("\"type\":\"(\\w+)\"");

    private CrashWorkerMain() {}

    /**
     * Runs one mode.
     *
     * @param args see the class comment
     * @throws Exception when the set-up fails
     */
    public static void main(String[] args) throws Exception {
        String mode = args[0];
        String format = args[1];
        String baseUrl = args[2];
        Path effects = Path.of(args[3]);
        List<String> sessions = List.of(args[7].split(","));
        KillPoints points = new KillPoints(sessions, System.getenv().getOrDefault("KILL_AT", ""));
        RedisBackends redis = args[4].equals("redis") ? RedisBackends.builder(args[5]).keyPrefix(args[6])
                .sessionLease(Duration.ofSeconds(2)).build() : null;
        SessionStore store = redis != null ? redis.sessions() : FileSessionStore.in(Path.of(args[5]));
        try (Engine engine = engine(format, baseUrl, new KillingStore(store, points), points, effects);
                ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> all = new ArrayList<>();
            for (String s : sessions) {
                all.add(threads.submit(() -> {
                    try {
                        if (mode.equals("run")) {
                            run(engine, s, points);
                        } else {
                            resume(engine, s);
                        }
                    } catch (RuntimeException | Error e) {
                        OUT.println("FAILED " + s + " " + e.toString().replace('\n', ' '));
                        e.printStackTrace();
                    }
                    return null;
                }));
            }
            for (Future<?> f : all) {
                f.get();
            }
        } finally {
            if (redis != null) {
                redis.close();
            }
        }
        OUT.println("EXIT");
    }

    private static void run(Engine engine, String s, KillPoints points) {
        try (Session session = engine.newSession(s)) {
            session.send("hello " + s);
            OUT.println("ACK " + s + " 1");
            Turn turn = session.send("run " + s);
            while (turn.paused()) {
                OUT.println("PAUSED " + s + " " + turn.pending().stream().map(PendingCall::id).toList());
                points.at(s, "paused", "decision");
                for (PendingCall p : turn.pending()) {
                    session.answer(p.id(), Answer.approve());
                }
                turn = session.proceed();
            }
            OUT.println("ACK " + s + " 2");
            OUT.println("DONE " + s + " " + turn.text());
        }
    }

    private static void resume(Engine engine, String s) {
        try (Session session = engine.resume(s)) {
            OUT.println("RESUMED " + s + " " + session.paused());
            for (PendingCall p : session.pending()) {
                OUT.println("PENDING " + s + " " + p.kind() + " " + (p.call() == null ? "-" : p.call().id()) + " "
                        + (p.call() == null ? "-" : p.call().name()) + " " + p.id());
            }
            while (session.paused()) {
                for (PendingCall p : session.pending()) {
                    try {
                        if (p.kind() != PendingCall.Kind.INTERRUPTED) {
                            session.answer(p.id(), Answer.approve());
                        } else if (p.call() != null) {
                            session.answer(p.id(), Answer.deny("the outcome is unknown"));
                        }
                    } catch (IllegalStateException answered) {
                        OUT.println("ANSWERED " + s + " " + p.id()); // answered before the kill
                    }
                }
                session.proceed();
            }
            Optional<Message> last = session.chat().last();
            OUT.println("DONE " + s + " " + last.map(Message::text).orElse(""));
        }
    }

    static Engine engine(String format, String baseUrl, SessionStore store, KillPoints points, Path effects) {
        EngineConfig config = EngineConfig.builder()
                .provider(ProviderConfig.builder("m", format, "emu-model").baseUrl(baseUrl).apiKey("k-test")
                        .retry(RetryPolicy.none()).build())
                .agent(AgentConfig.builder("lead").description("Leads").instructions("You are the lead.")
                        .toolboxes("ops").build())
                .agent(AgentConfig.builder("helper").description("Notes things").instructions("You are the helper.")
                        .toolboxes("notes").build())
                .entryAgent("lead")
                .build();
        return Engine.builder().config(config).environment(Map.<String, String>of()::get)
                .toolbox("ops", ToolBox.of(
                        effectTool("charge", "Charges an amount", "amount", effects, points),
                        effectTool("ship", "Ships a parcel", "parcel", effects, points),
                        effectTool("lookup", "Looks something up", "q", effects, points).idempotent(true)))
                .toolbox("notes", ToolBox.of(effectTool("note", "Notes a text", "text", effects, points)))
                .toolPolicy("lead", ToolPolicy.builder().ask("ship").build())
                .sessionStore(store).sessionWait(Duration.ofSeconds(60))
                .interceptors(new RunInterceptor() {
                    @Override
                    public ModelResponse interceptModelCall(ModelChain chain) {
                        RunInterceptor.ModelCall call = chain.call();
                        points.at(call.run().sessionId().orElse("-"), "model", step(call));
                        return chain.proceed(call.request());
                    }
                })
                .build();
    }

    /** {@code agent/turn/step} of a request, counted as the emulator counts them. */
    private static String step(RunInterceptor.ModelCall call) {
        int turn = 0;
        int step = 0;
        for (Message m : call.request().messages()) {
            if (m.role() == Role.USER && !m.text().isEmpty()) {
                turn++;
                step = 0;
            } else if (m.role() == Role.ASSISTANT) {
                step++;
            }
        }
        return call.run().agent().orElse("-") + "/" + turn + "/" + step;
    }

    /**
     * A tool whose effect is a line appended to a file outside the session: {@code <tool> <value>
     * <idempotency key>} in {@code <session>.effects} ({@code .lookups} for the idempotent lookup).
     */
    private static Tool effectTool(String name, String description, String field, Path effects, KillPoints points) {
        String schema = "{\"type\":\"object\",\"properties\":{\"" + field + "\":{}},\"required\":[\"" + field + "\"]}";
        return Tool.of(name, description, schema, (input, ctx) -> {
            String session = ctx.sessionId();
            String value = input.path(field).asString(input.path(field).toString());
            String key = ctx.idempotencyKey() == null ? "nokey" : ctx.idempotencyKey();
            append(effects.resolve(session + (name.equals("lookup") ? ".lookups" : ".effects")),
                    name + " " + value + " " + key);
            points.at(session, name.equals("note") ? "child" : "effect", name + "/" + callOf(ctx));
            return ToolOutput.text(switch (name) {
                case "charge" -> "charged " + value;
                case "ship" -> "shipped " + value;
                case "note" -> "noted " + value;
                default -> "found " + value;
            });
        });
    }

    private static String callOf(ToolContext ctx) {
        String key = ctx.idempotencyKey();
        return key == null ? "-" : key.substring(key.lastIndexOf('/') + 1);
    }

    private static void append(Path file, String line) {
        try {
            Files.writeString(file, line + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND,
                    StandardOpenOption.SYNC);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Announces each kill point and blocks the one the environment names, per session. */
    static final class KillPoints {
        private final Map<String, String> targets = new ConcurrentHashMap<>();
        private final Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();

        KillPoints(List<String> sessions, String killAt) {
            String[] entries = killAt.isBlank() ? new String[0] : killAt.split(",");
            for (int i = 0; i < entries.length && i < sessions.size(); i++) {
                if (!entries[i].equals("-")) {
                    targets.put(sessions.get(i), entries[i]);
                }
            }
        }

        void at(String session, String point, String detail) {
            int n = counts.computeIfAbsent(session + " " + point, k -> new AtomicInteger()).incrementAndGet();
            OUT.println("AT " + session + " " + point + " " + n + " " + detail);
            if ((point + ":" + n).equals(targets.get(session))) {
                OUT.println("BLOCKED " + session + " " + point + " " + n + " " + detail);
                while (true) {
                    LockSupport.park(this); // until the JVM is killed; an interrupt does not end it
                }
            }
        }
    }

    /** The session store, with kill points around its journal entries and its saves. */
    private record KillingStore(SessionStore store, KillPoints points) implements SessionStore {
        @Override
        public Lease open(String id, Duration wait) {
            return new KillingLease(store.open(id, wait), points);
        }

        @Override
        public List<String> ids() {
            return store.ids();
        }
    }

    private record KillingLease(SessionStore.Lease lease, KillPoints points) implements SessionStore.Lease {
        @Override
        public String id() {
            return lease.id();
        }

        @Override
        public Optional<SessionRecord> load() {
            return lease.load();
        }

        @Override
        public boolean save(SessionRecord record) {
            points.at(id(), "save", "v" + record.version());
            boolean saved = lease.save(record);
            points.at(id(), "saved", "v" + record.version());
            return saved;
        }

        @Override
        public void delete() {
            lease.delete();
        }

        @Override
        public void append(String entry) {
            String type = type(entry);
            if (type.equals("finished")) {
                points.at(id(), "returned", field(entry, "call"));
            }
            lease.append(entry);
            if (type.equals("model")) {
                points.at(id(), "recorded", field(entry, "agent"));
            } else if (type.equals("started")) {
                points.at(id(), "started", field(entry, "tool") + "/" + field(entry, "call"));
            }
        }

        @Override
        public List<String> journal() {
            return lease.journal();
        }

        @Override
        public void close() {
            lease.close();
        }

        private static String type(String entry) {
            Matcher m = TYPE.matcher(entry);
            return m.find() ? m.group(1) : "";
        }

        private static String field(String entry, String name) {
            return ModelEmulator.JSON.readTree(entry).path(name).asString("-");
        }
    }
}
