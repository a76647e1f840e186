package dev.shelly.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.agent.ToolPolicy;
import dev.shelly.chats.ShellyException;
import dev.shelly.engine.config.AgentConfig;
import dev.shelly.engine.config.EngineConfig;
import dev.shelly.engine.config.ProviderConfig;
import dev.shelly.modeladapter.Usage;
import dev.shelly.storage.SessionNotFoundException;
import dev.shelly.testing.ScriptedCompleter;
import dev.shelly.testing.Step;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Sessions started with any configured agent, and saved sessions summed up without opening them. */
class SessionSummaryTest {
    private static final Instant T0 = Instant.parse("2026-11-28T10:00:00Z");

    @TempDir
    Path sessions;

    private final AtomicReference<Instant> now = new AtomicReference<>(T0);

    private Engine.Builder builder(Step... steps) {
        EngineConfig config = EngineConfig.builder()
                .provider(ProviderConfig.builder("m", "openai", "x").apiKey("k").build())
                .agent(AgentConfig.builder("lead").instructions("You lead.").toolboxes("state").build())
                .agent(AgentConfig.builder("reviewer").instructions("You review.").build())
                .entryAgent("lead")
                .build();
        Clock clock = new Clock() {
            @Override
            public ZoneOffset getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(java.time.ZoneId zone) {
                return this;
            }

            @Override
            public Instant instant() {
                return now.get();
            }
        };
        return Engine.builder().config(config).completer("m", ScriptedCompleter.of(steps)).sessionsDir(sessions)
                .clock(clock).sessionWait(Duration.ZERO)
                .toolPolicy("lead", ToolPolicy.builder().ask("shared_state_set").build());
    }

    @Test
    void aSessionStartsWithTheAgentNamedAndGoesOnWithIt() {
        String id;
        try (Engine engine = builder(Step.reply(r -> r.systemPrompt().orElse("")), Step.reply("again")).build()) {
            try (Session session = engine.newSessionWith("reviewer")) {
                assertThat(session.entryAgent()).isEqualTo("reviewer");
                assertThat(session.send("look").text()).contains("You review.");
                id = session.id();
            }
            try (Session session = engine.resume(id)) {
                assertThat(session.entryAgent()).isEqualTo("reviewer");
                assertThat(session.send("and?").text()).isEqualTo("again");
            }
            try (Session named = engine.newSession("review-1", "reviewer")) {
                assertThat(named.id()).isEqualTo("review-1");
                assertThat(named.entryAgent()).isEqualTo("reviewer");
            }
            assertThatThrownBy(() -> engine.newSessionWith("nobody")).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("no agent 'nobody'; configured agents: lead, reviewer");
            assertThatThrownBy(() -> engine.newSession(null, "reviewer")).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("Engine.newSession id must not be null");
            assertThat(engine.openSessions()).isZero();
        }
    }

    @Test
    void savedSessionsAreSummedUpWithoutOpeningThem() throws Exception {
        try (Engine engine = builder(
                Step.reply("one").withUsage(Usage.of(10, 2)),
                Step.reply("two").withUsage(Usage.of(20, 3)),
                Step.toolCall("shared_state_set", "{\"key\":\"k\",\"value\":\"v\"}").withUsage(Usage.of(5, 1))).build();
                Engine other = builder().build()) {
            String talk;
            try (Session session = engine.newSession()) {
                session.send("first");
                now.set(T0.plusSeconds(60));
                session.send("second");
                talk = session.id();
            }
            now.set(T0.plusSeconds(120));
            try (Session waiting = engine.newSessionWith("lead")) {
                assertThat(waiting.send("set it").paused()).isTrue();
                // Held by this engine: another engine sums it up without waiting for it.
                Session.Summary held = other.sessionSummary(waiting.id());
                assertThat(held.paused()).isTrue();
                assertThat(held.turns()).isEqualTo(1);
                assertThat(held.usage()).isEqualTo(Usage.of(5, 1));
                assertThat(other.sessionSummaries()).extracting(Session.Summary::id).containsExactly(talk, waiting.id());
            }

            Session.Summary summary = other.sessionSummary(talk);
            assertThat(summary.agent()).isEqualTo("lead");
            assertThat(summary.created()).isEqualTo(T0);
            assertThat(summary.lastUsed()).isEqualTo(T0.plusSeconds(60));
            assertThat(summary.turns()).isEqualTo(2);
            assertThat(summary.usage()).isEqualTo(Usage.of(30, 5));
            assertThat(summary.paused()).isFalse();
            assertThat(other.openSessions()).as("summing up opens nothing").isZero();

            assertThatThrownBy(() -> other.sessionSummary("20990101-000000-nothing"))
                    .isInstanceOf(SessionNotFoundException.class).hasMessage("no saved session '20990101-000000-nothing'");
            Files.writeString(sessions.resolve("broken.json"), "{ not json");
            assertThatThrownBy(() -> other.sessionSummary("broken")).isInstanceOf(ShellyException.class)
                    .hasMessageStartingWith("session file " + sessions.resolve("broken.json") + " is not a valid session");
            assertThat(other.sessionSummaries()).as("one that cannot be read is left out").hasSize(2);
        }
    }

    @Test
    void anEngineThatSavesNoSessionsHasNoSummaries() {
        try (Engine engine = Engine.builder().config(EngineConfig.builder()
                .provider(ProviderConfig.builder("m", "openai", "x").apiKey("k").build())
                .agent(AgentConfig.builder("lead").build()).build())
                .completer("m", ScriptedCompleter.of()).build()) {
            assertThat(engine.sessionSummaries()).isEmpty();
            assertThatThrownBy(() -> engine.sessionSummary("s")).isInstanceOf(SessionNotFoundException.class);
        }
    }
}
