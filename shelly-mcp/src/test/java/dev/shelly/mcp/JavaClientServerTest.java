package dev.shelly.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.chats.Image;
import dev.shelly.chats.Text;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolContext;
import dev.shelly.tools.ToolOutput;
import com.sun.net.httpserver.HttpServer;
import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.spec.McpSchema;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.json.JsonMapper;

/** Our client against our server: the behaviour an agent relies on, in-process over HTTP and as a subprocess over stdio. */
@Timeout(120)
class JavaClientServerTest {
    private static final ToolContext CTX = ToolContext.of("tester");

    private static ToolResult call(McpToolClient client, String tool, String arguments) {
        return client.toolBox().call(new ToolCall("c1", tool, arguments), CTX);
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as(what).isLessThan(deadline);
            Thread.sleep(20);
        }
    }

    @Test
    void toolsResultsErrorsAndListChangesOverHttp() throws Exception {
        ToolBox served = DemoTools.box();
        try (McpToolServer server = McpToolServer.builder(served).serverInfo("shelly-demo", "1.0.0")
                .instructions("Use get_weather for the weather.").build().startHttp(0);
                McpToolClient client = McpToolClient.builder(McpEndpoint.http(server.url().orElseThrow().toString()))
                        .name("demo").connect()) {
            assertThat(client.serverName()).isEqualTo("shelly-demo");
            assertThat(client.serverVersion()).isEqualTo("1.0.0");
            assertThat(client.instructions()).isEqualTo("Use get_weather for the weather.");
            assertThat(client.toolBox().definitions()).isEqualTo(served.definitions());

            assertThat(call(client, "get_weather", "{\"city\":\"Oslo\"}")).isEqualTo(ToolResult.of("c1", "sunny in Oslo, 21 C"));
            assertThat(call(client, "fail", "{}")).isEqualTo(ToolResult.error("c1", "this tool failed on purpose"));
            assertThat(call(client, "boom", "{}")).isEqualTo(ToolResult.error("c1", "tool 'boom' failed: kaboom"));
            assertThat(call(client, "whoami", "{}")).isEqualTo(ToolResult.of("c1", "agent=shelly depth=0"));
            assertThat(call(client, "tiny_image", "{}").content())
                    .containsExactly(new Text("a red dot"), Image.ofBytes(DemoTools.RED_DOT, "image/png"));

            served.register(Tool.of("added", "Added on the server", "{\"type\":\"object\"}", (in, ctx) -> ToolOutput.text("hello")));
            await(() -> client.toolBox().contains("added"), "the client follows tools/list_changed");
            assertThat(call(client, "added", "{}")).isEqualTo(ToolResult.of("c1", "hello"));
            served.remove("fail");
            await(() -> !client.toolBox().contains("fail"), "removed tools disappear");
            assertThat(client.toolBox().names()).containsExactly("get_weather", "boom", "tiny_image", "whoami", "print", "sleep",
                    "exit", "add_tool", "added");
        }
    }

    @Test
    void callsPastTheTimeoutAndInterruptedCallersReturnAtOnce() throws Exception {
        try (McpToolServer server = McpToolServer.builder(DemoTools.box()).build().startHttp(0);
                McpToolClient client = McpToolClient.builder(McpEndpoint.http(server.url().orElseThrow().toString()))
                        .name("demo").callTimeout(Duration.ofSeconds(2)).connect()) {
            assertThat(call(client, "sleep", "{\"millis\":10000}")).isEqualTo(ToolResult.error("c1",
                    "MCP server 'demo' did not answer tool 'sleep' within 2 s; the call was abandoned"));
            assertThat(call(client, "sleep", "{\"millis\":1}")).isEqualTo(ToolResult.of("c1", "slept 1 ms"));
        }
        try (McpToolServer server = McpToolServer.builder(DemoTools.box()).build().startHttp(0);
                McpToolClient client = McpToolClient.builder(McpEndpoint.http(server.url().orElseThrow().toString()))
                        .name("demo").connect()) {
            AtomicReference<ToolResult> result = new AtomicReference<>();
            AtomicBoolean flagKept = new AtomicBoolean();
            Thread caller = Thread.ofVirtual().start(() -> {
                result.set(call(client, "sleep", "{\"millis\":30000}"));
                flagKept.set(Thread.currentThread().isInterrupted());
            });
            Thread.sleep(300);
            caller.interrupt();
            assertThat(caller.join(Duration.ofSeconds(5))).as("the caller returns promptly").isTrue();
            assertThat(result.get()).isEqualTo(ToolResult.error("c1", "tool 'sleep' was cancelled before it finished"));
            assertThat(flagKept).isTrue();
        }
    }

    @Test
    void aServerThatCrashesGivesClearErrorsAndStdoutCarriesOnlyProtocol() throws Exception {
        try (McpToolClient client = McpToolClient.builder(McpPeers.demoServerEndpoint()).name("demo").connect()) {
            assertThat(call(client, "print", "{}")).isEqualTo(ToolResult.of("c1", "printed"));
            assertThat(call(client, "add_tool", "{}")).isEqualTo(ToolResult.of("c1", "registered late_tool"));
            await(() -> client.toolBox().contains("late_tool"), "the client follows tools/list_changed over stdio");
            assertThat(call(client, "late_tool", "{}")).isEqualTo(ToolResult.of("c1", "late_tool called"));
            assertThat(call(client, "get_weather", "{\"city\":\"Rome\",\"units\":\"FAHRENHEIT\"}"))
                    .isEqualTo(ToolResult.of("c1", "sunny in Rome, 70 F"));
            ToolResult crash = call(client, "exit", "{}");
            assertThat(crash.isError()).isTrue();
            assertThat(crash.text()).startsWith("MCP server 'demo' exited with code 3 while running tool 'exit'; its last lines on stderr: ")
                    .endsWith("demo server: exiting on request");
            assertThat(client.isOpen()).isFalse();
            ToolResult after = call(client, "get_weather", "{\"city\":\"Rome\"}");
            assertThat(after.text()).startsWith("MCP server 'demo' exited with code 3, so tool 'get_weather' cannot run; its last")
                    .endsWith("demo server: exiting on request");
        }
    }

    /**
     * The server closes its stdin before it answers the listing and exits a second later, so the
     * tool call's write fails with "Broken pipe" while the process still runs: the result must
     * still be the exit and its stderr, as when the exit is noticed first.
     */
    @Test
    void aBrokenPipeToAServerThatIsExitingReportsItsExit() {
        String id = "id=$(printf '%s' \"$line\" | sed -n 's/.*\"id\":\\(\"[^\"]*\"\\|[0-9][0-9]*\\).*/\\1/p'); ";
        String script = "read -r line; " + id
                + "printf '{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"protocolVersion\":\"2025-06-18\","
                + "\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"lingering\",\"version\":\"1\"}}}\\n' \"$id\"; "
                + "read -r line; read -r line; " + id
                + "exec 0<&-; "
                + "printf '{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"tools\":[{\"name\":\"t\",\"inputSchema\":{\"type\":\"object\"}}]}}\\n' \"$id\"; "
                + "echo 'lost my config' >&2; sleep 1; exit 3";
        McpEndpoint.Stdio lingering = new McpEndpoint.Stdio("sh", List.of("-c", script), Map.of(), null, false);
        try (McpToolClient client = McpToolClient.builder(lingering).name("lingering").connect()) {
            assertThat(client.toolBox().names()).containsExactly("t");
            assertThat(call(client, "t", "{}")).isEqualTo(ToolResult.error("c1",
                    "MCP server 'lingering' exited with code 3 while running tool 't'; its last lines on stderr: lost my config"));
        }
    }

    @Test
    void closingTheClientEndsTheServerProcess() throws Exception {
        McpToolClient client = McpToolClient.builder(McpPeers.demoServerEndpoint()).name("demo").connect();
        ProcessHandle process = client.process().orElseThrow();
        assertThat(process.isAlive()).isTrue();
        client.close();
        assertThat(process.isAlive()).isFalse();
        assertThat(call(client, "get_weather", "{\"city\":\"Rome\"}"))
                .isEqualTo(ToolResult.error("c1", "unknown tool 'get_weather'; available tools: none"));
    }

    @RepeatedTest(5)
    void serversThatCannotStartFailFastWithTheirStderr() {
        long start = System.nanoTime();
        assertThatThrownBy(() -> McpToolClient.builder(McpEndpoint.stdio("no-such-command-for-shelly")).name("missing").connect())
                .isInstanceOf(McpException.class)
                .hasMessageStartingWith("MCP server 'missing' could not be started (no-such-command-for-shelly): "
                        + "Cannot run program \"no-such-command-for-shelly\"");
        McpEndpoint.Stdio broken = new McpEndpoint.Stdio("sh", List.of("-c", "echo 'config file not found' >&2; exit 2"),
                Map.of(), null, false);
        assertThatThrownBy(() -> McpToolClient.builder(broken).name("broken").connect())
                .isInstanceOf(McpException.class)
                .hasMessage("MCP server 'broken' exited with code 2 before it could complete the initialize handshake;"
                        + " its last lines on stderr: config file not found");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("no waiting for the connect timeout").isLessThan(Duration.ofSeconds(10));
    }

    @Test
    void aServerThatNeverAnswersTheHandshakeTimesOutAndIsStopped() {
        McpEndpoint.Stdio silent = new McpEndpoint.Stdio("sh", List.of("-c", "exec sleep 600"), Map.of(), null, false);
        assertThatThrownBy(() -> McpToolClient.builder(silent).name("silent").connectTimeout(Duration.ofMillis(500))
                .shutdownGrace(Duration.ofMillis(200)).connect())
                .isInstanceOf(McpException.class)
                .hasMessage("MCP server 'silent' (stdio:sh -c exec sleep 600) did not complete the initialize handshake within 500 ms");
        assertThat(ProcessHandle.current().descendants().filter(ProcessHandle::isAlive)
                .map(p -> p.info().commandLine().orElse("")))
                .as("the silent server was stopped")
                .noneMatch(line -> line.contains("sleep 600"));
    }

    @Test
    void mcpNamesThatProvidersRejectAreMappedAndReachTheirTool() throws Exception {
        JacksonMcpJsonMapper mapper = new JacksonMcpJsonMapper(JsonMapper.builder().build());
        StreamableHttpHandler handler = new StreamableHttpHandler(mapper, "/mcp", true, Set.of(), Duration.ofMinutes(5));
        String longName = "x".repeat(70);
        McpSyncServer server = McpServer.sync(handler).serverInfo("raw-sdk-server", "1")
                .capabilities(McpSchema.ServerCapabilities.builder().tools(true).build())
                .toolCall(rawTool("files.read"), (exchange, request) -> answer("files.read"))
                .toolCall(rawTool("files_read"), (exchange, request) -> answer("files_read"))
                .toolCall(rawTool(longName), (exchange, request) -> answer("the long one"))
                .build();
        HttpServer http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        http.createContext("/mcp", handler);
        http.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        http.start();
        try (McpToolClient client = McpToolClient.builder(
                McpEndpoint.http("http://127.0.0.1:" + http.getAddress().getPort() + "/mcp")).connect()) {
            assertThat(client.toolBox().names()).containsExactly("files_read_601e4eb6", "files_read", "x".repeat(64));
            assertThat(call(client, "files_read_601e4eb6", "{}")).isEqualTo(ToolResult.of("c1", "called files.read"));
            assertThat(call(client, "files_read", "{}")).isEqualTo(ToolResult.of("c1", "called files_read"));
            assertThat(call(client, "x".repeat(64), "{}")).isEqualTo(ToolResult.of("c1", "called the long one"));
        } finally {
            server.close();
            http.stop(0);
        }
    }

    private static McpSchema.Tool rawTool(String name) {
        return McpSchema.Tool.builder(name, Map.of("type", "object")).description("a tool named " + name).build();
    }

    private static McpSchema.CallToolResult answer(String who) {
        return McpSchema.CallToolResult.builder().addTextContent("called " + who).build();
    }

    @Test
    void namesAndSettingsAreValidated() {
        assertThatThrownBy(() -> McpToolClient.builder(McpEndpoint.http("http://127.0.0.1:1/mcp")).toolNamePrefix("fs."))
                .hasMessage("McpToolClient toolNamePrefix 'fs.' is invalid: use at most 32 letters, digits, '_' or '-'");
        assertThatThrownBy(() -> McpToolClient.builder(McpEndpoint.http("http://127.0.0.1:1/mcp")).callTimeout(Duration.ZERO))
                .hasMessage("McpToolClient callTimeout must be positive, was PT0S");
        assertThatThrownBy(() -> McpToolClient.builder(McpEndpoint.http("http://127.0.0.1:1/mcp")).name("refused")
                .connectTimeout(Duration.ofSeconds(5)).connect())
                .isInstanceOf(McpException.class)
                .hasMessageStartingWith("MCP server 'refused' (http:http://127.0.0.1:1/mcp) did not complete the initialize handshake: ");
    }
}
