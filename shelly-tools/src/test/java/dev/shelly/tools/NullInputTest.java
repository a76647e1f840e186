package dev.shelly.tools;

import dev.shelly.chats.probe.NullProbe;
import dev.shelly.chats.Part;
import dev.shelly.chats.Text;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolDefinition;
import dev.shelly.chats.ToolResult;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;

/**
 * Every public constructor and method of this module refuses null with an
 * IllegalArgumentException naming the parameter, never a bare NullPointerException.
 */
class NullInputTest {
    /** Parameters whose null is documented to mean something. */
    private static final Set<String> NULLABLE = Set.of(
            "Tool.new.timeout", "Tool.withTimeout.limit", "ToolContext.new.parent", "ToolContext.new.runId", "ToolContext.new.parentRunId",
            "ToolContext.new.sessionId", "ToolContext.new.idempotencyKey");

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
            Map.entry(ToolOutput.class, () -> ToolOutput.text("x")));
    private static final Map<String, Supplier<Object>> BY_NAME = Map.of(
            "name", () -> "t", "inputSchema", () -> OBJECT,
            "schema", () -> OBJECT, "arguments", () -> "{}", "prefix", () -> "p_");

    static Stream<Arguments> publicEntryPoints() {
        return NullProbe.cases(List.of(Tool.class, ToolBox.class, ToolBoxes.class, ToolContext.class,
                RunValues.class, RunValues.Key.class, ToolOutput.class,
                ToolResults.class, JsonSchemas.class),
                new NullProbe.Samples(BY_TYPE, BY_NAME), NULLABLE).stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("publicEntryPoints")
    void nullIsRefusedNamingTheParameter(Runnable probe, String parameter) {
        probe.run();
    }
}
