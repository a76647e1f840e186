package dev.shelly.tools;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolDefinition;
import dev.shelly.chats.ToolResult;
import org.junit.jupiter.api.Test;

class ToolBoxesTest {
    private static final ToolContext CTX = ToolContext.of("tester");

    private static Tool echo(String name, String reply) {
        return Tool.of(name, "answers " + reply, "{\"type\":\"object\"}", (in, ctx) -> ToolOutput.text(reply));
    }

    @Test
    void theFirstToolboxWithTheNameAnswersAndShadowsLaterOnes() {
        ToolBox own = ToolBox.of(echo("search", "own"), echo("note", "noted"));
        ToolBox server = ToolBox.of(echo("search", "server"), echo("fetch", "fetched"));
        ToolBoxes boxes = ToolBoxes.of(own, server);
        assertThat(boxes.names()).containsExactly("search", "note", "fetch");
        assertThat(boxes.definitions()).containsExactly(new ToolDefinition("search", "answers own", "{\"type\":\"object\"}"),
                new ToolDefinition("note", "answers noted", "{\"type\":\"object\"}"),
                new ToolDefinition("fetch", "answers fetched", "{\"type\":\"object\"}"));
        assertThat(boxes.call(new ToolCall("c1", "search", "{}"), CTX)).isEqualTo(ToolResult.of("c1", "own"));
        assertThat(boxes.call(new ToolCall("c2", "fetch", "{}"), CTX)).isEqualTo(ToolResult.of("c2", "fetched"));
        assertThat(boxes.get("fetch")).isPresent();
        assertThat(boxes.get("nope")).isEmpty();
    }

    @Test
    void unknownToolsListEveryToolboxAndChangesAreSeenAtOnce() {
        ToolBox own = ToolBox.of(echo("a", "1"));
        ToolBox server = new ToolBox();
        ToolBoxes boxes = ToolBoxes.of(own, server);
        assertThat(boxes.call(new ToolCall("c1", "b", "{}"), CTX))
                .isEqualTo(ToolResult.error("c1", "unknown tool 'b'; available tools: a"));
        server.register(echo("b", "2"));
        assertThat(boxes.call(new ToolCall("c2", "b", "{}"), CTX)).isEqualTo(ToolResult.of("c2", "2"));
        assertThat(boxes.tools()).extracting(Tool::name).containsExactly("a", "b");
    }

    @Test
    void schemaChecksApplyThroughTheComposite() {
        ToolBox box = ToolBox.of(Tool.of("f", "x", "{\"required\":[\"q\"]}", (in, ctx) -> ToolOutput.text("")).withInputCheck());
        assertThat(ToolBoxes.of(box).call(new ToolCall("c1", "f", "{}"), CTX).text())
                .isEqualTo("arguments for tool 'f' do not match its schema: $.q is required");
    }
}
