package dev.shelly.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.engine.Engine;
import dev.shelly.engine.config.AgentConfig;
import dev.shelly.engine.config.EngineConfig;
import dev.shelly.engine.config.ProviderConfig;
import dev.shelly.storage.SessionRecord;
import dev.shelly.storage.spi.SessionStore;
import dev.shelly.testing.ScriptedCompleter;
import dev.shelly.testing.Step;
import dev.shelly.testing.logs.LogCapture;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.event.Level;

/** What the console answers when something of its own goes wrong. */
@Timeout(60)
class ConsoleErrorsTest {
    private static final String TOKEN = "test-token-0123456789abcdef";

    /** A store that lists nothing and cannot read a session. */
    private static final class BrokenStore implements SessionStore {
        @Override
        public Lease open(String id, Duration wait) {
            throw new UncheckedIOException(new IOException("/secret/sessions/" + id + ": disk on fire"));
        }

        @Override
        public List<String> ids() {
            return List.of();
        }

        @Override
        public Optional<SessionRecord> peek(String id) {
            throw new UncheckedIOException(new IOException("/secret/sessions/" + id + ": disk on fire"));
        }
    }

    private static Engine engine() {
        EngineConfig config = EngineConfig.builder()
                .provider(ProviderConfig.builder("m", "openai", Team.MODEL).apiKey("not-a-real-key").build())
                .agent(AgentConfig.builder("lead").description("Leads").instructions("You lead.").build())
                .entryAgent("lead")
                .build();
        return Engine.builder().config(config).completer("m", ScriptedCompleter.of(Step.reply("hi")))
                .sessionStore(new BrokenStore()).build();
    }

    @Test
    void aFailureOfItsOwnIsA500WithAShortBodyAndAWarning() throws Exception {
        try (Engine engine = engine();
                Console console = Console.start(engine, Console.Options.builder().port(0).token(TOKEN).build());
                HttpClient http = HttpClient.newHttpClient();
                LogCapture logs = LogCapture.start()) {
            HttpRequest request = HttpRequest.newBuilder(console.url().resolve("/api/sessions/broken"))
                    .timeout(Duration.ofSeconds(10)).header("Authorization", "Bearer " + TOKEN).GET().build();
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).isEqualTo(500);
            assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json; charset=utf-8");
            assertThat(response.body()).hasSizeLessThan(200).contains("\"error\"")
                    .doesNotContain("disk on fire", "/secret", "Exception", "\tat ");
            assertThat(logs.lines()).anySatisfy(line -> {
                assertThat(line.level()).isEqualTo(Level.WARN);
                assertThat(line.message()).contains("/api/sessions/broken");
                assertThat(line.error()).isInstanceOf(UncheckedIOException.class);
            });
        }
    }
}
