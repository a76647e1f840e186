package dev.shelly.engine;

import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.chats.Text;
import dev.shelly.engine.config.AgentConfig;
import dev.shelly.engine.config.EngineConfig;
import dev.shelly.engine.config.ProviderConfig;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.Usage;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CancellationException;

/** Engines whose one agent echoes, for session tests here and in a second JVM. */
final class EchoEngines {
    /** The usage every echo reply reports. */
    static final Usage PER_REPLY = new Usage(10, 2, 1, 0);

    private EchoEngines() {}

    static EngineConfig config() {
        return EngineConfig.builder()
                .provider(ProviderConfig.builder("m", "openai", "x").apiKey("k").build())
                .agent(AgentConfig.builder("echo").description("Echoes").build())
                .build();
    }

    /** Answers "re: " and the last message, after a pause like a model's. */
    static Completer echo(Duration pause) {
        return request -> {
            if (!pause.isZero()) {
                try {
                    Thread.sleep(pause);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new CancellationException("echo interrupted");
                }
            }
            return ModelResponse.of(Message.of("model", Role.ASSISTANT,
                    new Text("re: " + request.last().orElseThrow().text()))).withUsage(PER_REPLY);
        };
    }

    static Engine.Builder builder(Path sessions, Duration pause) {
        return Engine.builder().config(config()).completer("m", echo(pause)).sessionsDir(sessions)
                .sessionWait(Duration.ofSeconds(60));
    }
}
