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

        assertThat(McpQuestions.ask(new McpElicitation("weather", "Which city?", ONE_FIELD, ToolContext.of("helper")))
                .action()).isEqualTo(McpElicitation.Action.CANCEL);
    }

    @Test
    void anAnswerThatDoesNotFitTheSchemaIsAskedAgainSayingWhatIsWrong() throws Exception {
        Approvals approvals = Approvals.builder().build();
        ToolContext caller = new ToolContext("helper", null, 0, null, null, null,
                RunValues.EMPTY.with(RunContext.KEY, RunContext.builder().approvals(approvals).build()));
        Map<String, Object> schema = Map.of("type", "object", "properties", Map.of("count", Map.of("type", "integer")),
                "required", List.of("count"));
        CompletableFuture<McpElicitation.Answer> answer = asking(approvals, new McpElicitation("shop", "How many?", schema, caller));
        PendingCall first = approvals.unanswered().getFirst();
        assertThat(first.reason()).isEqualTo("MCP server 'shop' asks: How many? (a whole number)");
        approvals.answer(first.id(), Answer.reply("a dozen"));
        PendingCall second = next(approvals, first);
        assertThat(second.reason()).isEqualTo("That answer does not fit: count must be an integer, was a dozen.\n"
                + "MCP server 'shop' asks: How many? (a whole number)");
        approvals.answer(second.id(), Answer.reply(""));
        PendingCall third = next(approvals, second);
        assertThat(third.reason()).startsWith("That answer does not fit: count is required.");
        approvals.answer(third.id(), Answer.reply("12"));
        assertThat(answer.get(5, TimeUnit.SECONDS)).isEqualTo(McpElicitation.Answer.accept(Map.of("count", 12L)));
    }

    @Test
    void aFormOfSeveralFieldsIsShownFieldByFieldAndAnsweredWithJsonOptionsByTheirTitles() throws Exception {
        Approvals approvals = Approvals.builder().build();
        ToolContext caller = new ToolContext("helper", null, 0, null, null, null,
                RunValues.EMPTY.with(RunContext.KEY, RunContext.builder().approvals(approvals).build()));
        Map<String, Object> color = Map.of("type", "string", "oneOf", List.of(Map.of("const", "r", "title", "Red"),
                Map.of("const", "g", "title", "Green")), "default", "g");
        Map<String, Object> properties = new java.util.LinkedHashMap<>();
        properties.put("name", Map.of("type", "string", "description", "Your name"));
        properties.put("color", color);
        properties.put("subscribe", Map.of("type", "boolean"));
        Map<String, Object> form = Map.of("type", "object", "properties", properties, "required", List.of("name"));
        CompletableFuture<McpElicitation.Answer> answer = asking(approvals, new McpElicitation("shop", "Who are you?", form, caller));
        PendingCall question = approvals.unanswered().getFirst();
        assertThat(question.reason()).isEqualTo("""
                MCP server 'shop' asks: Who are you?
                Answer with a JSON object of:
                  name (required): Your name
                  color [one of: Red (r), Green (g); default: Green (g), given by an empty answer]
                  subscribe [yes or no]""");
        approvals.answer(question.id(), Answer.reply("{\"name\": \"Ada\", \"subscribe\": true}"));
        assertThat(answer.get(5, TimeUnit.SECONDS)).isEqualTo(McpElicitation.Answer.accept(Map.of("name", "Ada", "subscribe", true)));

        CompletableFuture<McpElicitation.Answer> picked = asking(approvals, new McpElicitation("shop", "Which color?",
                Map.of("type", "object", "properties", Map.of("color", color)), caller));
        PendingCall which = approvals.unanswered().getFirst();
        assertThat(which.reason()).isEqualTo("MCP server 'shop' asks: Which color? (one of: Red (r), Green (g); default: Green (g),"
                + " given by an empty answer)");
        approvals.answer(which.id(), Answer.reply("red"));
        assertThat(picked.get(5, TimeUnit.SECONDS)).isEqualTo(McpElicitation.Answer.accept(Map.of("color", "r")));
    }

    /** The question asked after the one given was answered. */
    private static PendingCall next(Approvals approvals, PendingCall answered) throws InterruptedException {
        while (true) {
            List<PendingCall> waiting = approvals.unanswered();
            if (!waiting.isEmpty() && !waiting.getFirst().id().equals(answered.id())) {
                return waiting.getFirst();
            }
            Thread.sleep(10);
        }
    }

    /** Asks "Which city?" on another thread, and returns once the question waits in the approvals. */
    private static CompletableFuture<McpElicitation.Answer> asking(Approvals approvals, ToolContext caller)
            throws InterruptedException {
        return asking(approvals, new McpElicitation("weather", "Which city?", ONE_FIELD, caller));
    }

    /** Asks on another thread, and returns once the question waits in the approvals. */
    private static CompletableFuture<McpElicitation.Answer> asking(Approvals approvals, McpElicitation request)
            throws InterruptedException {
        CompletableFuture<McpElicitation.Answer> answer = CompletableFuture.supplyAsync(() -> {
            try {
                return McpQuestions.ask(request);
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
