package dev.shelly.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link Approvals#ask}: a question asked while a tool runs waits in pending() until it is answered. */
@Timeout(30)
class LiveQuestionTest {

    @Test
    void aQuestionWaitsAsAPendingQuestionUntilItIsReplied() throws Exception {
        Approvals approvals = Approvals.builder().build();
        List<PendingCall> announced = new CopyOnWriteArrayList<>();
        CompletableFuture<Answer> answer = CompletableFuture.supplyAsync(() -> {
            try {
                return approvals.ask("helper", "Which city?", Duration.ofSeconds(20), announced::add);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        while (approvals.unanswered().isEmpty()) {
            Thread.sleep(10);
        }
        PendingCall waiting = approvals.unanswered().getFirst();
        assertThat(waiting.id()).isEqualTo("ask-1");
        assertThat(waiting.kind()).isEqualTo(PendingCall.Kind.QUESTION);
        assertThat(waiting.agent()).isEqualTo("helper");
        assertThat(waiting.reason()).isEqualTo("Which city?");
        assertThat(waiting.call().name()).isEqualTo(AskUser.NAME);
        assertThat(waiting.call().arguments()).isEqualTo("{\"question\":\"Which city?\"}");
        assertThat(approvals.paused()).as("a live question does not pause the run").isFalse();
        assertThat(announced).containsExactly(waiting);
        assertThatThrownBy(() -> approvals.answer("ask-1", Answer.approve()))
                .hasMessageContaining("is a question of agent 'helper' (Which city?); answer it with Answer.reply(text)");
        approvals.answer("ask-1", Answer.reply("Paris"));
        assertThat(answer.get(5, TimeUnit.SECONDS)).isEqualTo(Answer.reply("Paris"));
        assertThat(approvals.pending()).isEmpty();
    }

    @Test
    void nobodyAnsweringInTimeIsADenial() throws Exception {
        Approvals approvals = Approvals.builder().build();
        assertThat(approvals.ask("helper", "Which city?", Duration.ofMillis(50), call -> { }))
                .isEqualTo(Answer.deny("nobody answered within 50 ms"));
        assertThat(approvals.pending()).isEmpty();
    }
}
