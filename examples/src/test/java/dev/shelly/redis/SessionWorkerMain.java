package dev.shelly.redis;

import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.chats.Text;
import dev.shelly.engine.Engine;
import dev.shelly.engine.Session;
import dev.shelly.engine.config.AgentConfig;
import dev.shelly.engine.config.EngineConfig;
import dev.shelly.engine.config.ProviderConfig;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.ModelResponse;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * The other JVM of {@link RedisSessionsCrossProcessTest}: an engine whose sessions are in Redis,
 * which prints {@code READY}, waits for a line on stdin, then sends turns on one session and
 * prints {@code ACK <text>} when each has returned (and so was saved).
 *
 * <ul>
 *   <li>{@code turns <url> <prefix> <leaseMillis> <id> <count> <textPrefix>}: one resume, one
 *       turn and one close per request, as a service replica does; then {@code EXIT}.</li>
 *   <li>{@code hold <url> <prefix> <leaseMillis> <id> <count> <textPrefix>}: resumes once and sends
 *       turns on that one handle without ever closing it, then waits to be killed.</li>
 * </ul>
 */
public final class SessionWorkerMain {
    private SessionWorkerMain() {}

    /** An engine of one agent, {@code echo}, answering "re: " and the last message. */
    static Engine.Builder engine(RedisBackends redis) {
        EngineConfig config = EngineConfig.builder()
                .provider(ProviderConfig.builder("m", "openai", "x").apiKey("k").build())
                .agent(AgentConfig.builder("echo").description("Echoes").build())
                .build();
        return Engine.builder().config(config).completer("m", echo()).sessionStore(redis.sessions())
                .sessionWait(Duration.ofSeconds(60));
    }

    /** A model that answers "re: " and the last message. */
    static Completer echo() {
        return request -> ModelResponse.of(Message.of("model", Role.ASSISTANT,
                new Text("re: " + request.last().orElseThrow().text())));
    }

    /**
     * Runs one mode.
     *
     * @param args see the class comment
     * @throws Exception when the work fails; the exit code is then not 0
     */
    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        String id = args[4];
        int count = Integer.parseInt(args[5]);
        String prefix = args[6];
        try (RedisBackends redis = RedisBackends.builder(args[1]).keyPrefix(args[2])
                        .sessionLease(Duration.ofMillis(Long.parseLong(args[3]))).build();
                Engine engine = engine(redis).build()) {
            out.println("READY");
            new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
            if (args[0].equals("turns")) {
                for (int i = 0; i < count; i++) {
                    try (Session session = engine.resume(id)) {
                        session.send(prefix + i);
                    }
                    out.println("ACK " + prefix + i);
                }
            } else {
                Session session = engine.resume(id);
                for (int i = 0; i < count; i++) {
                    session.send(prefix + i);
                    out.println("ACK " + prefix + i);
                }
                out.println("HOLDING");
                Thread.sleep(Duration.ofMinutes(10));
            }
        }
        out.println("EXIT");
    }
}
