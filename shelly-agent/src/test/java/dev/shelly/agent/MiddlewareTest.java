package dev.shelly.agent;

import dev.shelly.agent.AgentException.AgentTimeoutException;
import dev.shelly.agent.AgentException.GuardrailException;
import dev.shelly.agent.AgentException.MaxIterationsException;
import static dev.shelly.agent.Fixtures.assertEveryCallAnsweredOnce;
import static dev.shelly.agent.Fixtures.tool;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.modeladapter.ModelException;
import dev.shelly.testing.ScriptedCompleter;
import dev.shelly.testing.Step;
import dev.shelly.testing.logs.LogCapture;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolOutput;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.event.Level;

@Timeout(30)
class MiddlewareTest {

    private static RunInterceptor tracing(String label, List<String> trace) {
        return new RunInterceptor() {
            @Override
            public Message interceptRun(RunChain chain) {
                trace.add(label + " in (" + chain.agent().name() + ")");
                try {
                    return chain.proceed();
                } finally {
                    trace.add(label + " out");
                }
            }
        };
    }

    @Test
    void theFirstMiddlewareIsTheOutermost() {
        List<String> trace = Collections.synchronizedList(new ArrayList<>());
        Agent a = Agent.builder("a").completer(ScriptedCompleter.of(Step.reply("ok")))
                .middleware(tracing("first", trace), tracing("second", trace))
                .middleware(tracing("third", trace))
                .build();

        a.run("go");

        assertThat(trace).containsExactly("first in (a)", "second in (a)", "third in (a)", "third out", "second out", "first out");
    }

    @Test
    void wrappedRunnersKeepTheNameAndChatAndAMiddlewareThatReturnsNullFailsTheRun() {
        Chat chat = new Chat();
        Agent a = Agent.builder("inner").completer(ScriptedCompleter.of(Step.reply("ok"))).chat(chat).build();

        Runner wrapped = Runner.around(a, a::run);

        assertThat(wrapped.name()).isEqualTo("inner");
        assertThat(wrapped.chat()).isSameAs(chat);
        RunInterceptor broken = new RunInterceptor() {
            @Override
            public Message interceptRun(RunChain chain) {
                return null;
            }

            @Override
            public String toString() {
                return "broken";
            }
        };
        Agent b = Agent.builder("b").completer(ScriptedCompleter.of(Step.reply("ok"))).middleware(broken).build();
        assertThatThrownBy(() -> b.run("go"))
                .isInstanceOf(AgentException.class)
                .hasMessage("interceptor 1 (broken) of agent 'b' returned null instead of a message");
    }

    // ------------------------------------------------------------------ timeout

    @RepeatedTest(3)
    void aTimeoutStopsAHangingModelWithAClearError() {
        ScriptedCompleter model = ScriptedCompleter.of(Step.hang());
        Agent a = Agent.builder("slowpoke").completer(model).timeout(Duration.ofMillis(100)).build();

        assertThatThrownBy(() -> a.run("go"))
                .isInstanceOf(AgentTimeoutException.class)
                .hasMessage("agent 'slowpoke' did not finish within 100 ms and was stopped")
                .satisfies(e -> assertThat(((AgentTimeoutException) e).limit()).isEqualTo(Duration.ofMillis(100)));
        assertThat(Thread.currentThread().isInterrupted()).isFalse();
    }

    @RepeatedTest(3)
    void aTimeoutMidToolAnswersEveryCall() {
        ToolBox box = ToolBox.of(tool("sleepy", (i, c) -> {
            Thread.sleep(60_000);
            return ToolOutput.text("never");
        }));
        ScriptedCompleter model = ScriptedCompleter.of(Step.toolCall("sleepy", "{}"), Step.reply("unreached"));
        // The limit leaves a loaded machine ample time to reach the tool call before it passes.
        Agent a = Agent.builder("a").completer(model).toolboxes(box)
                .timeout(Duration.ofSeconds(1)).build();

        assertThatThrownBy(() -> a.run("go")).isInstanceOf(AgentTimeoutException.class);

        assertEveryCallAnsweredOnce(a.chat());
        assertThat(a.chat().last().orElseThrow().toolResults().getFirst().text())
                .isEqualTo("tool 'sleepy' was cancelled before it finished");
    }

    @Test
    void aRunWithinItsTimeoutReturnsNormally() {
        Agent a = Agent.builder("a").completer(ScriptedCompleter.of(Step.reply("quick")))
                .timeout(Duration.ofSeconds(10)).build();

        assertThat(a.run("go").text()).isEqualTo("quick");
    }

    @Test
    void failuresInsideATimeoutPassThroughUnchanged() {
        ModelException auth = ModelException.builder(ModelException.Kind.AUTHENTICATION).build();
        Agent a = Agent.builder("a").completer(ScriptedCompleter.of(Step.fail(auth)))
                .timeout(Duration.ofSeconds(10)).build();

        assertThatThrownBy(() -> a.run("go")).isSameAs(auth);
    }

