package dev.shelly.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.agent.AgentEvent;
import dev.shelly.agent.Answer;
import dev.shelly.agent.Approvals;
import dev.shelly.agent.PendingCall;
import dev.shelly.agent.RunContext;
import dev.shelly.mcp.McpElicitation;
import dev.shelly.mcp.McpToolClient;
import dev.shelly.tools.RunValues;
import dev.shelly.tools.ToolContext;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A server's elicitation becomes a question of the calling run's approvals ({@code elicitation: true});
 * its progress notifications become events of the calling run.
 */
@Timeout(30)
class McpElicitationTest {
    private static final Map<String, Object> ONE_FIELD = Map.of("type", "object",
            "properties", Map.of("city", Map.of("type", "string")), "required", List.of("city"));

    @Test
    void theQuestionWaitsInTheRunsApprovalsAndTheReplyIsTheAnswer() throws Exception {
        Approvals approvals = Approvals.builder().build();
        List<AgentEvent> events = new CopyOnWriteArrayList<>();
        RunContext run = RunContext.builder().approvals(approvals).listener(events::add).build();
        ToolContext caller = new ToolContext("helper", null, 0, null, null, null, RunValues.EMPTY.with(RunContext.KEY, run));
        CompletableFuture<McpElicitation.Answer> answer = asking(approvals, caller);
        PendingCall question = approvals.unanswered().getFirst();
        while (events.isEmpty()) {
            Thread.sleep(10);   // the question is announced right after it is registered
        }
        assertThat(question.kind()).isEqualTo(PendingCall.Kind.QUESTION);
        assertThat(question.agent()).isEqualTo("helper");
        assertThat(question.reason()).isEqualTo("MCP server 'weather' asks: Which city?");
        assertThat(events).singleElement().isEqualTo(new AgentEvent.DecisionNeeded(
                new AgentEvent.Source("helper", null, 0, null, null, null), question));
        approvals.answer(question.id(), Answer.reply("Lyon"));
        assertThat(answer.get(5, TimeUnit.SECONDS)).isEqualTo(McpElicitation.Answer.accept(Map.of("city", "Lyon")));
    }

    @Test
    void aDenyDeclinesAndARunWithoutApprovalsCancels() throws Exception {
        Approvals approvals = Approvals.builder().build();
        ToolContext caller = new ToolContext("helper", null, 0, null, null, null,
                RunValues.EMPTY.with(RunContext.KEY, RunContext.builder().approvals(approvals).build()));
        CompletableFuture<McpElicitation.Answer> answer = asking(approvals, caller);
        approvals.answer(approvals.unanswered().getFirst().id(), Answer.deny("not telling"));
        assertThat(answer.get(5, TimeUnit.SECONDS).action()).isEqualTo(McpElicitation.Action.DECLINE);

        assertThat(McpServers.askThePerson(new McpElicitation("weather", "Which city?", ONE_FIELD, ToolContext.of("helper")))
                .action()).isEqualTo(McpElicitation.Action.CANCEL);
    }

    /** Asks "Which city?" on another thread, and returns once the question waits in the approvals. */
    private static CompletableFuture<McpElicitation.Answer> asking(Approvals approvals, ToolContext caller)
            throws InterruptedException {
        CompletableFuture<McpElicitation.Answer> answer = CompletableFuture.supplyAsync(() -> {
            try {
                return McpServers.askThePerson(new McpElicitation("weather", "Which city?", ONE_FIELD, caller));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        while (approvals.unanswered().isEmpty()) {
            Thread.sleep(10);
        }
        return answer;
    }

    @Test
    void progressOfAToolCallIsAnEventOfTheCallingRun() {
        List<AgentEvent> events = new CopyOnWriteArrayList<>();
        RunContext run = RunContext.builder().listener(events::add).build();
        ToolContext caller = new ToolContext("helper", "lead", 1, "run-2", "run-1", "s-1", RunValues.EMPTY.with(RunContext.KEY, run));
        McpServers.announce(new McpToolClient.Progress("weather", "forecast", 50, 100.0, "half way", caller));
        McpServers.announce(new McpToolClient.Progress("weather", "forecast", 60, null, null, null));
        assertThat(events).containsExactly(new AgentEvent.ToolProgress(
                new AgentEvent.Source("helper", "lead", 1, "run-2", "run-1", "s-1"), "forecast", 50, 100.0, "half way"));
    }
}
