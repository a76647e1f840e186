package dev.shelly.skills;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SkillTest {

    @TempDir
    Path tmp;

    private Path skill(String folder, String text) throws IOException {
        Path dir = tmp.resolve(folder);
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("SKILL.md"), text, StandardCharsets.UTF_8);
        return dir;
    }

    @Test
    void loadsAllStandardFieldsAndTheBody() throws IOException {
        Path dir = skill("code-review", """
                ---
                name: code-review
                description: How to review a change
                license: Apache-2.0
                compatibility: needs git
                allowed-tools: read_file  grep
                metadata:
                  author: shelly
                  version: 1.10
                user-invocable: false
                ---

                1. Read the diff.
                2. Say what breaks.

                """);

        Skill s = Skill.load(dir);

        assertThat(s.name()).isEqualTo("code-review");
        assertThat(s.description()).isEqualTo("How to review a change");
        assertThat(s.content()).isEqualTo("1. Read the diff.\n2. Say what breaks.");
        assertThat(s.dir()).isEqualTo(dir.toAbsolutePath().normalize());
        assertThat(s.license()).isEqualTo("Apache-2.0");
        assertThat(s.compatibility()).isEqualTo("needs git");
        assertThat(s.allowedTools()).containsExactly("read_file", "grep");
        assertThat(s.metadata()).containsExactly(Map.entry("author", "shelly"), Map.entry("version", "1.10"));
        assertThat(s.frontmatter()).containsEntry("user-invocable", "false")
                .containsEntry("metadata", Map.of("author", "shelly", "version", "1.10"))
                .containsKeys("name", "description", "license", "compatibility", "allowed-tools");
    }

    @Test
    void aFileWithoutFrontmatterIsAllContentAndHasNoDescription() throws IOException {
        Path dir = skill("plain", "Just do it.\n\nCarefully.\n");

        Skill s = Skill.load(dir);

        assertThat(s.name()).isEqualTo("plain");
        assertThat(s.description()).isEmpty();
        assertThat(s.content()).isEqualTo("Just do it.\n\nCarefully.");
        assertThat(s.frontmatter()).isEmpty();
        assertThat(s.allowedTools()).isEmpty();
        assertThat(s.license()).isNull();
    }

    @Test
    void theSeedsExampleWithOnlyADescriptionLoads() throws IOException {
        Path dir = skill("orchestration", """
                ---
                description: Orchestration procedures for complex tasks
                ---
                When you receive a complex task:
                1. Break it into subtasks
                """);

        Skill s = Skill.load(dir);

        assertThat(s.description()).isEqualTo("Orchestration procedures for complex tasks");
        assertThat(s.content()).isEqualTo("When you receive a complex task:\n1. Break it into subtasks");
    }

    @Test
    void windowsLineEndsAndAByteOrderMarkAreNormalised() throws IOException {
        Path dir = skill("crlf", "\uFEFF---\r\ndescription: d\r\n---\r\nline one\r\nline two\r\n");

        Skill s = Skill.load(dir);

        assertThat(s.description()).isEqualTo("d");
        assertThat(s.content()).isEqualTo("line one\nline two");
    }

    @Test
    void allowedToolsMayBeAYamlList() throws IOException {
        Path dir = skill("listed", "---\nallowed-tools: [read_file, \"grep\"]\n---\nx\n");

        assertThat(Skill.load(dir).allowedTools()).containsExactly("read_file", "grep");
    }

    @Test
    void emptyFrontmatterIsAllowed() throws IOException {
        Path dir = skill("empty", "---\n---\nbody\n");

        Skill s = Skill.load(dir);

        assertThat(s.description()).isEmpty();
        assertThat(s.content()).isEqualTo("body");
    }

    @Test
    void aNameDifferentFromTheFolderIsAnErrorNamingBoth() throws IOException {
        Path dir = skill("review", "---\nname: code-review\n---\nx\n");
        Path file = dir.resolve("SKILL.md").toAbsolutePath().normalize();

        assertThatThrownBy(() -> Skill.load(dir))
                .isInstanceOf(SkillException.class)
                .hasMessage("invalid " + file + ": the frontmatter names the skill 'code-review' but its folder is "
                        + "named 'review'; the Agent Skills standard requires them to be equal, so rename one of them")
                .extracting(e -> ((SkillException) e).path()).isEqualTo(file);
    }

    @Test
    void malformedYamlFailsWithTheFileLineAndReason() throws IOException {
        Path dir = skill("broken", "---\ndescription: ok\nname: a: b\n---\nx\n");
        Path file = dir.resolve("SKILL.md").toAbsolutePath().normalize();

        assertThatThrownBy(() -> Skill.load(dir))
                .isInstanceOf(SkillException.class)
                .hasMessage("invalid " + file + ": frontmatter line 3, column 8: mapping values are not allowed here");
    }

    @Test
    void unclosedFrontmatterFails() throws IOException {
        Path dir = skill("open", "---\ndescription: d\nbody without end\n");
        Path file = dir.resolve("SKILL.md").toAbsolutePath().normalize();

        assertThatThrownBy(() -> Skill.load(dir))
                .isInstanceOf(SkillException.class)
                .hasMessage("invalid " + file + ": the frontmatter opened by '---' on line 1 is never closed; "
                        + "end it with a line holding only '---'");
    }

    @Test
    void frontmatterThatIsNotAMappingFails() throws IOException {
        Path dir = skill("list", "---\n- a\n- b\n---\nx\n");

        assertThatThrownBy(() -> Skill.load(dir))
                .hasMessageEndingWith(": the frontmatter must be a YAML mapping of fields (name: value), not a list");
    }

    @Test
    void fieldsOfTheWrongTypeFailNamingTheField() throws IOException {
        Path description = skill("d", "---\ndescription: [a, b]\n---\nx\n");
        Path metadata = skill("m", "---\nmetadata: text\n---\nx\n");
        Path nested = skill("n", "---\nmetadata:\n  deep: {a: b}\n---\nx\n");
        Path tools = skill("t", "---\nallowed-tools: {a: b}\n---\nx\n");
        Path twice = skill("w", "---\nlicense: a\nlicense: b\n---\nx\n");

        assertThatThrownBy(() -> Skill.load(description))
                .hasMessageEndingWith(": the frontmatter field 'description' must be text, not a list");
        assertThatThrownBy(() -> Skill.load(metadata))
                .hasMessageEndingWith(": the frontmatter field 'metadata' must be a mapping of names to text, not text");
        assertThatThrownBy(() -> Skill.load(nested))
                .hasMessageEndingWith(": the frontmatter field 'metadata.deep' must be text, not a mapping");
        assertThatThrownBy(() -> Skill.load(tools))
                .hasMessageEndingWith(": the frontmatter field 'allowed-tools' must be space-separated tool names "
                        + "or a list of them, not a mapping");
        assertThatThrownBy(() -> Skill.load(twice))
                .hasMessageEndingWith(": the frontmatter has the field 'license' twice");
    }

    @Test
    void missingFolderOrFileIsReported() throws IOException {
        Path missing = tmp.resolve("nope");
        Path empty = Files.createDirectories(tmp.resolve("empty-folder"));

        assertThatThrownBy(() -> Skill.load(missing))
                .isInstanceOf(SkillException.class)
                .hasMessage("skill folder " + missing.toAbsolutePath().normalize() + " does not exist");
        assertThatThrownBy(() -> Skill.load(empty))
                .isInstanceOf(SkillException.class)
                .hasMessage("skill folder " + empty.toAbsolutePath().normalize() + " has no SKILL.md");
    }

    @Test
    void invalidUtf8IsReported() throws IOException {
        Path dir = Files.createDirectories(tmp.resolve("bytes"));
        Files.write(dir.resolve("SKILL.md"), new byte[] {'a', (byte) 0xC3, (byte) 0x28});

        assertThatThrownBy(() -> Skill.load(dir)).hasMessageEndingWith(": the file is not valid UTF-8");
    }

    @Test
    void loadDirSkipsFoldersWithoutSkillMdAndSortsByName() throws IOException {
        skill("zeta", "---\ndescription: last\n---\nz\n");
        skill("alpha", "a\n");
        skill("mid", "m\n");
        Files.createDirectories(tmp.resolve("no-skill-here"));
        Files.writeString(tmp.resolve("README.md"), "not a skill");

        List<Skill> skills = Skill.loadDir(tmp);

        assertThat(skills).extracting(Skill::name).containsExactly("alpha", "mid", "zeta");
        assertThat(skills.getLast().description()).isEqualTo("last");
    }

    @Test
    void loadDirReportsEveryFailingSkill() throws IOException {
        skill("good", "fine\n");
        Path bad1 = skill("bad1", "---\nname: other\n---\nx\n");
        Path bad2 = skill("bad2", "---\nopen\n");
        Path root = tmp.toAbsolutePath().normalize();

        assertThatThrownBy(() -> Skill.loadDir(tmp))
                .isInstanceOf(SkillException.class)
                .hasMessageStartingWith("2 of the 3 skills in " + root + " cannot be loaded:\n- invalid "
                        + bad1.resolve("SKILL.md").toAbsolutePath().normalize())
                .hasMessageContaining("\n- invalid " + bad2.resolve("SKILL.md").toAbsolutePath().normalize())
                .satisfies(e -> assertThat(e.getSuppressed()).hasSize(2));
    }

    @Test
    void loadDirOfAMissingDirectoryFails() {
        Path missing = tmp.resolve("skills");

        assertThatThrownBy(() -> Skill.loadDir(missing))
                .isInstanceOf(SkillException.class)
                .hasMessage("skills directory " + missing.toAbsolutePath().normalize() + " does not exist");
    }

    @Test
    void skillsMadeInCodeNeedANameAndAnAbsoluteDir() {
        Skill s = Skill.of("triage", "Sort issues", "1. Label it.");
        assertThat(s.dir()).isNull();
        assertThat(s.metadata()).isEmpty();

        assertThatThrownBy(() -> Skill.of(" ", "", ""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Skill.name must not be null or blank");
        assertThatThrownBy(() -> new Skill("x", "", "", Path.of("relative"), null, null, null, null, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Skill.dir of 'x' must be an absolute path, was relative");
    }
}
