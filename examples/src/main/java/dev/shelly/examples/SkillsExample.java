package dev.shelly.examples;

import dev.shelly.agent.Agent;
import dev.shelly.chats.Message;
import dev.shelly.testing.Step;
import dev.shelly.skills.Skill;
import dev.shelly.tools.Description;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolOutput;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * An agent with skills (section 14.3): skill folders ({@code SKILL.md} plus supplementary files)
 * are loaded with {@link Skill#loadDir}; the agent's system prompt lists them, it loads one with
 * {@code load_skill}, and reads the skill's checklist with a tool of its own.
 *
 * <p>The skills ship inside the jar and are unpacked into a temporary folder for the run, so the
 * example works from any working directory.
 */
public final class SkillsExample implements Example {
    /** The skill files bundled as resources, relative to this class's package. */
    static final List<String> FILES = List.of(
            "code-review/SKILL.md", "code-review/checklist.md", "commit-message/SKILL.md");

    /** The input of {@code read_skill_file}. */
    record FileRequest(@Description("the skill's name, e.g. code-review") String skill,
            @Description("the file in the skill's folder, e.g. checklist.md") String file) {}

    @Override
    public String name() {
        return "skills";
    }

    @Override
    public String description() {
        return "an agent follows a code-review skill loaded from SKILL.md folders";
    }

    @Override
    public String defaultPrompt() {
        return """
                Review this Java method:

                int average(int[] values) {
                    int sum = 0;
                    for (int v : values) sum += v;
                    return sum / values.length;
                }""";
    }

    @Override
    public Message run(ExampleRun run) throws IOException {
        Path dir = unpack();
        try {
            // Every subfolder with a SKILL.md is a skill.
            List<Skill> skills = Skill.loadDir(dir);
            run.note("[skills] " + String.join(", ", skills.stream().map(Skill::name).toList())
                    + " (unpacked from the jar into " + dir + ")");

            Tool readSkillFile = Tool.typed("read_skill_file", "Read a supplementary file of one of your skills",
                    FileRequest.class, (in, ctx) -> read(skills, in));

            Agent agent = Agent.builder("tech-lead")
                    .description("Leads software work by following its skills")
                    .instructions("You lead software development. When a task matches one of your skills, load the "
                            + "skill with load_skill and follow it step by step.")
                    .completer(run.model(script()))
                    .skills(skills)
                    .toolboxes(ToolBox.of(readSkillFile))
                    .maxIterations(10)
                    .listener(run.listener())
                    .build();
            return agent.run(run.prompt(), run.scope());
        } finally {
            if (!delete(dir)) {
                run.note("[skills] could not delete the temporary folder " + dir);
            }
        }
    }

    static List<Step> script() {
        return List.of(
                Step.toolCall("load_skill", Scripts.object("name", "code-review"))
                        .withText("This is a code review; I'll follow my code-review skill."),
                Step.toolCall("read_skill_file", Scripts.object("skill", "code-review", "file", "checklist.md")),
                Step.reply("""
                        request changes
                        - Inputs: an empty array divides by zero (ArithmeticException); throw an \
                        IllegalArgumentException that says the array is empty, or return an OptionalDouble.
                        - Inputs: the int sum overflows for large values; add them up in a long.
                        - Failures: a null array fails with a bare NullPointerException; check it and say so.
                        - Tests: add tests for an empty array and for values near Integer.MAX_VALUE."""));
    }

    /** A file from a skill's folder; never outside it. */
    private static ToolOutput read(List<Skill> skills, FileRequest in) throws IOException {
        Skill skill = skills.stream().filter(s -> s.name().equals(in.skill())).findFirst().orElse(null);
        if (skill == null) {
            return ToolOutput.error("unknown skill '" + in.skill() + "'; skills: "
                    + String.join(", ", skills.stream().map(Skill::name).toList()));
        }
        Path file = skill.dir().resolve(in.file()).normalize();
        if (!file.startsWith(skill.dir()) || !Files.isRegularFile(file)) {
            try (Stream<Path> files = Files.list(skill.dir())) {
                return ToolOutput.error("skill '" + skill.name() + "' has no file '" + in.file() + "'; its files: "
                        + String.join(", ", files.map(p -> p.getFileName().toString()).sorted().toList()));
            }
        }
        return ToolOutput.text(Files.readString(file));
    }

    /** Copies the bundled skills into a new temporary folder. */
    static Path unpack() throws IOException {
        Path dir = Files.createTempDirectory("shelly-skills-");
        try {
            for (String name : FILES) {
                Path target = dir.resolve(name);
                Files.createDirectories(target.getParent());
                try (InputStream in = SkillsExample.class.getResourceAsStream("skills/" + name)) {
                    if (in == null) {
                        throw new NoSuchFileException("skills/" + name, null, "not bundled in the examples jar");
                    }
                    Files.copy(in, target);
                }
            }
            return dir;
        } catch (IOException | RuntimeException e) {
            delete(dir);
            throw e;
        }
    }

    /** Deletes a folder and everything in it; says whether that worked. */
    static boolean delete(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
            return true;
        } catch (IOException | UncheckedIOException e) {
            return false;
        }
    }
}
