package dev.shelly.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import dev.shelly.tools.ToolContext;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The client's request metadata reaches the server's call wrapper in {@code _meta}, per call, over HTTP. */
@Timeout(60)
class RequestMetaTest {

    @Test
    void eachCallCarriesTheMetaOfItsCallingThreadAndTheWrapperRunsTheTool() throws Exception {
        List<String> seen = new CopyOnWriteArrayList<>();
        List<Map<String, Object>> metas = new CopyOnWriteArrayList<>();
        AtomicInteger n = new AtomicInteger();
        ThreadLocal<String> trace = new ThreadLocal<>();
        try (McpToolServer server = McpToolServer.builder(DemoTools.box())
                .callWrapper((tool, meta, call) -> {
                    seen.add(tool);
                    metas.add(meta);
                    ToolResult result = call.get();
                    return ToolResult.of(result.toolCallId(), result.text() + " [wrapped]");
                })
                .build().startHttp(0);
                McpToolClient client = McpToolClient.builder(McpEndpoint.http(server.url().orElseThrow().toString()))
                        .name("demo")
                        .requestMeta(() -> trace.get() == null ? Map.of()
                                : Map.of("traceparent", trace.get(), "n", n.incrementAndGet()))
                        .connect()) {
            trace.set("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
            ToolResult first = client.toolBox().call(new ToolCall("c1", "get_weather", "{\"city\":\"Oslo\"}"),
                    ToolContext.of("tester"));
            trace.remove();
            ToolResult second = client.toolBox().call(new ToolCall("c2", "get_weather", "{\"city\":\"Rome\"}"),
                    ToolContext.of("tester"));

            assertThat(first).isEqualTo(ToolResult.of("c1", "sunny in Oslo, 21 C [wrapped]"));
            assertThat(second).isEqualTo(ToolResult.of("c2", "sunny in Rome, 21 C [wrapped]"));
            assertThat(seen).containsExactly("get_weather", "get_weather");
            assertThat(metas).containsExactly(
                    Map.of("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "n", 1),
                    Map.of());
        }
    }

    @Test
    void requestMetaThatThrowsLeavesTheCallWithoutIt() throws Exception {
        List<Map<String, Object>> seen = new CopyOnWriteArrayList<>();
        try (McpToolServer server = McpToolServer.builder(DemoTools.box())
                .callWrapper((tool, meta, call) -> {
                    seen.add(meta);
                    return call.get();
                })
                .build().startHttp(0);
                McpToolClient client = McpToolClient.builder(McpEndpoint.http(server.url().orElseThrow().toString()))
                        .name("demo")
                        .requestMeta(() -> {
                            throw new IllegalStateException("no trace today");
                        })
                        .connect()) {
            ToolResult result = client.toolBox().call(new ToolCall("c1", "get_weather", "{\"city\":\"Oslo\"}"),
                    ToolContext.of("tester"));

            assertThat(result).isEqualTo(ToolResult.of("c1", "sunny in Oslo, 21 C"));
            assertThat(seen).containsExactly(Map.of());
        }
    }
}
