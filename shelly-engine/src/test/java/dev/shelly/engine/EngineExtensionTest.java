package dev.shelly.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.engine.config.AgentConfig;
import dev.shelly.engine.config.ConfigException;
import dev.shelly.engine.config.EngineConfig;
import dev.shelly.engine.config.ProviderConfig;
import dev.shelly.testing.ScriptedCompleter;
import dev.shelly.testing.Step;
import org.junit.jupiter.api.Test;

/** The sections a module starts with the engine ({@code console:}), and the ids of the open sessions. */
class EngineExtensionTest {
    private static EngineConfig.Builder config() {
        return EngineConfig.builder()
                .provider(ProviderConfig.builder("m", "openai", "gpt-test").apiKey("k").build())
                .agent(AgentConfig.builder("a").description("Answers").build());
    }

    @Test
    void aConsoleSectionWithoutTheConsoleModuleFailsTheBuildSayingWhatIsMissing() {
        EngineConfig config = config().console(new EngineConfig.Console(0, null, null)).build();
        assertThatThrownBy(() -> Engine.builder().config(config).completer("m", ScriptedCompleter.of()).build())
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("console: the console section needs dev.shelly:shelly-console on the class path");
    }

    @Test
    void withoutAConsoleSectionNothingListensToTheBus() {
        try (Engine engine = Engine.builder().config(config().build()).completer("m", ScriptedCompleter.of()).build()) {
            assertThat(engine.events().subscriberCount()).isZero();
        }
    }

    @Test
    void theOpenSessionsAreListedByIdUntilTheirLastHandleCloses() {
        try (Engine engine = Engine.builder().config(config().build())
                .completer("m", ScriptedCompleter.perChat(Step.reply("hi"))).build()) {
            assertThat(engine.openSessionIds()).isEmpty();
            Session b = engine.newSession("b-session");
            Session a = engine.newSession("a-session");
            Session again = engine.resume("a-session");
            assertThat(engine.openSessionIds()).containsExactly("a-session", "b-session");
            a.close();
            assertThat(engine.openSessionIds()).containsExactly("a-session", "b-session");
            again.close();
            b.close();
            assertThat(engine.openSessionIds()).isEmpty();
        }
    }
}
