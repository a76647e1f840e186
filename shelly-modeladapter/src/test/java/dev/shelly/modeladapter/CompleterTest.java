package dev.shelly.modeladapter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CompleterTest {

    @Test
    void aCompleterThatCannotStreamAnswersWithoutDeltasAndLeavesTheChatAlone() {
        Completer echo = (chat, tools) -> Message.text("echo", Role.ASSISTANT, chat.last().orElseThrow().text())
                .withMeta(ReplyMetadata.STOP_REASON, StopReason.END_TURN)
                .withMeta(ReplyMetadata.USAGE, Usage.of(3, 1));
        Chat chat = Chat.of(Message.user("ping"));
        List<Delta> deltas = new ArrayList<>();
        Message reply = echo.complete(chat, List.of(), deltas::add);
        assertThat(reply.text()).isEqualTo("ping");
        assertThat(deltas).isEmpty();
        assertThat(chat.size()).isEqualTo(1);
        assertThat(ReplyMetadata.stopReason(reply)).contains(StopReason.END_TURN);
        assertThat(ReplyMetadata.usage(reply)).contains(Usage.of(3, 1));
        assertThat(ReplyMetadata.usage(Message.user("x"))).isEmpty();
    }
}
