package dev.shelly.chats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MessageTest {

    @Test
    void textFactory() {
        Message m = Message.text("alice", Role.USER, "hello");
        assertThat(m.sender()).isEqualTo("alice");
        assertThat(m.role()).isEqualTo(Role.USER);
        assertThat(m.parts()).containsExactly(new Text("hello"));
        assertThat(m.metadata()).isEmpty();
        assertThat(Message.user("hi")).isEqualTo(Message.text("user", Role.USER, "hi"));
        assertThat(Message.system("be brief")).isEqualTo(Message.text("system", Role.SYSTEM, "be brief"));
    }

    @Test
    void textConcatenatesTextPartsOnly() {
        Message m = Message.of("bot", Role.ASSISTANT,
                new Text("Let me "), Thinking.of("hidden", "s"), new ToolCall("c1", "search", "{}"), new Text("check."));
        assertThat(m.text()).isEqualTo("Let me check.");
        assertThat(Message.of("bot", Role.ASSISTANT).text()).isEmpty();
    }

    @Test
    void toolCallsInOrder() {
        ToolCall a = new ToolCall("c1", "a", "{}");
        ToolCall b = new ToolCall("c2", "b", "{\"x\":1}");
        Message m = Message.of("bot", Role.ASSISTANT, new Text("two calls"), a, b);
        assertThat(m.toolCalls()).containsExactly(a, b);
        assertThat(m.hasToolCalls()).isTrue();
        assertThat(Message.user("x").hasToolCalls()).isFalse();
        assertThat(Message.user("x").toolCalls()).isEmpty();
        Message results = Message.of("tools", Role.TOOL, ToolResult.of("c1", "1"), ToolResult.error("c2", "bad"));
        assertThat(results.toolResults()).extracting(ToolResult::toolCallId).containsExactly("c1", "c2");
    }

    @Test
    void immutableAgainstCallerCollections() {
        List<Part> parts = new ArrayList<>(List.of(new Text("a")));
        Map<String, Object> meta = new HashMap<>(Map.of("k", "v"));
        Message m = new Message("s", Role.USER, parts, meta);
        parts.add(new Text("b"));
        meta.put("k2", "v2");
        assertThat(m.parts()).hasSize(1);
        assertThat(m.metadata()).containsOnlyKeys("k");
        assertThatThrownBy(() -> m.parts().add(new Text("c"))).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> m.metadata().put("x", 1)).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void metadataGetAndWith() {
        Message m = Message.user("hi").withMeta("stop_reason", "end_turn").withMeta("tokens", 12);
        assertThat(m.meta("stop_reason")).contains("end_turn");
        assertThat(m.meta("tokens", Integer.class)).contains(12);
        assertThat(m.meta("tokens", String.class)).isEmpty();
        assertThat(m.meta("missing")).isEmpty();
        assertThat(m.withMeta("tokens", 13).meta("tokens")).contains(13);
        assertThat(m.meta("tokens")).contains(12);
        assertThat(m.metadata().keySet()).containsExactly("stop_reason", "tokens");
    }

    @Test
    void metadataKeepsInsertionOrder() {
        Map<String, Object> meta = new LinkedHashMap<>();
        for (int i = 0; i < 20; i++) {
            meta.put("k" + i, i);
        }
        assertThat(new Message("s", Role.USER, List.of(), meta).metadata().keySet())
                .containsExactlyElementsOf(meta.keySet());
    }

    @Test
    void withSenderKeepsEverythingElse() {
        Message m = Message.of("model", Role.ASSISTANT, new Text("x")).withMeta("a", 1);
        Message renamed = m.withSender("researcher");
        assertThat(renamed.sender()).isEqualTo("researcher");
        assertThat(renamed.role()).isEqualTo(Role.ASSISTANT);
        assertThat(renamed.parts()).isEqualTo(m.parts());
        assertThat(renamed.metadata()).isEqualTo(m.metadata());
    }

    @Test
    void badInputNamesTheField() {
        assertThatThrownBy(() -> Message.text(" ", Role.USER, "x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Message.sender must not be null or blank");
        assertThatThrownBy(() -> Message.text("u", null, "x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Message.role must not be null");
        assertThatThrownBy(() -> Message.text("u", Role.USER, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Message.text must not be null");
        assertThatThrownBy(() -> new Message("u", Role.USER, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Message.parts must not be null");
        List<Part> parts = new ArrayList<>();
        parts.add(null);
        assertThatThrownBy(() -> new Message("u", Role.USER, parts))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Message.parts[0] must not be null");
        assertThatThrownBy(() -> Message.user("x").withMeta("k", null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Message.withMeta value of 'k' must not be null");
        assertThatThrownBy(() -> Message.user("x").withMeta("", 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Message.withMeta key must not be null or blank");
    }

    @Test
    void nullMetadataIsEmpty() {
        assertThat(new Message("u", Role.USER, List.of(), null).metadata()).isEmpty();
    }

    @Test
    void aCopyWithAnotherSenderSharesThePartsAndTheMetadataOfTheOriginal() {
        Message m = Message.of("bot", Role.ASSISTANT, new Text("hi")).withMeta("k", "v").withMeta("n", 2);
        Message copy = m.withSender("other");
        assertThat(copy.parts()).isSameAs(m.parts());
        assertThat(copy.metadata()).isSameAs(m.metadata()).containsExactly(
                java.util.Map.entry("k", "v"), java.util.Map.entry("n", 2));
        java.util.List<Part> given = java.util.List.of(new Text("a"));
        assertThat(new Message("u", Role.USER, given).parts()).as("an immutable list is not copied").isSameAs(given);
        java.util.List<Part> live = new java.util.ArrayList<>(given);
        Message fromLive = new Message("u", Role.USER, live);
        live.add(new Text("b"));
        assertThat(fromLive.parts()).as("a mutable list is copied").containsExactly(new Text("a"));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> m.metadata().put("x", 1))
                .isInstanceOf(UnsupportedOperationException.class);
    }
}
