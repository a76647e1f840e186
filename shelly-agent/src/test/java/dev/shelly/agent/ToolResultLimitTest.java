package dev.shelly.agent;

import static dev.shelly.agent.Fixtures.tool;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.testing.ScriptedCompleter;
import dev.shelly.testing.Step;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolOutput;
import dev.shelly.tools.ToolResults;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** An agent cuts every tool result to its limit before the model sees it. */
@Timeout(30)
class ToolResultLimitTest {

    @Test
    void aToolResultOverTheAgentsLimitIsCutWithANoteTheModelReads() {
        ScriptedCompleter model = ScriptedCompleter.of(Step.toolCall("dump", "{}"), Step.reply("ok"));
        Agent a = Agent.builder("a").completer(model).maxToolResultChars(10)
                .toolboxes(ToolBox.of(tool("dump", (i, c) -> ToolOutput.text("0123456789abcdefghijklmno")))).build();

        a.run("go");

        String expected = "0123456789\n\n[truncated: 15 of 25 characters omitted; ask for less, e.g. a narrower query,"
                + " a smaller range or fewer lines]";
        assertThat(a.chat().get(3).toolResults().getFirst().text()).isEqualTo(expected);
        assertThat(model.requests().get(1).messages().toString()).doesNotContain("abcdefghijklmno");
    }

    @Test
    void theDefaultLimitIsTheToolkitsAndTheLimitIsValidated() {
        assertThat(Agent.builder("a").completer(ScriptedCompleter.of()).build().maxToolResultChars())
                .isEqualTo(ToolResults.DEFAULT_MAX_CHARS);
        assertThatThrownBy(() -> Agent.builder("a").maxToolResultChars(0))
                .hasMessage("Agent 'a' maxToolResultChars must be at least 1, was 0");
    }
}
