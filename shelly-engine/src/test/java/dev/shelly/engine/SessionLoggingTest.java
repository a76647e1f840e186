package dev.shelly.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.engine.config.AgentConfig;
import dev.shelly.engine.config.EngineConfig;
import dev.shelly.engine.config.ProviderConfig;
import dev.shelly.modeladapter.Usage;
import dev.shelly.testing.ScriptedCompleter;
import dev.shelly.testing.Step;
import dev.shelly.testing.logs.LogCapture;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.event.Level;

class SessionLoggingTest {
    private static final String KEY = "sk-test-0123456789abcdef";
    private static final String PROMPT = "my card number is 4111-1111";

    @Test
    void theLifecycleIsLoggedAtInfoWithIdsInTheMdcAndNeverAKeyOrAPrompt(@TempDir Path dir) {
        EngineConfig config = EngineConfig.builder()
                .provider(ProviderConfig.builder("m", "openai", "x").apiKey(KEY).build())
                .provider(ProviderConfig.builder("w", "openai", "x").apiKey(KEY).build())
                .agent(AgentConfig.builder("lead").provider("m").maxDelegationDepth(1).build())
                .agent(AgentConfig.builder("researcher").description("Finds").provider("w").build())
                .entryAgent("lead")
                .build();
        ScriptedCompleter lead = ScriptedCompleter.of(Step.delegate("researcher", PROMPT).withUsage(Usage.of(40, 4)),
                Step.reply("done").withUsage(Usage.of(50, 5)));
        ScriptedCompleter worker = ScriptedCompleter.perChat(Step.reply("found").withUsage(Usage.of(6, 1)));
        String id;
        Turn turn;
        List<LogCapture.Line> lines;
        try (LogCapture logs = LogCapture.start()) {
            try (Engine engine = Engine.builder().config(config).completer("m", lead).completer("w", worker)
                    .sessionsDir(dir).sessionWait(Duration.ofSeconds(5)).build()) {
                try (Session session = engine.newSession()) {
                    id = session.id();
                    turn = session.send(PROMPT);
                }
                engine.resume(id).close();
            }
            lines = logs.lines();
        }
        List<String> info = lines.stream().filter(l -> l.level().toInt() >= Level.INFO.toInt())
                .map(LogCapture.Line::message).toList();
        assertThat(info).containsExactly(
                "session " + id + " opened with agent 'lead'",
                "session " + id + " turn " + turn.id() + " finished in " + turn.took().toMillis()
                        + " ms; used 96 input, 10 output, 0 cache-read, 0 cache-write tokens, $0 (106 tokens unpriced)",
                "session " + id + " closed",
                "session " + id + " resumed with agent 'lead' (5 messages)",
                "session " + id + " closed");
        LogCapture.Line finished = lines.stream().filter(l -> l.message().contains(" finished in ")).findFirst().orElseThrow();
        assertThat(finished.mdc()).containsEntry(Session.MDC_SESSION, id).containsEntry(Session.MDC_TURN, turn.id());

        List<LogCapture.Line> requests = lines.stream().filter(l -> l.level() == Level.DEBUG
                && l.message().contains("asks its model")).toList();
        assertThat(requests).extracting(LogCapture.Line::message).containsExactlyInAnyOrder(
                "session " + id + ": agent 'lead' asks its model (iteration 1)",
                "session " + id + ": agent 'researcher' asks its model (iteration 1)",
                "session " + id + ": agent 'lead' asks its model (iteration 2)");
        assertThat(requests).as("the delegated agent's thread carries the ids too")
                .allSatisfy(l -> assertThat(l.mdc()).containsEntry(Session.MDC_SESSION, id)
                        .containsEntry(Session.MDC_TURN, turn.id()));
        assertThat(lines).noneMatch(l -> l.message().contains(KEY));
        assertThat(lines).noneMatch(l -> l.message().contains(PROMPT));
        assertThat(lines).filteredOn(l -> l.thread().startsWith("shelly-session-turn"))
                .allSatisfy(l -> assertThat(l.mdc()).containsKey(Session.MDC_SESSION));
    }

    @Test
    void aCancelledTurnIsLoggedAtInfoAndAFailedOneAtWarn(@TempDir Path dir) throws Exception {
        ScriptedCompleter model = ScriptedCompleter.of(Step.hang(),
                Step.fail(dev.shelly.modeladapter.ModelException.builder(dev.shelly.modeladapter.ModelException.Kind.SERVER)
                        .provider("scripted").build()));
        List<LogCapture.Line> lines;
        String id;
        try (LogCapture logs = LogCapture.start();
                Engine engine = Engine.builder().config(EchoEngines.config()).completer("m", model).sessionsDir(dir).build();
                Session session = engine.newSession()) {
            id = session.id();
            var hanging = session.submit("wait");
            assertThat(model.awaitCalls(1, Duration.ofSeconds(10))).isTrue();
            hanging.cancel(true);
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> session.send("fail"))
                    .isInstanceOf(dev.shelly.modeladapter.ModelException.class);
            lines = logs.lines();
        }
        assertThat(lines).filteredOn(l -> l.level() == Level.INFO && l.message().contains(" cancelled after "))
                .singleElement().satisfies(l -> assertThat(l.message()).startsWith("session " + id + " turn "));
        assertThat(lines).filteredOn(l -> l.level() == Level.WARN && l.message().contains(" failed after "))
                .singleElement().satisfies(l -> assertThat(l.message()).startsWith("session " + id + " turn ")
                        .contains("ModelException"));
    }
}
