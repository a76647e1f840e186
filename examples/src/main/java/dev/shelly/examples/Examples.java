package dev.shelly.examples;

import java.util.List;
import java.util.Optional;

/** The examples the runnable jar knows, in the order {@code list} shows them. */
public final class Examples {
    private Examples() {}

    /**
     * Every example; a new one is added here.
     *
     * @return the examples, in order
     */
    public static List<Example> all() {
        return List.of(
                new ToolsExample(),
                new DelegationExample(),
                new SkillsExample(),
                new ConcurrentExample(),
                new MiddlewareExample(),
                new StateExample(),
                new TasksExample(),
                new RedisTasksExample(),
                new McpExample(),
                new ChatExample(),
                new PipelineExample(),
                new ParallelResearchExample(),
                new LlmTeamExample(),
                new SupportDeskExample(),
                new NestedTeamsExample(),
                new TriageExample(),
                new LongRunExample(),
                new ApprovalExample(),
                new CoderExample(),
                new ConsoleExample());
    }

    /**
     * The example of a name.
     *
     * @param examples the examples to look in
     * @param name the name
     * @return the example, or empty when none has that name
     */
    public static Optional<Example> find(List<Example> examples, String name) {
        return examples.stream().filter(e -> e.name().equals(name)).findFirst();
    }
}
