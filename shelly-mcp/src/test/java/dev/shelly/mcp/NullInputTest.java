package dev.shelly.mcp;

import dev.shelly.chats.probe.NullProbe;
import dev.shelly.chats.Part;
import dev.shelly.chats.Text;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolDefinition;
import dev.shelly.chats.ToolResult;
import dev.shelly.tools.RunValues;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolBoxes;
import dev.shelly.tools.ToolContext;
import dev.shelly.tools.ToolHandler;
import dev.shelly.tools.ToolOutput;
import dev.shelly.tools.TypedHandler;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;

/**
 * Every public constructor and method of the MCP client and server refuses null with an
 * IllegalArgumentException naming the parameter, never a bare NullPointerException.
 */
class NullInputTest {
    /** Parameters whose null is documented to mean something. */
    private static final Set<String> NULLABLE = Set.of(
            "Stdio.new.workingDirectory", "Stdio.withWorkingDirectory.directory",
            "Builder.onStderr.listener", "McpException.new.cause",
            "McpResource.new.title", "McpResource.new.description", "McpResource.new.mimeType",
            "McpPrompt.new.title", "McpPrompt.new.description", "Argument.new.description",
            "Contents.new.mimeType", "Contents.new.text", "Contents.new.blob",
            "Contents.text.mimeType", "Contents.blob.mimeType",
            "Link.new.description", "Link.new.mimeType", "Answer.new.content", "McpElicitation.new.caller", "Sampling.new.systemPrompt",
            "Sampling.new.caller", "Registration.new.clientSecret",
            "Reply.new.model", "Reply.new.stopReason", "Builder.preRegistered.clientSecret",
            "Tokens.new.refreshToken", "Tokens.new.expiresAt", "Tokens.new.scope");

    private static final String OBJECT = "{\"type\":\"object\"}";
    private static final Tool TOOL = Tool.of("t", "d", OBJECT, (in, ctx) -> ToolOutput.text("x"));

    record Input(String city) {}

