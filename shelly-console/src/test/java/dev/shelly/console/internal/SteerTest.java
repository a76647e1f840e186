package dev.shelly.console.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.agent.PendingCall;
import dev.shelly.agent.ToolPolicy;
import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.chats.Text;
import dev.shelly.chats.ToolCall;
import dev.shelly.engine.Engine;
import dev.shelly.engine.Session;
import dev.shelly.engine.Turn;
import dev.shelly.engine.config.AgentConfig;
import dev.shelly.engine.config.EngineConfig;
import dev.shelly.engine.config.ProviderConfig;
import dev.shelly.modeladapter.ModelTable;
import dev.shelly.testing.ScriptedCompleter;
import dev.shelly.testing.Step;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolOutput;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;

/** Answers that reach the console at the same time. */
@Timeout(120)
class SteerTest {
    private static final int ROUNDS = 200;

    @Test
    void twoAnswersAtOnceToAPausedTurnBothSucceedAndTheTurnGoesOnOnce() throws Exception {
        AtomicInteger resumed = new AtomicInteger();
        Step step = Step.answer(request -> {
            Message last = request.messages().getLast();
            if (last.role() == Role.USER) {
                return new Message("model", Role.ASSISTANT, List.of(new ToolCall("p1", "publish", "{\"n\":1}"),
                        new ToolCall("p2", "publish", "{\"n\":2}")));
            }
            resumed.incrementAndGet();
            return new Message("model", Role.ASSISTANT, List.of(new Text("done")));
        });
        EngineConfig config = EngineConfig.builder()
                .provider(ProviderConfig.builder("m", "openai", "claude-haiku-4-5").apiKey("not-a-real-key").build())
                .agent(AgentConfig.builder("lead").description("Leads").instructions("You lead.").toolboxes("w").build())
                .entryAgent("lead")
                .build();
        ToolBox tools = ToolBox.of(Tool.of("publish", "Publishes", "{\"type\":\"object\"}",
                (input, ctx) -> ToolOutput.text("published")));
        JsonNode approve = Views.JSON.readTree("{\"answer\":\"approve\"}");
        try (Engine engine = Engine.builder().config(config).completer("m", ScriptedCompleter.perChat(step, step, step))
                        .toolbox("w", tools).toolPolicy("lead", ToolPolicy.builder().ask("publish").build()).build();
                ExecutorService two = Executors.newFixedThreadPool(2)) {
            Steer steer = new Steer(engine, new Hub(new Board(ModelTable.defaults(), Clock.systemUTC()), 100));
            for (int round = 0; round < ROUNDS; round++) {
                try (Session session = engine.newSession()) {
                    Turn paused = session.submit("round " + round).get(30, TimeUnit.SECONDS);
                    assertThat(paused.paused()).isTrue();
                    List<String> ids = session.pending().stream().map(PendingCall::id).toList();
                    assertThat(ids).hasSize(2);
                    CyclicBarrier together = new CyclicBarrier(2);
                    List<Future<Boolean>> answers = ids.stream().map(id -> two.submit(() -> {
                        together.await();
                        return steer.answer(session.id(), id, approve);
                    })).toList();
                    int went = 0;
                    for (Future<Boolean> answer : answers) {
                        went += answer.get(30, TimeUnit.SECONDS) ? 1 : 0;
                    }
                    assertThat(went).as("round %d: answers that let the turn go on", round).isEqualTo(1);
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                    while (session.paused() || !session.chat().last().orElseThrow().text().equals("done")) {
                        assertThat(System.nanoTime()).as("round %d finishes", round).isLessThan(deadline);
                        Thread.sleep(5);
                    }
                }
            }
        }
        assertThat(resumed).as("turns that went on").hasValue(ROUNDS);
    }
}
