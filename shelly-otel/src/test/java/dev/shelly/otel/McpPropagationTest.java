package dev.shelly.otel;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.agent.Agent;
import dev.shelly.agent.RunContext;
import dev.shelly.mcp.McpEndpoint;
import dev.shelly.mcp.McpToolClient;
import dev.shelly.mcp.McpToolServer;
import dev.shelly.modeladapter.ModelTarget;
import dev.shelly.testing.ScriptedCompleter;
import dev.shelly.testing.Step;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolOutput;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanId;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Our MCP client sends the trace context in _meta; our MCP server continues it; in-process over HTTP. */
@Timeout(60)
class McpPropagationTest {
    final Fixture otel = new Fixture();
    final ShellyTelemetry telemetry = ShellyTelemetry.create(otel.sdk);
    final List<SpanContext> inServedTool = new CopyOnWriteArrayList<>();
    final List<Map<String, Object>> metas = new CopyOnWriteArrayList<>();

    @AfterEach
    void close() {
        otel.close();
    }

    ToolBox served() {
        return ToolBox.of(
                Tool.of("weather", "The weather", "{\"type\":\"object\"}", (in, ctx) -> {
                    inServedTool.add(Span.current().getSpanContext());
                    return ToolOutput.text("sunny");
                }),
                Tool.of("broken", "Fails", "{\"type\":\"object\"}", (in, ctx) -> ToolOutput.error("no forecast today")));
    }

    McpToolServer.CallWrapper recording() {
        return (tool, meta, call) -> {
            metas.add(meta);
            return telemetry.continueMcpCall(tool, meta, call);
        };
    }

    @Test
    void anAgentsMcpToolCallIsContinuedOnTheServerAsAChildOfItsExecuteToolSpan() throws Exception {
        try (McpToolServer server = McpToolServer.builder(served()).callWrapper(recording()).build().startHttp(0);
                McpToolClient client = McpToolClient.builder(McpEndpoint.http(server.url().orElseThrow().toString()))
                        .name("forecasts").requestMeta(telemetry::mcpMeta).connect()) {
            Agent agent = Agent.builder("a").toolboxes(client.toolBox())
                    .completer(new Fixture.Targeted(ScriptedCompleter.of(Step.toolCall("weather", "{}"),
                            Step.toolCall("broken", "{}"), Step.reply("done")), new ModelTarget("anthropic", "m")))
                    .build();

            agent.run("go", RunContext.builder().observers(telemetry).build());
        }

        SpanData caller = otel.span("execute_tool weather");
        SpanData servedCall = otel.span("tools/call weather");
        assertThat(servedCall.getKind()).isEqualTo(SpanKind.SERVER);
        assertThat(servedCall.getTraceId()).isEqualTo(caller.getTraceId());
        assertThat(servedCall.getParentSpanId()).isEqualTo(caller.getSpanId());
        assertThat(servedCall.getParentSpanContext().isRemote()).isTrue();
        assertThat(servedCall.getAttributes().asMap()).isEqualTo(Attributes.builder()
                .put("mcp.method.name", "tools/call")
                .put("gen_ai.tool.name", "weather")
                .put("gen_ai.operation.name", "execute_tool")
                .build().asMap());
        assertThat(inServedTool).singleElement().satisfies(sc -> assertThat(sc.getSpanId()).isEqualTo(servedCall.getSpanId()));
        assertThat(metas.getFirst()).containsOnlyKeys("traceparent");
        assertThat(metas.getFirst().get("traceparent")).isEqualTo("00-" + caller.getTraceId() + "-" + caller.getSpanId()
                + "-" + caller.getSpanContext().getTraceFlags().asHex());

        SpanData failed = otel.span("tools/call broken");
        assertThat(failed.getParentSpanId()).isEqualTo(otel.span("execute_tool broken").getSpanId());
        assertThat(failed.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(failed.getAttributes().asMap()).containsEntry(io.opentelemetry.api.common.AttributeKey.stringKey("error.type"),
                "tool_error");
    }

    @Test
    void aCallWithoutATraceStartsOneOnTheServer() throws Exception {
        try (McpToolServer server = McpToolServer.builder(served()).callWrapper(recording()).build().startHttp(0);
                McpToolClient client = McpToolClient.builder(McpEndpoint.http(server.url().orElseThrow().toString()))
                        .name("forecasts").requestMeta(telemetry::mcpMeta).connect()) {
            assertThat(client.toolBox().call(new dev.shelly.chats.ToolCall("c1", "weather", "{}"),
                    dev.shelly.tools.ToolContext.of("tester")).text()).isEqualTo("sunny");
        }

        assertThat(metas).containsExactly(Map.of());
        SpanData servedCall = otel.span("tools/call weather");
        assertThat(servedCall.getParentSpanId()).isEqualTo(SpanId.getInvalid());
        assertThat(otel.names()).containsExactly("tools/call weather");
    }
}
