package dev.shelly.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.engine.config.ConfigException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ShellyDirTest {

    @Test
    void findsTheNearestShellyFolderWalkingUp(@TempDir Path tmp) throws Exception {
        Path project = tmp.resolve("project");
        Path deep = Files.createDirectories(project.resolve("src/main/java"));
        Files.createDirectories(project.resolve(".shelly"));
        ShellyDir dir = ShellyDir.find(deep).orElseThrow();
        assertThat(dir.root()).isEqualTo(project.resolve(".shelly").toAbsolutePath());
        assertThat(dir.projectDir()).isEqualTo(project.toAbsolutePath());
        assertThat(dir.configFile()).isEqualTo(dir.root().resolve("config.yaml"));
        assertThat(dir.skillsDir()).isEqualTo(dir.root().resolve("skills"));
        assertThat(dir.sessionsDir()).isEqualTo(dir.root().resolve("sessions"));
        Files.createDirectories(deep.resolve(".shelly"));
        assertThat(ShellyDir.find(deep).orElseThrow().root()).isEqualTo(deep.resolve(".shelly").toAbsolutePath());
    }

    @Test
    void noShellyFolderIsAClearError(@TempDir Path tmp) {
        assertThat(ShellyDir.find(tmp)).isEmpty();
        assertThatThrownBy(() -> ShellyDir.require(tmp))
                .isInstanceOf(ConfigException.class)
                .hasMessage("no .shelly folder in " + tmp.toAbsolutePath() + " or any parent; create .shelly/config.yaml");
    }

    @Test
    void projectContextJoinsCuratedMarkdownByName(@TempDir Path tmp) throws Exception {
        Path root = Files.createDirectories(tmp.resolve(".shelly"));
        Files.writeString(root.resolve("b-style.md"), "Use tabs.\n");
        Files.writeString(root.resolve("a-overview.md"), "\nA payments service.\n");
        Files.writeString(root.resolve("empty.md"), "  \n");
        Files.writeString(root.resolve("config.yaml"), "agents: []");
        Files.createDirectories(root.resolve("notes.md"));
        ShellyDir dir = new ShellyDir(root);
        assertThat(dir.contextFiles()).extracting(p -> p.getFileName().toString())
                .containsExactly("a-overview.md", "b-style.md", "empty.md");
        assertThat(dir.projectContext()).isEqualTo("### a-overview.md\n\nA payments service.\n\n### b-style.md\n\nUse tabs.");
        assertThat(new ShellyDir(tmp.resolve("missing")).projectContext()).isEmpty();
    }
}
