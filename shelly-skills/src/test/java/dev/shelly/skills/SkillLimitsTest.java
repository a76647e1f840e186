package dev.shelly.skills;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Hostile SKILL.md files fail fast with a SkillException naming the file. */
@Timeout(60)
class SkillLimitsTest {
    @TempDir
    Path tmp;

    private Path skill(String text) throws Exception {
        Path dir = tmp.resolve("deep");
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("SKILL.md"), text, StandardCharsets.UTF_8);
        return dir;
    }

    @Test
    void deeplyNestedFrontmatterIsRefused() throws Exception {
        Path dir = skill("---\nname: deep\nmetadata: " + "[".repeat(1500) + "]".repeat(1500) + "\n---\nBody\n");
        Path file = dir.toRealPath().resolve("SKILL.md");
        assertThatThrownBy(() -> Skill.load(dir))
                .isInstanceOf(SkillException.class)
                .hasMessage("invalid " + file + ": frontmatter line 3: collections are nested more than 50 levels deep;"
                        + " at most 50 are allowed");
        skill("---\nname: deep\nmetadata:\n  " + "- ".repeat(1500) + "x\n---\nBody\n");
        assertThatThrownBy(() -> Skill.load(dir))
                .isInstanceOf(SkillException.class)
                .hasMessage("invalid " + file + ": frontmatter line 4: collections are nested more than 50 levels deep;"
                        + " at most 50 are allowed");
    }

    @Test
    void aFileOverOneMebibyteIsRefusedBeforeItIsRead() throws Exception {
        Path dir = skill("---\nname: deep\ndescription: " + "x".repeat(16 * 1024 * 1024) + "\n---\nBody\n");
        Path file = dir.toRealPath().resolve("SKILL.md");
        assertThatThrownBy(() -> Skill.load(dir))
                .isInstanceOf(SkillException.class)
                .hasMessage("invalid " + file + ": the file is too large (" + Files.size(file)
                        + " bytes); a SKILL.md may be at most 1048576 bytes (1 MiB)");
    }

    @Test
    void aLongDescriptionWithinTheLimitIsRead() throws Exception {
        String description = "x".repeat(1000 * 1000);
        Path dir = skill("---\nname: deep\ndescription: " + description + "\n---\nBody\n");
        assertThat(Skill.load(dir).description()).isEqualTo(description);
    }
}
