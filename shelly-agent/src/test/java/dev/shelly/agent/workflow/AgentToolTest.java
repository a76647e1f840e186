package dev.shelly.agent.workflow;

import static dev.shelly.agent.Fixtures.assertEveryCallAnsweredOnce;
import static dev.shelly.agent.Fixtures.tool;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import dev.shelly.agent.Agent;
import dev.shelly.agent.Fixtures;
import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import dev.shelly.modeladapter.ModelException;
import dev.shelly.testing.ScriptedCompleter;
import dev.shelly.testing.Step;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolContext;
import dev.shelly.tools.ToolOutput;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class AgentToolTest {

    private final List<Agent> made = Collections.synchronizedList(new ArrayList<>());

    private Tool researcherTool(ScriptedCompleter model) {
        return AgentTool.of("researcher", "Delegate a research task to a specialist", () -> {
            Agent a = Agent.builder("researcher").description("Finds facts").completer(model).build();
            made.add(a);
            return a;
        });
    }

    private static ToolResult call(Tool tool, String arguments) {
        return ToolBox.of(tool).call(new ToolCall("c1", tool.name(), arguments), ToolContext.of("lead"));
    }

    @Test
    void theTaskGoesInAndOnlyTheFinalTextComesOut() {
        ScriptedCompleter researcherModel = ScriptedCompleter.perChat(Step.toolCall("search", "{}"),
                Step.reply(chat -> "Found: " + chat.messages().get(1).text()));
        ScriptedCompleter leadModel = ScriptedCompleter.of(Step.toolCall("researcher", "{\"task\":\"find X\"}"),
                Step.reply(chat -> "lead saw: " + chat.last().orElseThrow().toolResults().getFirst().text()));
        Tool research = AgentTool.of("researcher", "Delegate a research task to a specialist", () -> {
            Agent a = Agent.builder("researcher").description("Finds facts").completer(researcherModel)
                    .toolboxes(ToolBox.of(tool("search", (i, c) -> ToolOutput.text("results")))).build();
            made.add(a);
            return a;
        });
        Agent lead = Agent.builder("lead").completer(leadModel).toolboxes(ToolBox.of(research)).build();

        Message answer = lead.run("What is X?");

        assertThat(answer.text()).isEqualTo("lead saw: Found: find X");
        assertThat(lead.chat().messages()).extracting(Message::role)
                .containsExactly(Role.SYSTEM, Role.USER, Role.ASSISTANT, Role.TOOL, Role.ASSISTANT);
        assertThat(made).hasSize(1);
        assertThat(made.getFirst().chat().messages()).extracting(Message::sender, Message::role, Message::text)
                .containsExactly(
                        tuple("system", Role.SYSTEM, "You are researcher. Finds facts"),
                        tuple("lead", Role.USER, "find X"),
                        tuple("researcher", Role.ASSISTANT, ""),
                        tuple("researcher", Role.TOOL, ""),
                        tuple("researcher", Role.ASSISTANT, "Found: find X"));
        assertThat(leadModel.requests().get(0).tools().getFirst().inputSchema()).contains("\"required\":[\"task\"]");
    }

    @RepeatedTest(3)
    void everyCallGetsAFreshRunnerAndTheCallsOfATurnRunConcurrently() {
        CyclicBarrier both = new CyclicBarrier(2);
        ScriptedCompleter researcherModel = ScriptedCompleter.perChat(Step.reply(chat -> {
            try {
                both.await(10, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new IllegalStateException("the two calls did not run at the same time", e);
            }
            return "done: " + chat.last().orElseThrow().text();
        }));
        ScriptedCompleter leadModel = ScriptedCompleter.of(Step.toolCalls(
                new Step.Call("researcher", "{\"task\":\"A\"}"), new Step.Call("researcher", "{\"task\":\"B\"}")),
                Step.reply("ok"));
        Agent lead = Agent.builder("lead").completer(leadModel).toolboxes(ToolBox.of(researcherTool(researcherModel)))
                .build();

        lead.run("go");

        assertThat(made).hasSize(2);
        assertThat(made.get(0).chat()).isNotSameAs(made.get(1).chat());
        assertThat(lead.chat().get(3).parts()).containsExactly(ToolResult.of("call_1", "done: A"),
                ToolResult.of("call_2", "done: B"));
    }

    @Test
    void failuresBecomeErrorResults() {
        ModelException down = ModelException.builder(ModelException.Kind.SERVER).providerMessage("down").build();
        assertThat(call(researcherTool(ScriptedCompleter.of(Step.fail(down))), "{\"task\":\"x\"}"))
                .isEqualTo(ToolResult.error("c1", "agent 'researcher' failed: " + down.getMessage()));
        assertThat(call(researcherTool(ScriptedCompleter.of()), "{}"))
                .isEqualTo(ToolResult.error("c1", "tool 'researcher' needs \"task\": what to do, as text"));
        assertThat(call(researcherTool(ScriptedCompleter.of()), "{\"task\": 3}"))
                .isEqualTo(ToolResult.error("c1", "tool 'researcher' needs \"task\": what to do, as text"));
        assertThat(call(AgentTool.of("t", "d", () -> null), "{\"task\":\"x\"}"))
                .isEqualTo(ToolResult.error("c1", "tool 't' could not make its runner: the factory returned null"));
        assertThat(call(AgentTool.of("t", "d", () -> {
            throw new IllegalStateException("no model configured");
        }), "{\"task\":\"x\"}"))
                .isEqualTo(ToolResult.error("c1", "tool 't' could not make its runner: no model configured"));
    }

    @RepeatedTest(3)
    void cancellingTheCallerCancelsTheRunnerAndAnswersEveryCallAtBothLevels() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        AtomicBoolean innerInterrupted = new AtomicBoolean();
        Tool research = AgentTool.of("researcher", "Research", () -> {
            Agent a = Agent.builder("researcher").completer(ScriptedCompleter.of(Step.toolCall("slow", "{}")))
                    .toolboxes(ToolBox.of(Fixtures.blockingTool("slow", started, () -> innerInterrupted.set(true))))
                    .build();
            made.add(a);
            return a;
        });
        Agent lead = Agent.builder("lead").toolboxes(ToolBox.of(research))
                .completer(ScriptedCompleter.of(Step.toolCall("researcher", "{\"task\":\"dig\"}"))).build();

        Fixtures.Background run = new Fixtures.Background(() -> lead.run("go"));
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        run.interruptAndJoin();

        assertThat(run.error.get()).isInstanceOf(CancellationException.class);
        assertThat(innerInterrupted.get()).isTrue();
        assertEveryCallAnsweredOnce(lead.chat());
        assertEveryCallAnsweredOnce(made.getFirst().chat());
        assertThat(lead.chat().last().orElseThrow().parts())
                .containsExactly(ToolResult.error("call_1", "tool 'researcher' was cancelled before it finished"));
    }
}
