package dev.shelly.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.chats.Image;
import dev.shelly.chats.Part;
import dev.shelly.chats.Text;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import java.util.List;
import org.junit.jupiter.api.Test;

class ToolResultsTest {
    private static final String OBJECT = "{\"type\":\"object\"}";
    private static final ToolContext CONTEXT = ToolContext.of("assistant");

    private static ToolCall call(String name) {
        return new ToolCall("c1", name, "{}");
    }

    @Test
    void theNoteGroupsThousandsAsAFormatWould() {
        long[] counts = {0, 7, 999, 1_000, 12_345, 999_999, 1_000_000, 49_900_000, 1_234_567_890_123L,
            Long.MAX_VALUE, -1, -999, -1_000, -1_234_567, Long.MIN_VALUE};
        for (long count : counts) {
            assertThat(ToolResults.grouped(count)).as("%d", count).isEqualTo(String.format(java.util.Locale.ROOT, "%,d", count));
        }
        assertThat(ToolResults.note(4, 1_000_000)).isEqualTo("[truncated: 4 of 1,000,000 characters omitted; ask for"
                + " less, e.g. a narrower query, a smaller range or fewer lines]");
    }

    @Test
    void aHugeResultIsCutToTheDefaultLimitWithANoteSayingHowMuchWasOmitted() {
        String huge = "x".repeat(50_000_000);
        ToolBox box = ToolBox.of(Tool.of("dump", "dumps", OBJECT, (in, ctx) -> ToolOutput.text(huge)));
        ToolResult result = box.call(call("dump"), CONTEXT);
        assertThat(result.isError()).isFalse();
        assertThat(result.content()).hasSize(1);
        assertThat(result.text()).isEqualTo("x".repeat(100_000) + "\n\n[truncated: 49,900,000 of 50,000,000 characters"
                + " omitted; ask for less, e.g. a narrower query, a smaller range or fewer lines]");
    }

    @Test
    void theToolsOwnLimitWinsOverTheCallersAndTheCallersOverTheDefault() {
        Tool plain = Tool.of("plain", "p", OBJECT, (in, ctx) -> ToolOutput.text("abcdefghij"));
        Tool own = plain.withMaxResultChars(4);
        assertThat(ToolBox.of(plain).call(call("plain"), CONTEXT, 6).text())
                .isEqualTo("abcdef\n\n" + ToolResults.note(4, 10));
        assertThat(ToolBox.of(own).call(call("plain"), CONTEXT, 6).text()).isEqualTo("abcd\n\n" + ToolResults.note(6, 10));
        assertThat(ToolBoxes.of(ToolBox.of(own)).call(call("plain"), CONTEXT).text())
                .isEqualTo("abcd\n\n" + ToolResults.note(6, 10));
        assertThat(own.withTimeout(java.time.Duration.ofSeconds(1)).withInputCheck().maxResultChars()).isEqualTo(4);
        assertThat(ToolBox.of(plain).call(call("plain"), CONTEXT, 10).text()).isEqualTo("abcdefghij");
    }

    @Test
    void errorsAreCutToo() {
        ToolBox box = ToolBox.of(Tool.of("fail", "f", OBJECT, (in, ctx) -> {
            throw new IllegalStateException("y".repeat(50));
        }));
        ToolResult result = box.call(call("fail"), CONTEXT, 20);
        assertThat(result.isError()).isTrue();
        assertThat(result.text()).isEqualTo("tool 'fail' failed: \n\n" + ToolResults.note(50, 70));
    }

    @Test
    void textPartsAreCutTogetherAndImagesAreKept() {
        Image image = Image.ofUrl("https://example.com/a.png");
        ToolResult many = new ToolResult("c1", List.<Part>of(new Text("12345"), image, new Text("67890"), new Text("abc")), false);
        ToolResult cut = ToolResults.truncate(many, 7);
        assertThat(cut.content()).containsExactly(new Text("12345"), image, new Text("67\n\n" + ToolResults.note(6, 13)));
        ToolResult fits = ToolResults.truncate(many, 13);
        assertThat(fits).isSameAs(many);
    }

    @Test
    void aCutNeverSplitsASurrogatePair() {
        ToolResult emoji = ToolResult.of("c1", "ab\uD83D\uDE00cd");
        assertThat(ToolResults.truncate(emoji, 3).text()).isEqualTo("ab\n\n" + ToolResults.note(4, 6));
    }

    @Test
    void limitsAreValidated() {
        Tool plain = Tool.of("plain", "p", OBJECT, (in, ctx) -> ToolOutput.text("x"));
        assertThatThrownBy(() -> plain.withMaxResultChars(0))
                .hasMessage("Tool.maxResultChars of 'plain' must be at least 1, was 0");
        assertThatThrownBy(() -> ToolBox.of(plain).call(call("plain"), CONTEXT, -1))
                .hasMessage("ToolBox.call maxResultChars must be at least 1, was -1");
        assertThatThrownBy(() -> ToolResults.truncate(null, 5)).hasMessage("ToolResults.truncate result must not be null");
    }
}
