package dev.shelly.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.skills.Skill;
import dev.shelly.testing.logs.LogCapture;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An engine over a project's {@code .shelly} and a user's {@code ~/.shelly}: the user's settings,
 * agents and skills lie under the project's.
 */
class UserSettingsTest {
    @TempDir
    Path dir;

    private ShellyDir project;
    private ShellyDir user;

    private void write(Path file, String text) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
    }

    private void skill(ShellyDir in, String name, String body) throws IOException {
        write(in.skillsDir().resolve(name).resolve("SKILL.md"), "---\ndescription: " + body + "\n---\n" + body + "\n");
    }

    private Engine.Builder builder() throws IOException {
        project = new ShellyDir(dir.resolve("project/.shelly"));
        user = new ShellyDir(dir.resolve("home/.shelly"));
        write(project.configFile(), """
                providers:
                  - name: parrot
                    kind: canned
                    model: canned-big
                    reply: hello
                agents:
                  - name: assistant
                entry_agent: assistant
                """);
        return Engine.builder().dir(project).environment(Map.<String, String>of()::get);
    }

    @Test
    void theUsersFolderComesFromTheEnvironment() {
        assertThat(ShellyDir.user(Map.of("SHELLY_HOME", "/opt/me", "HOME", "/home/me")::get))
                .contains(new ShellyDir(Path.of("/opt/me")));
        assertThat(ShellyDir.user(Map.of("HOME", "/home/me")::get)).contains(new ShellyDir(Path.of("/home/me/.shelly")));
        assertThat(ShellyDir.user(Map.of("USERPROFILE", "/users/me")::get))
                .contains(new ShellyDir(Path.of("/users/me/.shelly")));
        assertThat(ShellyDir.user(Map.<String, String>of()::get)).isEmpty();
    }

    @Test
    void anAgentWithDelegateTargetsIsToldAboutThoseAlone() throws IOException {
        Engine.Builder builder = builder();
        write(project.agentsDir().resolve("writer.md"), "---\ndescription: Writes\n---\nWrite.\n");
        write(project.agentsDir().resolve("critic.md"), "---\ndescription: Criticises\n---\nCriticise.\n");
        write(project.agentsDir().resolve("lead.md"), "---\ndescription: Leads\ndelegate_targets: [writer]\n---\nLead.\n");
        try (Engine engine = builder.build()) {
            assertThat(engine.agent("lead").delegateTargets()).contains(java.util.Set.of("writer"));
            assertThat(engine.agent("lead").systemPrompt()).endsWith("## Available Agents\n\n- **writer**: Writes");
            assertThat(engine.agent("assistant").systemPrompt()).contains("- **critic**: Criticises", "- **lead**: Leads",
                    "- **writer**: Writes");
        }
    }

    @Test
    void theUsersSkillsLieUnderTheProjectsAndAClashIsReportedOnce() throws IOException {
        Engine.Builder builder = builder();
        skill(project, "review", "The project's review");
        skill(user, "review", "My review");
        skill(user, "notes", "My notes");
        try (LogCapture log = LogCapture.start();
                Engine engine = builder.userDir(user).build()) {
            assertThat(engine.skills()).extracting(Skill::name).containsExactly("notes", "review");
            assertThat(engine.skills().get(1).description()).isEqualTo("The project's review");
            String warning = "skill 'review' of " + user.skillsDir() + " is hidden by the project's skill of that name in "
                    + project.skillsDir().resolve("review");
            assertThat(engine.warnings()).containsExactly(warning);
            assertThat(log.lines()).filteredOn(line -> line.message().equals(warning)).hasSize(1);
        }
    }

    @Test
    void theEngineReadsTheUsersFolderOfItsEnvironmentUnlessToldOtherwise() throws IOException {
        Engine.Builder builder = builder();
        write(user.agentsDir().resolve("helper.md"), "---\ndescription: Mine\n---\nHelp me.\n");
        skill(user, "notes", "My notes");
        try (Engine engine = builder.environment(Map.of("SHELLY_HOME", user.root().toString())::get).build()) {
            assertThat(engine.registry().list().stream().map(e -> e.name()).toList()).containsExactlyInAnyOrder("assistant", "helper");
            assertThat(engine.skills()).extracting(Skill::name).containsExactly("notes");
            assertThat(engine.warnings()).isEmpty();
        }
        try (Engine engine = builder().environment(Map.of("SHELLY_HOME", user.root().toString())::get).userDir(null)
                .build()) {
            assertThat(engine.registry().list().stream().map(e -> e.name()).toList()).containsExactly("assistant");
            assertThat(engine.skills()).isEmpty();
        }
    }
}
