package dev.shelly.modeladapter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolDefinition;
import dev.shelly.chats.ToolResult;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class ContextWindowsTest {

    private static ContextWindows parse(String text) {
        return ContextWindows.parse(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)), "windows.csv");
    }

    @Test
    void theDefaultsKnowEveryProvidersModelsAndTheirDatedVariants() {
        ContextWindows defaults = ContextWindows.defaults();
        assertThat(defaults.find("claude-sonnet-4-5-20250929")).contains(new ContextWindow(200_000, 64_000));
        assertThat(defaults.find("gpt-4o-mini-2024-07-18")).contains(new ContextWindow(128_000, 16_384));
        assertThat(defaults.find("gpt-5-mini")).contains(new ContextWindow(400_000, 128_000));
        assertThat(defaults.find("grok-4-0709")).contains(ContextWindow.of(256_000));
        assertThat(defaults.find("gemini-2.5-flash")).contains(new ContextWindow(1_048_576, 65_536));
        assertThat(defaults.find("llama3.2")).isEmpty();
    }

    @Test
    void anOverrideInCodeWinsAndTheLongestEntryMatches() {
        ContextWindows table = ContextWindows.defaults().with("gpt-4o", ContextWindow.of(8_000))
                .withAll(ContextWindows.empty().with("local-model", ContextWindow.of(4_096)));
        assertThat(table.find("gpt-4o-2024-08-06")).contains(ContextWindow.of(8_000));
        assertThat(table.find("gpt-4o-mini")).contains(new ContextWindow(128_000, 16_384));
        assertThat(table.find("local-model")).contains(ContextWindow.of(4_096));
    }

    @Test
    void aMalformedListNamesItsLineAndColumn() {
        assertThat(parse("model,context_window,max_output\nm,100,\n").find("m")).contains(ContextWindow.of(100));
        assertThatThrownBy(() -> parse("model,window\n")).hasMessage("windows.csv line 1: the header must be "
                + "'model,context_window,max_output', was 'model,window'");
        assertThatThrownBy(() -> parse("model,context_window,max_output\nm,lots,1\n"))
                .hasMessage("windows.csv line 2: context_window must be a whole number of tokens, was 'lots'");
        assertThatThrownBy(() -> parse("model,context_window,max_output\nm,100,200\n"))
                .hasMessage("windows.csv line 2 (m): ContextWindow.maxOutputTokens must be between 0 and tokens (100), was 200");
        assertThatThrownBy(() -> ContextWindows.empty().with(" ", ContextWindow.of(1)))
                .hasMessage("ContextWindows.with needs a model id, got ' '");
    }

    @Test
    void theHeuristicCountsWordsDigitGroupsSymbolsAndFraming() {
        TokenEstimator e = TokenEstimator.heuristic();
        // "Hello" 1 + "world" 1 + "!" ceil(0.6) = 3, plus 3 of framing.
        assertThat(e.message(Message.user("Hello world!"))).isEqualTo(6);
        // "internationalization" is 20 letters: 3 tokens; "2026" is two digit groups.
        assertThat(e.message(Message.user("internationalization 2026"))).isEqualTo(3 + 3 + 2);
        Message call = Message.of("a", Role.ASSISTANT, new ToolCall("c1", "fetch", "{\"page\":12}"));
        // fetch 1; {"page":12} = page 1 + 12 1 + 6 symbols * 0.5 = 3 -> 5; framing 3.
        assertThat(e.message(call)).isEqualTo(3 + 1 + 5);
        Message result = Message.of("t", Role.TOOL, ToolResult.of("c1", "ok\n\nok"));
        assertThat(e.message(result)).isEqualTo(3 + 2 + 3);
        ToolDefinition tool = new ToolDefinition("fetch", "Fetch a page", "{\"type\":\"object\"}");
        // {"type":"object"}: two words and seven symbols at half a token each.
        assertThat(e.tool(tool)).isEqualTo(10 + 1 + 3 + 6);
        assertThat(e.request(new ModelRequest(List.of(Message.user("Hello world!")), List.of(tool), ModelOptions.NONE, null)))
                .isEqualTo(6 + 20 + 3);
        assertThat(e.message(Message.user("été"))).isEqualTo(3 + 2 + 1);
    }
}
