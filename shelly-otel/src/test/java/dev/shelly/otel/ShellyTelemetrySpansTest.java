package dev.shelly.otel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.agent.Agent;
import dev.shelly.agent.AgentEvent;
import dev.shelly.agent.Registry;
import dev.shelly.agent.RunContext;
import dev.shelly.agent.workflow.Selection;
import dev.shelly.agent.workflow.Team;
import dev.shelly.chats.ToolResult;
import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.ModelTable;
import dev.shelly.modeladapter.ModelTable.Price;
import dev.shelly.modeladapter.ModelTarget;
import dev.shelly.modeladapter.Usage;
import dev.shelly.testing.ScriptedCompleter;
import dev.shelly.testing.Step;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolOutput;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.SpanId;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class ShellyTelemetrySpansTest {
    static final ModelTarget SONNET = new ModelTarget("anthropic", "claude-sonnet-4-5");
    static final String OBJECT = "{\"type\":\"object\"}";

    final Fixture otel = new Fixture();
    final ShellyTelemetry telemetry = ShellyTelemetry.create(otel.sdk);
    /** The run id of each agent's run, as its events name it. */
    final Map<String, List<String>> runIds = new ConcurrentHashMap<>();

    @AfterEach
    void close() {
        otel.close();
    }

    RunContext scope(String session) {
        RunContext.Builder b = RunContext.builder().observers(telemetry).listener(e -> {
            if (e instanceof AgentEvent.AgentStarted s) {
                runIds.computeIfAbsent(s.source().agent(), k -> Collections.synchronizedList(new ArrayList<>()))
                        .add(s.source().runId());
            }
        });
        return session == null ? b.build() : b.sessionId(session).build();
    }

    static Tool tool(String name, String text) {
        return Tool.of(name, "Reads", OBJECT, (input, ctx) -> ToolOutput.text(text));
    }

    @Test
    void aRunIsAnInvokeAgentSpanAboveItsChatAndExecuteToolSpansWithTheConventionsAttributes() {
        Agent agent = Agent.builder("assistant").description("Answers questions")
                .toolboxes(ToolBox.of(tool("read_file", "file text")))
                .prices(ModelTable.empty().withPrice("claude-sonnet-4-5", Price.of(3, 15, 0.3, 3.75)))
                .completer(new Fixture.Targeted(ScriptedCompleter.of(
                        Step.respond(r -> Fixture.toolCall("call_1", "read_file", "{\"path\":\"a.txt\"}",
                                new Usage(100, 20, 300, 50, 0), "msg_1")),
                        Step.respond(r -> Fixture.reply("done", new Usage(10, 5, 400, 0, 3), "msg_2"))), SONNET))
                .build();

        agent.run("Read a.txt", scope("s-1"));

        assertThat(otel.names()).containsExactly("chat claude-sonnet-4-5", "execute_tool read_file",
                "chat claude-sonnet-4-5", "invoke_agent assistant");
        SpanData run = otel.span("invoke_agent assistant");
        assertThat(run.getKind()).isEqualTo(SpanKind.INTERNAL);
        assertThat(run.getParentSpanId()).isEqualTo(SpanId.getInvalid());
        assertThat(run.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
        assertThat(run.getAttributes().asMap()).isEqualTo(Attributes.builder()
                .put("gen_ai.operation.name", "invoke_agent")
                .put("gen_ai.provider.name", "anthropic")
                .put("gen_ai.agent.name", "assistant")
                .put("gen_ai.agent.description", "Answers questions")
                .put("gen_ai.request.model", "claude-sonnet-4-5")
                .put("gen_ai.conversation.id", "s-1")
                .put("shelly.run.id", runIds.get("assistant").getFirst())
                .put("shelly.delegation.depth", 0L)
                .put("gen_ai.usage.input_tokens", 860L)
                .put("gen_ai.usage.output_tokens", 25L)
                .put("gen_ai.usage.cache_read.input_tokens", 700L)
                .put("gen_ai.usage.cache_creation.input_tokens", 50L)
                .put("gen_ai.usage.reasoning.output_tokens", 3L)
                .build().asMap());

        List<SpanData> chats = otel.spans("chat claude-sonnet-4-5");
        for (SpanData chat : chats) {
            assertThat(chat.getKind()).isEqualTo(SpanKind.CLIENT);
            assertThat(chat.getParentSpanId()).isEqualTo(run.getSpanId());
            assertThat(chat.getTraceId()).isEqualTo(run.getTraceId());
        }
        assertThat(chats.getFirst().getAttributes().asMap()).isEqualTo(Attributes.builder()
                .put("gen_ai.operation.name", "chat")
                .put("gen_ai.provider.name", "anthropic")
                .put("gen_ai.request.model", "claude-sonnet-4-5")
                .put("gen_ai.conversation.id", "s-1")
                .put("gen_ai.response.model", "claude-sonnet-4-5-20250929")
                .put("gen_ai.response.id", "msg_1")
                .put(AttributeKey.stringArrayKey("gen_ai.response.finish_reasons"), List.of("tool_use"))
                .put("gen_ai.usage.input_tokens", 450L)
                .put("gen_ai.usage.output_tokens", 20L)
                .put("gen_ai.usage.cache_read.input_tokens", 300L)
                .put("gen_ai.usage.cache_creation.input_tokens", 50L)
                .build().asMap());
        assertThat(chats.getLast().getAttributes().get(AttributeKey.stringArrayKey("gen_ai.response.finish_reasons")))
                .containsExactly("end_turn");
        assertThat(chats.getLast().getAttributes().get(AttributeKey.longKey("gen_ai.usage.reasoning.output_tokens")))
                .isEqualTo(3L);

        SpanData tool = otel.span("execute_tool read_file");
        assertThat(tool.getKind()).isEqualTo(SpanKind.INTERNAL);
        assertThat(tool.getParentSpanId()).isEqualTo(run.getSpanId());
        assertThat(tool.getAttributes().asMap()).isEqualTo(Attributes.builder()
                .put("gen_ai.operation.name", "execute_tool")
                .put("gen_ai.tool.name", "read_file")
                .put("gen_ai.tool.call.id", "call_1")
                .put("gen_ai.tool.type", "function")
                .build().asMap());
    }

    /** top delegates to mid; mid delegates to two leaves at once; each leaf calls a tool. */
    @Test
    void aThreeLevelDelegationTreeHangsEachChildBelowTheDelegateCallThatStartedItAcrossVirtualThreads() {
        CyclicBarrier bothLeaves = new CyclicBarrier(2);
        ToolBox leafTools = ToolBox.of(Tool.of("lookup", "Looks up", OBJECT, (input, ctx) -> {
            bothLeaves.await(10, TimeUnit.SECONDS); // the two leaves run at the same time, on two threads
            return ToolOutput.text("found");
        }));
        Registry registry = new Registry()
                .register("mid", "Splits work", () -> Agent.builder("mid").maxDelegationDepth(2)
                        .completer(new Fixture.Targeted(ScriptedCompleter.of(
                                Step.delegate(new Step.Task("leaf", "part a", null), new Step.Task("leaf", "part b", null)),
                                Step.reply("mid done")), SONNET))
                        .build())
                .register("leaf", "Looks things up", () -> Agent.builder("leaf").toolboxes(leafTools)
                        .completer(new Fixture.Targeted(ScriptedCompleter.of(Step.toolCall("lookup", "{}"),
                                Step.reply("leaf done")), SONNET))
                        .build());
        Agent top = Agent.builder("top").registry(registry).maxDelegationDepth(2)
                .completer(new Fixture.Targeted(ScriptedCompleter.of(Step.delegate("mid", "do it"), Step.reply("top done")),
                        SONNET))
                .build();

        top.run("go", scope("s-2"));

        SpanData topRun = otel.span("invoke_agent top");
        SpanData midRun = otel.span("invoke_agent mid");
        List<SpanData> leafRuns = otel.spans("invoke_agent leaf");
        List<SpanData> delegates = otel.spans("execute_tool delegate");
        assertThat(leafRuns).hasSize(2);
        assertThat(delegates).hasSize(2);
        SpanData topDelegate = delegates.stream().filter(d -> d.getParentSpanId().equals(topRun.getSpanId()))
                .findFirst().orElseThrow();
        SpanData midDelegate = delegates.stream().filter(d -> d.getParentSpanId().equals(midRun.getSpanId()))
                .findFirst().orElseThrow();
        assertThat(topRun.getParentSpanId()).isEqualTo(SpanId.getInvalid());
        assertThat(midRun.getParentSpanId()).isEqualTo(topDelegate.getSpanId());
        assertThat(leafRuns).allSatisfy(leaf -> assertThat(leaf.getParentSpanId()).isEqualTo(midDelegate.getSpanId()));
        assertThat(otel.spans("execute_tool lookup")).hasSize(2).allSatisfy(lookup ->
                assertThat(leafRuns).extracting(SpanData::getSpanId).contains(lookup.getParentSpanId()));
        assertThat(otel.spans("execute_tool lookup")).extracting(SpanData::getParentSpanId).doesNotHaveDuplicates();
        assertThat(otel.finished()).extracting(SpanData::getTraceId).containsOnly(topRun.getTraceId());
        assertThat(otel.finished()).hasSize(4 + 4 + 2 * 4); // each run: invoke_agent, two chats, one tool

        assertThat(midRun.getAttributes().get(AttributeKey.longKey("shelly.delegation.depth"))).isEqualTo(1L);
        assertThat(midRun.getAttributes().get(AttributeKey.stringKey("shelly.parent_run.id")))
                .isEqualTo(runIds.get("top").getFirst());
        assertThat(leafRuns).allSatisfy(leaf -> {
            assertThat(leaf.getAttributes().get(AttributeKey.longKey("shelly.delegation.depth"))).isEqualTo(2L);
            assertThat(leaf.getAttributes().get(AttributeKey.stringKey("shelly.parent_run.id")))
                    .isEqualTo(runIds.get("mid").getFirst());
            assertThat(leaf.getAttributes().get(AttributeKey.stringKey("gen_ai.conversation.id"))).isEqualTo("s-2");
        });
        assertThat(topDelegate.getAttributes().get(AttributeKey.stringKey("gen_ai.tool.name"))).isEqualTo("delegate");
    }

    @Test
    void aTeamIsAnInvokeWorkflowSpanAboveItsMembersRunsAlsoWhenTheyRunConcurrently() {
        CyclicBarrier together = new CyclicBarrier(2);
        ToolBox meet = ToolBox.of(Tool.of("meet", "Meets", OBJECT, (input, ctx) -> {
            together.await(10, TimeUnit.SECONDS);
            return ToolOutput.text("met");
        }));
        Team team = Team.builder("crew")
                .member(Agent.builder("writer").toolboxes(meet).completer(new Fixture.Targeted(
                        ScriptedCompleter.of(Step.toolCall("meet", "{}"), Step.reply("draft")), SONNET)).build(), "writer")
                .member(Agent.builder("critic").toolboxes(meet).completer(new Fixture.Targeted(
                        ScriptedCompleter.of(Step.toolCall("meet", "{}"), Step.reply("notes")), SONNET)).build(), "critic")
                .coordinator(turn -> turn.step() == 0 ? Selection.of("writer", "critic") : Selection.DONE)
                .build();

        team.run("Write a poem", scope("s-3"));

        SpanData crew = otel.span("invoke_workflow crew");
        assertThat(crew.getKind()).isEqualTo(SpanKind.INTERNAL);
        assertThat(crew.getParentSpanId()).isEqualTo(SpanId.getInvalid());
        assertThat(crew.getAttributes().asMap()).isEqualTo(Attributes.builder()
                .put("gen_ai.operation.name", "invoke_workflow")
                .put("gen_ai.workflow.name", "crew")
                .put("gen_ai.conversation.id", "s-3")
                .build().asMap());
        SpanData writer = otel.span("invoke_agent writer");
        SpanData critic = otel.span("invoke_agent critic");
        assertThat(writer.getParentSpanId()).isEqualTo(crew.getSpanId());
        assertThat(critic.getParentSpanId()).isEqualTo(crew.getSpanId());
        assertThat(otel.spans("execute_tool meet")).extracting(SpanData::getParentSpanId)
                .containsExactlyInAnyOrder(writer.getSpanId(), critic.getSpanId());
        assertThat(otel.finished()).extracting(SpanData::getTraceId).containsOnly(crew.getTraceId());
    }

    @Test
    void aFailedModelCallMarksTheChatAndTheRunWithTheErrorsKind() {
        ModelException limited = ModelException.builder(ModelException.Kind.RATE_LIMITED).provider("anthropic").build();
        Agent agent = Agent.builder("a").completer(new Fixture.Targeted(ScriptedCompleter.of(Step.fail(limited)), SONNET))
                .build();

        assertThatThrownBy(() -> agent.run("go", scope(null))).isSameAs(limited);

        SpanData chat = otel.span("chat claude-sonnet-4-5");
        assertThat(chat.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(chat.getStatus().getDescription()).isEqualTo(limited.getMessage());
        assertThat(chat.getAttributes().asMap()).isEqualTo(Attributes.builder()
                .put("gen_ai.operation.name", "chat")
                .put("gen_ai.provider.name", "anthropic")
                .put("gen_ai.request.model", "claude-sonnet-4-5")
                .put("error.type", "rate_limited")
                .build().asMap());
        SpanData run = otel.span("invoke_agent a");
        assertThat(run.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(run.getAttributes().get(AttributeKey.stringKey("error.type"))).isEqualTo("rate_limited");
        assertThat(chat.getParentSpanId()).isEqualTo(run.getSpanId());
    }

    @Test
    void aToolsErrorResultIsAToolErrorOnItsSpan() {
        Agent agent = Agent.builder("a")
                .toolboxes(ToolBox.of(Tool.of("flaky", "Fails", OBJECT, (input, ctx) -> {
                    throw new IllegalStateException("disk on fire");
                })))
                .completer(new Fixture.Targeted(ScriptedCompleter.of(Step.toolCall("flaky", "{}"), Step.reply("sorry")),
                        SONNET))
                .build();

        agent.run("go", scope(null));

        SpanData tool = otel.span("execute_tool flaky");
        assertThat(tool.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(tool.getAttributes().get(AttributeKey.stringKey("error.type"))).isEqualTo("tool_error");
        assertThat(otel.span("invoke_agent a").getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
    }

    @Test
    void contentIsRecordedOnlyWhenTurnedOn() {
        ShellyTelemetry capturing = ShellyTelemetry.builder(otel.sdk).captureContent(true).build();
        Agent agent = Agent.builder("a").description("Reads files")
                .toolboxes(ToolBox.of(tool("read_file", "file text")))
                .completer(new Fixture.Targeted(ScriptedCompleter.of(
                        Step.respond(r -> Fixture.toolCall("call_1", "read_file", "{\"path\":\"a.txt\"}", Usage.ZERO, "m1")),
                        Step.respond(r -> Fixture.reply("It says: file text", Usage.ZERO, "m2"))), SONNET))
                .build();

        agent.run("Read a.txt", RunContext.builder().observers(capturing).build());

        List<SpanData> chats = otel.spans("chat claude-sonnet-4-5");
        assertThat(chats.getFirst().getAttributes().get(AttributeKey.stringKey("gen_ai.system_instructions")))
                .isEqualTo("[{\"type\":\"text\",\"content\":\"You are a. Reads files\"}]");
        assertThat(chats.getFirst().getAttributes().get(AttributeKey.stringKey("gen_ai.input.messages")))
                .isEqualTo("[{\"role\":\"user\",\"parts\":[{\"type\":\"text\",\"content\":\"Read a.txt\"}]}]");
        assertThat(chats.getFirst().getAttributes().get(AttributeKey.stringKey("gen_ai.output.messages")))
                .isEqualTo("[{\"role\":\"assistant\",\"parts\":[{\"type\":\"tool_call\",\"id\":\"call_1\","
                        + "\"name\":\"read_file\",\"arguments\":{\"path\":\"a.txt\"}}],\"finish_reason\":\"tool_use\"}]");
        assertThat(chats.getLast().getAttributes().get(AttributeKey.stringKey("gen_ai.input.messages")))
                .isEqualTo("[{\"role\":\"user\",\"parts\":[{\"type\":\"text\",\"content\":\"Read a.txt\"}]},"
                        + "{\"role\":\"assistant\",\"parts\":[{\"type\":\"tool_call\",\"id\":\"call_1\",\"name\":\"read_file\","
                        + "\"arguments\":{\"path\":\"a.txt\"}}]},"
                        + "{\"role\":\"tool\",\"parts\":[{\"type\":\"tool_call_response\",\"id\":\"call_1\","
                        + "\"response\":\"file text\"}]}]");
        SpanData tool = otel.span("execute_tool read_file");
        assertThat(tool.getAttributes().get(AttributeKey.stringKey("gen_ai.tool.call.arguments"))).isEqualTo("{\"path\":\"a.txt\"}");
        assertThat(tool.getAttributes().get(AttributeKey.stringKey("gen_ai.tool.call.result"))).isEqualTo("file text");

        otel.spans.reset();
        Agent quiet = Agent.builder("a").toolboxes(ToolBox.of(tool("read_file", "file text")))
                .completer(new Fixture.Targeted(ScriptedCompleter.of(Step.toolCall("read_file", "{\"path\":\"a.txt\"}"),
                        Step.reply("It says: file text")), SONNET))
                .build();
        quiet.run("Read a.txt", scope(null));
        assertThat(otel.finished()).allSatisfy(span -> assertThat(span.getAttributes().asMap().keySet())
                .extracting(AttributeKey::getKey)
                .doesNotContain("gen_ai.system_instructions", "gen_ai.input.messages", "gen_ai.output.messages",
                        "gen_ai.tool.call.arguments", "gen_ai.tool.call.result"));
    }

    @Test
    void aToolResultIsUnchangedByTracing() {
        Agent agent = Agent.builder("a").toolboxes(ToolBox.of(tool("read_file", "file text")))
                .completer(new Fixture.Targeted(ScriptedCompleter.of(Step.toolCall("read_file", "{}"), Step.reply("ok")),
                        SONNET))
                .build();

        agent.run("go", scope(null));

        assertThat(agent.chat().messages().get(3).toolResults()).containsExactly(ToolResult.of("call_1", "file text"));
    }

    @Test
    void aPausedRunIsNotAFailure() {
        Agent agent = Agent.builder("a").toolboxes(ToolBox.of(tool("delete", "deleted")))
                .interceptors(dev.shelly.agent.RunInterceptor.beforeToolCall(inv -> dev.shelly.agent.ToolDecision.pause("needs approval")))
                .completer(new Fixture.Targeted(ScriptedCompleter.of(Step.toolCall("delete", "{}")), SONNET))
                .build();

        assertThatThrownBy(() -> agent.run("go", scope(null))).isInstanceOf(dev.shelly.agent.RunPausedException.class);

        SpanData run = otel.span("invoke_agent a");
        assertThat(run.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
        assertThat(run.getAttributes().get(AttributeKey.booleanKey("shelly.run.paused"))).isTrue();
        assertThat(run.getAttributes().get(AttributeKey.stringKey("error.type"))).isNull();
        assertThat(otel.names()).containsExactly("chat claude-sonnet-4-5", "invoke_agent a");
    }
}
