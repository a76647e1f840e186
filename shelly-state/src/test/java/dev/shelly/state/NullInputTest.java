package dev.shelly.state;

import dev.shelly.chats.probe.NullProbe;
import dev.shelly.state.spi.VersionedCells;
import dev.shelly.state.tasks.InMemoryTaskBackend;
import dev.shelly.state.tasks.Task;
import dev.shelly.state.tasks.TaskBackend;
import dev.shelly.state.tasks.TaskBoard;
import dev.shelly.state.tasks.TaskStatus;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
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
            "Task.new.assignee", "Task.new.leaseUntil", "Task.new.claim", "TaskBoard.create.description", "Task.new.createdBy", "Task.new.result", "TaskBoard.create.createdBy",
            "TaskBoard.list.status", "TaskBoard.list.assignee", "TaskBoard.update.result", "TaskBoard.update.actor",
            "TaskBoard.watch.from");

    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
    private static final Task TASK = new Task("t1", "title", "", TaskStatus.PENDING, null, null, null, NOW, NOW);

    private static final Map<Class<?>, Supplier<Object>> BY_TYPE = Map.ofEntries(
            Map.entry(String.class, () -> "x"),
            Map.entry(Duration.class, () -> Duration.ofMillis(1)),
            Map.entry(Instant.class, () -> NOW),
            Map.entry(Clock.class, Clock::systemUTC),
            Map.entry(JsonNode.class, () -> JsonNodeFactory.instance.objectNode()),
            Map.entry(UnaryOperator.class, () -> (UnaryOperator<JsonNode>) v -> v),
            Map.entry(TaskStatus.class, () -> TaskStatus.PENDING),
            Map.entry(Task.class, () -> TASK),
            Map.entry(StateBackend.class, InMemoryStateBackend::new),
            Map.entry(InMemoryStateBackend.class, InMemoryStateBackend::new),
            Map.entry(TaskBackend.class, InMemoryTaskBackend::new),
            Map.entry(InMemoryTaskBackend.class, InMemoryTaskBackend::new),
            Map.entry(Store.class, Store::new),
            Map.entry(TaskBoard.class, TaskBoard::new),
            Map.entry(ChangeSignal.class, ChangeSignal::new),
            Map.entry(Predicate.class, () -> (Predicate<Object>) stored -> true),
            Map.entry(Object.class, () -> "value"),
            Map.entry(VersionedCells.class, VersionedCells::new));
    private static final Map<String, Supplier<Object>> BY_NAME = Map.of("json", () -> "{}", "namespace", () -> "ns",
            "status", () -> TaskStatus.IN_PROGRESS);

    static Stream<Arguments> publicEntryPoints() {
        return NullProbe.cases(List.of(Store.class, InMemoryStateBackend.class, ChangeSignal.class, StateBackend.Entry.class,
                TaskBoard.class, Task.class, InMemoryTaskBackend.class, TaskStatus.class, VersionedCells.class,
                VersionedCells.Cell.class),
                new NullProbe.Samples(BY_TYPE, BY_NAME), NULLABLE).stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("publicEntryPoints")
    void nullIsRefusedNamingTheParameter(Runnable probe, String parameter) {
        probe.run();
    }
}
