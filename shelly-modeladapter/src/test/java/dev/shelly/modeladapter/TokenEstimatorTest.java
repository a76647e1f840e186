package dev.shelly.modeladapter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolDefinition;
import dev.shelly.chats.ToolResult;
import java.util.List;
import org.junit.jupiter.api.Test;

class TokenEstimatorTest {

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