    private static final Map<Class<?>, Supplier<Object>> BY_TYPE = Map.ofEntries(
            Map.entry(String.class, () -> "x"),
            Map.entry(Object.class, () -> "x"),
            Map.entry(List.class, List::of),
            Map.entry(Map.class, Map::of),
            Map.entry(Collection.class, List::of),
            Map.entry(Class.class, () -> Input.class),
            Map.entry(Duration.class, () -> Duration.ofSeconds(1)),
            Map.entry(Path.class, () -> Path.of(".")),
            Map.entry(Consumer.class, () -> (Consumer<Object>) x -> { }),
            Map.entry(Throwable.class, () -> new IllegalStateException("x")),
            Map.entry(Part.class, () -> new Text("x")),
            Map.entry(ToolCall.class, () -> new ToolCall("c1", "t", "{}")),
            Map.entry(ToolResult.class, () -> ToolResult.of("c1", "x")),
            Map.entry(ToolDefinition.class, () -> new ToolDefinition("t", "d", OBJECT)),
            Map.entry(JsonNode.class, () -> JsonNodeFactory.instance.objectNode()),
            Map.entry(ToolHandler.class, () -> (ToolHandler) (in, ctx) -> ToolOutput.text("x")),
            Map.entry(TypedHandler.class, () -> (TypedHandler<Input>) (in, ctx) -> ToolOutput.text("x")),
            Map.entry(ToolBox.Listener.class, () -> (ToolBox.Listener) box -> { }),
            Map.entry(Tool.class, () -> TOOL),
            Map.entry(ToolBox.class, () -> ToolBox.of(TOOL)),
            Map.entry(ToolBoxes.class, () -> ToolBoxes.of(ToolBox.of(TOOL))),
            Map.entry(ToolContext.class, () -> ToolContext.of("a")),
            Map.entry(RunValues.class, () -> RunValues.EMPTY),
            Map.entry(RunValues.Key.class, () -> RunValues.Key.of("k", String.class)),
            Map.entry(ToolOutput.class, () -> ToolOutput.text("x")),
            Map.entry(McpEndpoint.class, () -> McpEndpoint.stdio("sh")),
            Map.entry(McpEndpoint.Stdio.class, () -> McpEndpoint.stdio("sh")),
            Map.entry(McpEndpoint.Http.class, () -> McpEndpoint.http("http://127.0.0.1:1/mcp")),
            Map.entry(McpToolClient.Builder.class, () -> McpToolClient.builder(McpEndpoint.stdio("sh"))),
            Map.entry(McpToolServer.Builder.class, () -> McpToolServer.builder(ToolBox.of(TOOL))),
            Map.entry(McpToolServer.class, () -> McpToolServer.builder(ToolBox.of(TOOL)).build()),
            Map.entry(java.net.URI.class, () -> java.net.URI.create("http://127.0.0.1:1/mcp")),
            Map.entry(java.net.InetSocketAddress.class, () -> new java.net.InetSocketAddress("127.0.0.1", 0)),
            Map.entry(java.io.InputStream.class, () -> new java.io.ByteArrayInputStream(new byte[0])),
            Map.entry(java.io.OutputStream.class, java.io.ByteArrayOutputStream::new),
            Map.entry(McpToolServer.ArgumentCompleter.class, () -> (McpToolServer.ArgumentCompleter) (a, v) -> List.of()),
            Map.entry(McpResource.class, () -> new McpResource("test://r", "r", null, null, null, (u, v) -> List.of())),
            Map.entry(McpResource.Reader.class, () -> (McpResource.Reader) (u, v) -> List.of()),
            Map.entry(McpResource.Contents.class, () -> McpResource.Contents.text("test://r", null, "x")),
            Map.entry(McpPrompt.class, () -> new McpPrompt("p", null, null, List.of(), args -> List.of())),
            Map.entry(McpPrompt.Renderer.class, () -> (McpPrompt.Renderer) args -> List.of()),
            Map.entry(McpBlock.class, () -> new McpBlock.Text("x")),
            Map.entry(McpToolClient.class, NullInputTest::connectedClient),
            Map.entry(McpOAuth.class, () -> McpOAuth.builder().consent(url -> url).build()),
            Map.entry(McpOAuth.Builder.class, McpOAuth::builder),
            Map.entry(McpOAuth.Consent.class, () -> (McpOAuth.Consent) url -> url),
            Map.entry(McpOAuth.TokenStore.class, McpOAuth.TokenStore::inMemory),
            Map.entry(java.time.Instant.class, java.time.Instant::now),
            Map.entry(McpOAuth.Tokens.class, () -> new McpOAuth.Tokens("t", null, null, null)),
            Map.entry(McpElicitation.Action.class, () -> McpElicitation.Action.ACCEPT),
            Map.entry(McpElicitation.class, () -> new McpElicitation("s", "m", Map.of("type", "object"), null)),
            Map.entry(McpOAuth.Registration.class, () -> new McpOAuth.Registration("c", null, "none",
                    java.net.URI.create("http://127.0.0.1:1/callback"))),
            Map.entry(McpElicitation.Handler.class, () -> (McpElicitation.Handler) r -> McpElicitation.Answer.decline()),
            Map.entry(McpToolClient.Sampling.Handler.class, () -> (McpToolClient.Sampling.Handler) r -> new McpToolClient.Sampling.Reply("x", null, null)));
    private static final Map<String, Supplier<Object>> BY_NAME = Map.of(
            "name", () -> "t", "inputSchema", () -> OBJECT, "url", () -> "http://127.0.0.1:1/mcp",
            "schema", () -> OBJECT, "uri", () -> "test://r", "arguments", () -> "{}", "prefix", () -> "p_");

    /** A client's methods need one: it is connected to a server in this JVM, both closed after the tests. */
    private static final List<AutoCloseable> OPEN = new java.util.concurrent.CopyOnWriteArrayList<>();

    private static McpToolClient connectedClient() {
        McpToolServer server = McpToolServer.builder(ToolBox.of(TOOL)).build().startHttp(0);
        OPEN.add(server);
        McpToolClient client = McpToolClient.connect(McpEndpoint.http(server.url().orElseThrow().toString()));
        OPEN.add(client);
        return client;
    }

    @org.junit.jupiter.api.AfterAll
    static void closeClients() throws Exception {
        for (AutoCloseable open : OPEN.reversed()) {
            open.close();
        }
    }

    static Stream<Arguments> publicEntryPoints() {
        return NullProbe.cases(List.of(McpEndpoint.class, McpEndpoint.Stdio.class, McpEndpoint.Http.class,
                McpToolClient.class, McpToolClient.Builder.class, McpToolServer.class, McpToolServer.Builder.class,
                McpResource.class, McpResource.Contents.class, McpPrompt.class, McpPrompt.Argument.class,
                McpPrompt.Message.class, McpBlock.Text.class, McpBlock.Image.class, McpBlock.Audio.class,
                McpBlock.Embedded.class, McpBlock.Link.class, McpServerCall.class, McpElicitation.class,
                McpElicitation.Answer.class, McpToolClient.Sampling.class, McpToolClient.Sampling.Reply.class, McpOAuth.Builder.class,
                McpOAuth.Tokens.class, McpOAuth.Registration.class, McpOAuth.Consent.class),
                new NullProbe.Samples(BY_TYPE, BY_NAME), NULLABLE).stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("publicEntryPoints")
    void nullIsRefusedNamingTheParameter(Runnable probe, String parameter) {
        probe.run();
    }
}
