package dev.shelly.skills;

import dev.shelly.chats.probe.NullProbe;
import java.nio.file.Path;
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
    private static final Set<String> NULLABLE = Set.of("Skill.new.dir", "Skill.new.license", "Skill.new.compatibility",
            "Skill.new.allowedTools", "Skill.new.metadata", "Skill.new.frontmatter");

    private static final Map<Class<?>, Supplier<Object>> BY_TYPE = Map.of(
            String.class, () -> "x",
            Path.class, () -> Path.of("."),
            List.class, List::of,
            Map.class, Map::of);

    static Stream<Arguments> publicEntryPoints() {
        return NullProbe.cases(List.of(Skill.class), new NullProbe.Samples(BY_TYPE, Map.of("name", () -> "x",
                "dir", () -> Path.of("skill").toAbsolutePath())), NULLABLE)
                .stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("publicEntryPoints")
    void nullIsRefusedNamingTheParameter(Runnable probe, String parameter) {
        probe.run();
    }
}
