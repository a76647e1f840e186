package dev.shelly.coding;

import dev.shelly.agent.ToolPolicy;
import dev.shelly.chats.probe.NullProbe;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every public constructor and method of the coding toolbox refuses null with an
 * IllegalArgumentException naming the parameter, never a bare NullPointerException.
 */
class NullInputTest {
    private static final Path DIR;

    static {
        try {
            DIR = Files.createTempDirectory("shelly-coding-null");
            DIR.toFile().deleteOnExit();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static final Map<Class<?>, Supplier<Object>> BY_TYPE = Map.of(
            String.class, () -> "x",
            Path.class, () -> DIR,
            List.class, List::of,
            Duration.class, () -> Duration.ofSeconds(5),
            ToolPolicy.class, () -> ToolPolicy.ALLOW_ALL,
            ToolPolicy.Permission.class, () -> ToolPolicy.Permission.ASK,
            Workspace.class, () -> Workspace.of(DIR, List.of()),
            CodingTools.class, () -> CodingTools.builder(DIR).build(),
            CodingTools.Builder.class, () -> CodingTools.builder(DIR));
    private static final Map<String, Supplier<Object>> BY_NAME = Map.of(
            "tool", () -> CodingTools.RUN, "dir", () -> DIR, "path", () -> DIR);

    static Stream<Arguments> publicEntryPoints() {
        return NullProbe.cases(List.of(Workspace.class, CodingTools.class, CodingTools.Builder.class,
                RefusedException.class), new NullProbe.Samples(BY_TYPE, BY_NAME), Set.of()).stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("publicEntryPoints")
    void nullIsRefusedNamingTheParameter(Runnable probe, String parameter) {
        probe.run();
    }
}
