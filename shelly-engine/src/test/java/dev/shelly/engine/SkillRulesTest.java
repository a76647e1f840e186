package dev.shelly.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.chats.ToolDefinition;
import dev.shelly.testing.ScriptedCompleter;
import dev.shelly.testing.Step;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A skill of a project's folder carries a rule: its allowed-tools limit the tools while it is loaded. */
class SkillRulesTest {
    @TempDir
    Path dir;

    @Test
    void aLoadedSkillsAllowedToolsAreTheOnlyToolsOfferedForTheRestOfTheTurn() throws Exception {
        ShellyDir project = new ShellyDir(dir.resolve(".shelly"));
        Files.createDirectories(project.skillsDir().resolve("lookup"));
        Files.writeString(project.skillsDir().resolve("lookup/SKILL.md"), """
                ---
                description: Looks a value up, and changes nothing
                allowed-tools: shared_state_get shared_state_list
                ---
                Read the value; never write.
                """);
        Files.writeString(project.configFile(), """
                providers: [{ name: m, kind: openai, model: x, api_key: k }]
                agents: [{ name: a, toolboxes: [state] }]
                """);
        ScriptedCompleter model = ScriptedCompleter.of(Step.toolCall("load_skill", "{\"name\":\"lookup\"}"),
                Step.toolCall("shared_state_set", "{\"key\":\"k\",\"value\":1}"), Step.reply("done"));
        try (Engine engine = Engine.builder().dir(project).environment(Map.<String, String>of()::get)
                .completer("m", model).build();
                Session session = engine.newSession()) {
            session.send("look it up");
            assertThat(model.requests().get(0).tools()).extracting(ToolDefinition::name).contains("shared_state_set");
            assertThat(model.requests().get(1).tools()).extracting(ToolDefinition::name)
                    .containsExactly("shared_state_get", "shared_state_list", "load_skill");
            assertThat(model.requests().get(2).last().orElseThrow().toolResults().getFirst().text())
                    .startsWith("tool 'shared_state_set' is not offered while skill 'lookup' is loaded");
            assertThat(engine.store().get("k")).isEmpty();
        }
    }
}
