package dev.shelly.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.engine.Engine;
import dev.shelly.engine.config.AgentConfig;
import dev.shelly.engine.config.ConfigException;
import dev.shelly.engine.config.EngineConfig;
import dev.shelly.engine.config.ProviderConfig;
import dev.shelly.testing.ScriptedCompleter;
import dev.shelly.testing.logs.LogCapture;
import java.io.IOException;
import java.net.ConnectException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.event.Level;

/** The console started by the engine from a {@code console:} section, and stopped with it. */
@Timeout(60)
class ConsoleConfigTest {
    private static final String TOKEN = "config-token-0123456789abcdef";

    private static EngineConfig config(EngineConfig.Console console) {
        return EngineConfig.builder()
                .provider(ProviderConfig.builder("m", "openai", "gpt-test").apiKey("k").build())
                .agent(AgentConfig.builder("a").description("Answers").build())
                .console(console)
                .build();
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @Test
    void aConsoleSectionStartsTheConsoleWithTheEngineAndClosingTheEngineStopsIt() throws Exception {
        int port = freePort();
        URI sessions = URI.create("http://127.0.0.1:" + port + "/api/sessions");
        try (HttpClient http = HttpClient.newHttpClient()) {
            try (Engine engine = Engine.builder().config(config(new EngineConfig.Console(port, null, TOKEN)))
                    .completer("m", ScriptedCompleter.of()).build()) {
                assertThat(engine.events().subscriberCount()).isEqualTo(1);
                HttpResponse<String> ok = http.send(HttpRequest.newBuilder(sessions).header("Authorization", "Bearer " + TOKEN)
                        .build(), HttpResponse.BodyHandlers.ofString());
                assertThat(ok.statusCode()).isEqualTo(200);
                assertThat(ok.body()).contains("\"sessions\":[]");
                assertThat(http.send(HttpRequest.newBuilder(sessions).build(), HttpResponse.BodyHandlers.ofString())
                        .statusCode()).isEqualTo(401);
            }
            assertThatThrownBy(() -> http.send(HttpRequest.newBuilder(sessions).build(), HttpResponse.BodyHandlers.ofString()))
                    .isInstanceOf(ConnectException.class);
        }
    }

    @Test
    void aPortInUseFailsTheBuildAtTheConsoleSection() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            assertThatThrownBy(() -> Engine.builder().config(config(new EngineConfig.Console(taken.getLocalPort(), null, TOKEN)))
                    .completer("m", ScriptedCompleter.of()).build())
                    .isInstanceOf(ConfigException.class)
                    .hasMessageContaining("console: the console could not start: cannot listen on 127.0.0.1:" + taken.getLocalPort());
        }
    }

    @Test
    void optionsInCodeAreCheckedAsTheConsoleSectionIs() {
        assertThatThrownBy(() -> Console.Options.builder().port(70_000).build())
                .hasMessage("Console.Options.port must be between 0 and 65535, was 70000");
        assertThatThrownBy(() -> Console.Options.builder().token("short").build())
                .hasMessage("Console.Options.token must have at least 16 characters");
        assertThatThrownBy(() -> Console.Options.builder().bind("no such host.invalid").build())
                .hasMessage("Console.Options.bind is not an address: no such host.invalid");
        assertThatThrownBy(() -> new EngineConfig.Console(null, "no such host.invalid", null))
                .hasMessage("bind: is not an address: no such host.invalid");
        Console.Options options = Console.Options.builder().token("  " + TOKEN + "  ").build();
        assertThat(options.token()).isEqualTo(TOKEN);
        assertThat(new EngineConfig.Console(null, null, "  " + TOKEN + "  ").token()).isEqualTo(TOKEN);
        assertThat(options.toString()).doesNotContain(TOKEN)
                .isEqualTo("Options[Console[port=7070, bind=127.0.0.1, token=set], clientBuffer=4096, history=4096]");
    }

    @Test
    void anAddressOtherThanLoopbackNeedsATokenAndIsWarnedAbout() throws Exception {
        assertThatThrownBy(() -> Console.Options.builder().bind("0.0.0.0").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("Console.Options.token is required when bind is not a loopback address (0.0.0.0)");
        assertThatThrownBy(() -> new EngineConfig.Console(0, "0.0.0.0", null))
                .hasMessageStartingWith("token: is required when bind is not a loopback address (0.0.0.0)");
        try (LogCapture logs = LogCapture.start();
                Engine engine = Engine.builder().config(config(null)).completer("m", ScriptedCompleter.of()).build()) {
            try (Console local = Console.start(engine, Console.Options.builder().port(0).token(TOKEN).build())) {
                assertThat(local.port()).isPositive();
                assertThat(logs.lines()).noneMatch(line -> line.level() == Level.WARN);
            }
            try (Console open = Console.start(engine, Console.Options.builder().bind("0.0.0.0").port(0).token(TOKEN)
                    .build())) {
                assertThat(logs.lines()).filteredOn(line -> line.level() == Level.WARN).singleElement()
                        .satisfies(line -> assertThat(line.message()).contains("0.0.0.0 port " + open.port(),
                                "not a loopback address", "plain HTTP").doesNotContain(TOKEN));
            }
        }
    }
}
