package dev.shelly.agent.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.chats.ToolCall;
import dev.shelly.skills.Skill;
import dev.shelly.tools.ToolContext;
import dev.shelly.tools.ToolHandler;
import dev.shelly.tools.ToolOutput;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/** What the built-in tools and the tool turn tell the model, where a run does not reach it easily. */
class BuiltinToolsTest {

    @Test
    void loadSkillWithoutANameSaysWhichNamesExist() throws Exception {
        ToolHandler load = SkillTool.toolbox(List.of(Skill.of("a", "", "x"), Skill.of("b", "", "y")), skill -> null)
                .get("load_skill").orElseThrow().handler();

        assertThat(load.call(JsonMapper.builder().build().readTree("{}"), ToolContext.of("t")))
                .isEqualTo(ToolOutput.error("load_skill needs 'name': one of a, b"));
    }

    @Test
    void aCallCutOffAtAnUnknownLimitIsToldSo() {
        assertThat(ToolTurn.cutOffText(new ToolCall("c3", "get_time", "{"), 0)).isEqualTo("the reply was cut off at the "
                + "output limit before the arguments of tool 'get_time' were complete, so it was not run; raise "
                + "max_tokens (ModelOptions.maxTokens) to let the call finish, or split the work into smaller calls. "
                + "The arguments received: {");
    }
}
