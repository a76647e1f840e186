package dev.shelly.chats;

import dev.shelly.chats.probe.NullProbe;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every public constructor and method of this module refuses null with an
 * IllegalArgumentException naming the parameter, never a bare NullPointerException.
 */
class NullInputTest {
    /** Parameters whose null is documented to mean something. */
    private static final Set<String> NULLABLE = Set.of(
            "Image.new.url", "Image.new.data", "Image.new.mediaType", "Message.new.metadata", "Thinking.new.signature", "Thinking.new.origin", "Thinking.withOrigin.value",
            "Thinking.of.signature", "ToolCall.new.arguments");

    private static final Map<Class<?>, Supplier<Object>> BY_TYPE = Map.ofEntries(
            Map.entry(String.class, () -> "x"),
            Map.entry(Object.class, () -> "x"),
            Map.entry(Role.class, () -> Role.USER),
            Map.entry(List.class, List::of),
            Map.entry(Map.class, Map::of),
            Map.entry(Class.class, () -> Text.class),
            Map.entry(byte[].class, () -> new byte[] {1}),
            Map.entry(Part.class, () -> new Text("x")),
            Map.entry(Text.class, () -> new Text("x")),
            Map.entry(Message.class, () -> Message.user("x")),
            Map.entry(Chat.class, Chat::new),
            Map.entry(Image.class, () -> Image.ofUrl("https://example.com/a.png")),
            Map.entry(Thinking.class, () -> new Thinking("x", "sig", false)),
            Map.entry(ToolCall.class, () -> new ToolCall("c1", "t", "{}")),
            Map.entry(ToolResult.class, () -> ToolResult.of("c1", "x")),
            Map.entry(ToolDefinition.class, () -> new ToolDefinition("t", "d", "{\"type\":\"object\"}")));
    private static final Map<String, Supplier<Object>> BY_NAME = Map.of("base64", () -> "AQID");

    static Stream<Arguments> publicEntryPoints() {
        return NullProbe.cases(List.of(Chat.class, Image.class, Message.class, Part.class, Role.class, Text.class,
                Thinking.class, ToolCall.class, ToolDefinition.class, ToolResult.class), new NullProbe.Samples(BY_TYPE, BY_NAME), NULLABLE).stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("publicEntryPoints")
    void nullIsRefusedNamingTheParameter(Runnable probe, String parameter) {
        probe.run();
    }
}