    @Test
    void interruptingTheCallerOfATimeoutCancelsTheRun() throws Exception {
        ScriptedCompleter model = ScriptedCompleter.of(Step.hang());
        Agent a = Agent.builder("a").completer(model).timeout(Duration.ofMinutes(5)).build();

        Fixtures.Background run = new Fixtures.Background(() -> a.run("go"));
        assertThat(model.awaitCalls(1, Duration.ofSeconds(10))).isTrue();
        run.interruptAndJoin();

        assertThat(run.error.get()).isInstanceOf(CancellationException.class);
        assertThat(run.interruptedAfter.get()).isTrue();
    }

    @Test
    void timeoutNeedsAPositiveLimit() {
        assertThatThrownBy(() -> Agent.builder("a").timeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Agent 'a' timeout must be positive, was PT0S");
    }

    // ------------------------------------------------------------------ recovery

    @Test
    void recoveryTurnsAnUnexpectedExceptionIntoAnAgentFailure() {
        IllegalStateException bug = new IllegalStateException("boom");
        Agent a = Agent.builder("fragile").completer(request -> {
            throw bug;
        }).middleware(RunInterceptor.recovery()).build();

        assertThatThrownBy(() -> a.run("go"))
                .isInstanceOf(AgentException.class)
                .hasMessage("agent 'fragile' failed unexpectedly: java.lang.IllegalStateException: boom")
                .hasCause(bug)
                .satisfies(e -> assertThat(((AgentException) e).agent()).isEqualTo("fragile"));
    }

    @Test
    void recoveryCatchesErrorsToo() {
        Agent a = Agent.builder("deep").completer(request -> {
            throw new StackOverflowError();
        }).middleware(RunInterceptor.recovery()).build();

        assertThatThrownBy(() -> a.run("go"))
                .isInstanceOf(AgentException.class)
                .hasMessage("agent 'deep' failed unexpectedly: java.lang.StackOverflowError");
    }

    @Test
    void recoveryLetsShellyFailuresAndCancellationThrough() {
        ModelException limit = ModelException.builder(ModelException.Kind.RATE_LIMITED).build();
        Agent model = Agent.builder("a").completer(ScriptedCompleter.of(Step.fail(limit)))
                .middleware(RunInterceptor.recovery()).build();
        Agent looping = Agent.builder("b").completer(ScriptedCompleter.of(Step.toolCall("x", "{}")))
                .maxIterations(1).middleware(RunInterceptor.recovery()).build();
        Agent cancelled = Agent.builder("c").completer(request -> {
            throw new CancellationException("stop");
        }).middleware(RunInterceptor.recovery()).build();

        assertThatThrownBy(() -> model.run("go")).isSameAs(limit);
        assertThatThrownBy(() -> looping.run("go")).isInstanceOf(MaxIterationsException.class);
        assertThatThrownBy(() -> cancelled.run("go")).isInstanceOf(CancellationException.class).hasMessage("stop");
    }

    // ------------------------------------------------------------------ logger

    @Test
    void theLoggerRecordsStartAndStopAndTheReplyOnlyAtDebug() {
        try (LogCapture log = LogCapture.start()) {
            Agent a = Agent.builder("logged").instructions("SECRET-PROMPT").completer(ScriptedCompleter.of(Step.reply("the answer")))
                    .middleware(RunInterceptor.logging(log.logger("test"))).build();

            a.run("USER-SECRET");

            List<String> lines = log.lines().stream().filter(l -> l.logger().equals("test"))
                    .map(LogCapture.Line::toString).toList();
            assertThat(lines).hasSize(3);
            assertThat(lines.get(0)).isEqualTo("INFO agent 'logged' started");
            assertThat(lines.get(1)).matches("INFO agent 'logged' finished in \\d+ ms");
            assertThat(lines.get(2)).isEqualTo("DEBUG agent 'logged' replied: the answer");
            assertThat(texts(log)).as("the run's own debug lines too").noneMatch(t -> t.contains("SECRET"));
        }
    }

    @Test
    void theLoggerRecordsFailuresWithTheirException() {
        try (LogCapture log = LogCapture.start()) {
            ModelException err = ModelException.builder(ModelException.Kind.SERVER).providerMessage("down").build();
            Agent a = Agent.builder("logged").completer(ScriptedCompleter.of(Step.fail(err)))
                    .middleware(RunInterceptor.logging(log.logger("test"))).build();

            assertThatThrownBy(() -> a.run("go")).isSameAs(err);

            LogCapture.Line last = log.lines().getLast();
            assertThat(last.level()).isEqualTo(Level.ERROR);
            assertThat(last.message()).matches("agent 'logged' failed after \\d+ ms: server: down");
            assertThat(last.error()).isSameAs(err);
        }
    }

    @Test
    void theLoggerRecordsCancellationAtInfo() throws Exception {
        try (LogCapture log = LogCapture.start()) {
            ScriptedCompleter model = ScriptedCompleter.of(Step.hang());
            Agent a = Agent.builder("logged").completer(model).middleware(RunInterceptor.logging(log.logger("test"))).build();

            Fixtures.Background run = new Fixtures.Background(() -> a.run("go"));
            assertThat(model.awaitCalls(1, Duration.ofSeconds(10))).isTrue();
            run.interruptAndJoin();

            assertThat(texts(log).getLast()).matches("INFO agent 'logged' was cancelled after \\d+ ms");
        }
    }

    // ------------------------------------------------------------------ guardrail

    @Test
    void theGuardrailRejectsAFinalMessageAndKeepsItInTheChat() {
        Agent a = Agent.builder("guarded").completer(ScriptedCompleter.of(Step.reply("the CONFIDENTIAL plan")))
                .middleware(RunInterceptor.outputGuardrail(reply -> reply.text().contains("CONFIDENTIAL")
                        ? Optional.of("output contains confidential information") : Optional.empty()))
                .build();

        assertThatThrownBy(() -> a.run("go"))
                .isInstanceOfSatisfying(GuardrailException.class, e -> {
                    assertThat(e.reason()).isEqualTo("output contains confidential information");
                    assertThat(e.rejected().text()).isEqualTo("the CONFIDENTIAL plan");
                    assertThat(e.agent()).isEqualTo("guarded");
                })
                .hasMessage("the output guardrail rejected the final message of agent 'guarded': "
                        + "output contains confidential information");
        assertThat(a.chat().last().orElseThrow().text()).isEqualTo("the CONFIDENTIAL plan");
    }

    @Test
    void theGuardrailLetsGoodMessagesPassAndTreatsAThrowingCheckAsARejection() {
        Agent good = Agent.builder("a").completer(ScriptedCompleter.of(Step.reply("fine")))
                .middleware(RunInterceptor.outputGuardrail(reply -> Optional.empty())).build();
        Agent broken = Agent.builder("b").completer(ScriptedCompleter.of(Step.reply("fine")))
                .middleware(RunInterceptor.outputGuardrail(reply -> {
                    throw new IllegalStateException("checker down");
                })).build();

        assertThat(good.run("go").text()).isEqualTo("fine");
        assertThatThrownBy(() -> broken.run("go"))
                .isInstanceOf(GuardrailException.class)
                .hasMessage("the output guardrail rejected the final message of agent 'b': the check itself failed: "
                        + "java.lang.IllegalStateException: checker down");
    }

    @Test
    void theSeedsStackComposes() {
        try (LogCapture log = LogCapture.start()) {
            CountDownLatch ran = new CountDownLatch(1);
            Agent a = Agent.builder("assistant").completer(request -> {
                ran.countDown();
                return dev.shelly.modeladapter.ModelResponse.of(
                        Message.text("x", dev.shelly.chats.Role.ASSISTANT, "CONFIDENTIAL"));
            }).timeout(Duration.ofSeconds(60)).middleware(
                    RunInterceptor.logging(log.logger("test")),
                    RunInterceptor.recovery(),
                    RunInterceptor.outputGuardrail(m -> m.text().contains("CONFIDENTIAL")
                            ? Optional.of("output contains confidential information") : Optional.empty()))
                    .build();

            assertThatThrownBy(() -> a.run("go")).isInstanceOf(GuardrailException.class);
            assertThat(ran.getCount()).isZero();
            assertThat(log.lines().getLast().level()).isEqualTo(Level.ERROR);
            assertThat(log.lines().getLast().error()).isInstanceOf(GuardrailException.class);
        }
    }

    @Test
    void aTimedOutRunThatIgnoresInterruptsIsAbandonedAfterTheGrace() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        Agent stubborn = Agent.builder("stubborn").completer(request -> {
            while (release.getCount() > 0) {
                try {
                    release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException ignored) {
                    // Deliberately ignores cancellation.
                }
            }
            return dev.shelly.modeladapter.ModelResponse.of(Message.text("x", dev.shelly.chats.Role.ASSISTANT, "late"));
        }).timeout(Duration.ofMillis(50)).build();

        long start = System.nanoTime();
        assertThatThrownBy(() -> stubborn.run("go")).isInstanceOf(AgentTimeoutException.class);
        release.countDown();

        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(20));
    }

    /** The lines of a capture as "LEVEL message". */
    private static List<String> texts(LogCapture log) {
        return log.lines().stream().map(LogCapture.Line::toString).toList();
    }
}
