package dev.shelly.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.testing.ScriptedCompleter;
import dev.shelly.testing.Step;
import dev.shelly.testing.logs.LogCapture;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolOutput;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A plain Agent.run logs its model and tool calls at DEBUG, with its run id in the MDC. */
class DebugLogTest {

    @Test
    void aRunOutsideAnEngineLogsItsModelAndToolCallsAtDebugWithItsRunId() {
        Tool weather = Tool.of("get_weather", "Weather for a city", "{\"type\":\"object\"}",
                (input, ctx) -> ToolOutput.text("sunny"));
        Agent agent = Agent.builder("forecaster").description("Tells the weather")
                .completer(ScriptedCompleter.of(Step.toolCall("get_weather", "{\"city\":\"Paris\"}"), Step.reply("Sunny.")))
                .toolboxes(ToolBox.of(weather)).build();
        try (LogCapture logs = LogCapture.start()) {
            agent.run("Weather in Paris?");
            List<LogCapture.Line> lines = logs.lines().stream().filter(l -> l.logger().equals("dev.shelly.agent.Agent")).toList();
            assertThat(lines).extracting(LogCapture.Line::message).containsExactly(
                    "agent 'forecaster' calls its model: 2 messages, 1 tools",
                    lines.get(1).message(),
                    "agent 'forecaster' calls tool 'get_weather' (call_1) with {\"city\":\"Paris\"}",
                    lines.get(3).message(),
                    "agent 'forecaster' calls its model: 4 messages, 1 tools",
                    lines.get(5).message());
            assertThat(lines.get(1).message()).startsWith("agent 'forecaster' model call done in ").endsWith(
                    " ms: TOOL_USE, 0 input and 0 output tokens");
            assertThat(lines.get(3).message()).startsWith("agent 'forecaster' tool 'get_weather' (call_1) answered in ");
            assertThat(lines).allSatisfy(l -> assertThat(l.mdc()).containsKey("shelly.run"));
            assertThat(lines).extracting(l -> l.mdc().get("shelly.run")).containsOnly(lines.getFirst().mdc().get("shelly.run"));
        }
    }
}
