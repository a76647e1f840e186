package dev.shelly.agent;

import static dev.shelly.agent.Fixtures.offered;
import static dev.shelly.agent.Fixtures.results;
import static dev.shelly.agent.Fixtures.tool;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.chats.ToolResult;
import dev.shelly.skills.Skill;
import dev.shelly.testing.ScriptedCompleter;
import dev.shelly.testing.Step;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolOutput;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A skill's allowed-tools limits the tools offered while it is loaded, for the rest of the turn. */
@Timeout(60)
class SkillAllowedToolsTest {
    private static final Skill REVIEW = new Skill("review", "How to review a change", "Read, then grep.", null, null, null,
            List.of("fs_read", "grep"), Map.of(), Map.of());
    private static final Skill NOTES = Skill.of("notes", "How to keep notes", "Write them down.");

    private final List<String> ran = new CopyOnWriteArrayList<>();

    private Agent agent(ScriptedCompleter model) {
        ToolBox files = ToolBox.of(
                tool("fs_read", (in, ctx) -> ToolOutput.text(ran.add("fs_read") ? "text" : "")),
                tool("fs_write", (in, ctx) -> ToolOutput.text(ran.add("fs_write") ? "written" : "")),
                tool("grep", (in, ctx) -> ToolOutput.text(ran.add("grep") ? "found" : "")));
        return Agent.builder("reviewer").completer(model).toolboxes(files).skills(List.of(REVIEW, NOTES)).build();
    }

    @Test
    void onceLoadedOnlyTheSkillsToolsAreOfferedAndAnotherIsRefused() {
        ScriptedCompleter model = ScriptedCompleter.of(
                Step.toolCall("load_skill", "{\"name\":\"review\"}"),
                Step.toolCall("fs_write", "{}"),
                Step.toolCall("grep", "{}"),
                Step.reply("reviewed"),
                Step.reply("next turn"));
        Agent agent = agent(model);

        assertThat(agent.run("review this").text()).isEqualTo("reviewed");

        assertThat(offered(model, 0)).containsExactly("fs_read", "fs_write", "grep", "load_skill");
        assertThat(offered(model, 1)).containsExactly("fs_read", "grep", "load_skill");
        assertThat(offered(model, 2)).containsExactly("fs_read", "grep", "load_skill");
        assertThat(ran).containsExactly("grep");
        ToolResult refused = results(agent).get(1);
        assertThat(refused.isError()).isTrue();
        assertThat(refused.text()).isEqualTo("tool 'fs_write' is not offered while skill 'review' is loaded, whose "
                + "allowed-tools leave it out; offered tools: fs_read, grep, load_skill");

        agent.run("something else");
        assertThat(offered(model, 4)).as("a new turn starts unlimited")
                .containsExactly("fs_read", "fs_write", "grep", "load_skill");
    }

    @Test
    void aSkillWithoutAllowedToolsOrALoadThatFailedLimitsNothing() {
        ScriptedCompleter model = ScriptedCompleter.of(
                Step.toolCall("load_skill", "{\"name\":\"notes\"}"),
                Step.toolCall("load_skill", "{\"name\":\"reveiw\"}"),
                Step.toolCall("fs_write", "{}"),
                Step.reply("done"));
        Agent agent = agent(model);

        agent.run("take notes");

        assertThat(offered(model, 1)).containsExactly("fs_read", "fs_write", "grep", "load_skill");
        assertThat(offered(model, 2)).containsExactly("fs_read", "fs_write", "grep", "load_skill");
        assertThat(ran).containsExactly("fs_write");
    }
}
