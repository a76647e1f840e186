package dev.shelly.chats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PartTest {

    /** Users may add their own kinds of part. */
    record Citation(String source) implements Part {
        @Override
        public String kind() {
            return "citation";
        }
    }

    @Test
    void kindsAreStable() {
        assertThat(new Text("hi").kind()).isEqualTo("text");
        assertThat(Image.ofUrl("https://x/y.png").kind()).isEqualTo("image");
        assertThat(new ToolCall("c1", "search", "{}").kind()).isEqualTo("tool_call");
        assertThat(ToolResult.of("c1", "ok").kind()).isEqualTo("tool_result");
        assertThat(Thinking.of("hmm", "sig").kind()).isEqualTo("thinking");
        assertThat(new Citation("book").kind()).isEqualTo("citation");
    }

    @Test
    void customPartsTravelInMessages() {
        Message m = Message.of("user", Role.USER, new Text("see "), new Citation("book"));
        assertThat(m.parts(Citation.class)).containsExactly(new Citation("book"));
        assertThat(m.text()).isEqualTo("see ");
    }

    @Test
    void textMayBeEmptyButNotNull() {
        assertThat(new Text("").text()).isEmpty();
        assertThatThrownBy(() -> new Text(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Text.text must not be null");
    }

    @Test
    void imageNeedsExactlyOneSource() {
        assertThatThrownBy(() -> new Image(null, null, "image/png"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Image needs either url or data; both are null");
        assertThatThrownBy(() -> new Image("https://x/a.png", new byte[] {1}, "image/png"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Image takes either url or data, not both");
        assertThatThrownBy(() -> Image.ofUrl(" "))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Image.url must not be null or blank");
        assertThatThrownBy(() -> Image.ofBytes(new byte[] {1, 2}, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Image.mediaType must not be null or blank");
        assertThatThrownBy(() -> Image.ofBytes(new byte[0], "image/png"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Image.data must not be empty");
    }

    @Test
    void imageBytesAreCopiedInAndOut() {
        byte[] bytes = {1, 2, 3};
        Image image = Image.ofBytes(bytes, "image/png");
        bytes[0] = 9;
        assertThat(image.data()).containsExactly(1, 2, 3);
        image.data()[1] = 9;
        assertThat(image.data()).containsExactly(1, 2, 3);
        assertThat(image.isUrl()).isFalse();
        assertThat(image.base64()).isEqualTo("AQID");
    }

    @Test
    void imageEqualityComparesBytes() {
        assertThat(Image.ofBytes(new byte[] {1, 2, 3}, "image/png"))
                .isEqualTo(Image.ofBase64("AQID", "image/png"))
                .hasSameHashCodeAs(Image.ofBase64("AQID", "image/png"))
                .isNotEqualTo(Image.ofBase64("AQIE", "image/png"));
        assertThat(Image.ofUrl("https://x/a.png")).isEqualTo(Image.ofUrl("https://x/a.png"));
        assertThat(Image.ofBytes(new byte[] {1}, "image/gif").toString()).isEqualTo("Image[1 bytes, mediaType=image/gif]");
    }

    @Test
    void invalidBase64IsNamed() {
        assertThatThrownBy(() -> Image.ofBase64("not base64!", "image/png"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("Image.data is not valid base64");
    }

    @Test
    void toolCallKeepsRawArgumentsAndDefaultsToEmptyObject() {
        assertThat(new ToolCall("c1", "search", "{\"q\": \"x\"").arguments()).isEqualTo("{\"q\": \"x\"");
        assertThat(new ToolCall("c1", "search", null).arguments()).isEqualTo("{}");
        assertThat(new ToolCall("c1", "search", "  ").arguments()).isEqualTo("{}");
        assertThatThrownBy(() -> new ToolCall("", "search", "{}"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("ToolCall.id must not be null or blank");
        assertThatThrownBy(() -> new ToolCall("c1", null, "{}"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("ToolCall.name must not be null or blank");
    }

    @Test
    void toolResultNeedsAnId() {
        assertThatThrownBy(() -> ToolResult.of(null, "x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("ToolResult.toolCallId must not be null or blank");
        assertThatThrownBy(() -> ToolResult.error(" ", "x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("ToolResult.toolCallId must not be null or blank");
    }

    @Test
    void toolResultContent() {
        ToolResult ok = ToolResult.of("c1", "42");
        assertThat(ok.isError()).isFalse();
        assertThat(ok.text()).isEqualTo("42");
        ToolResult failed = ToolResult.error("c1", "no such city");
        assertThat(failed.isError()).isTrue();
        assertThat(failed.text()).isEqualTo("no such city");

        List<Part> parts = new ArrayList<>(List.of(new Text("a"), Image.ofUrl("https://x/p.png"), new Text("b")));
        ToolResult mixed = new ToolResult("c2", parts, false);
        parts.clear();
        assertThat(mixed.content()).hasSize(3);
        assertThat(mixed.text()).isEqualTo("ab");
    }

    @Test
    void toolResultRejectsNestedCallsAndNulls() {
        assertThatThrownBy(() -> new ToolResult("c1", List.of(new ToolCall("c2", "x", "{}")), false))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("ToolResult.content[0] must not be a tool_call part");
        assertThatThrownBy(() -> new ToolResult("c1", null, false))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("ToolResult.content must not be null");
        List<Part> withNull = new ArrayList<>();
        withNull.add(new Text("a"));
        withNull.add(null);
        assertThatThrownBy(() -> new ToolResult("c1", withNull, false))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("ToolResult.content[1] must not be null");
    }

    @Test
    void thinkingKeepsSignatureAndRedactedData() {
        Thinking t = Thinking.of("Let me think", "EqQBCgIYAh");
        assertThat(t.signature()).isEqualTo("EqQBCgIYAh");
        assertThat(t.redacted()).isFalse();
        assertThat(Thinking.of("reasoning", null).signature()).isNull();
        Thinking r = Thinking.redacted("opaque");
        assertThat(r.text()).isEmpty();
        assertThat(r.signature()).isEqualTo("opaque");
        assertThat(r.redacted()).isTrue();
        assertThatThrownBy(() -> Thinking.redacted(""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Thinking.redacted data must not be null or blank");
    }

    @Test
    void toolDefinitionNamesMissingFields() {
        ToolDefinition d = new ToolDefinition("search", "Searches", "{\"type\":\"object\"}");
        assertThat(d.name()).isEqualTo("search");
        assertThatThrownBy(() -> new ToolDefinition(" ", "x", "{}"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("ToolDefinition.name must not be null or blank");
        assertThatThrownBy(() -> new ToolDefinition("x", null, "{}"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("ToolDefinition.description must not be null");
        assertThatThrownBy(() -> new ToolDefinition("x", "y", ""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("ToolDefinition.inputSchema must not be null or blank");
    }
}
