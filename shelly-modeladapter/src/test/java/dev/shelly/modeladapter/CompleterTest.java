package dev.shelly.modeladapter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CompleterTest {

    @Test
    void aCompleterThatCannotStreamAnswersWithoutDeltas() {
        Completer echo = request -> new ModelResponse(
                Message.text("echo", Role.ASSISTANT, request.last().orElseThrow().text()), Usage.of(3, 1),
                StopReason.END_TURN, null, null, null, null);
        List<Delta> deltas = new ArrayList<>();
        ModelResponse response = echo.complete(ModelRequest.of(List.of(Message.user("ping"))), deltas::add);
        assertThat(response.message().text()).isEqualTo("ping");
        assertThat(deltas).isEmpty();
        assertThat(response.stopReason()).isEqualTo(StopReason.END_TURN);
        assertThat(response.usage()).isEqualTo(Usage.of(3, 1));
    }

    @Test
    void aResponseFillsInZeroUsageAndTheStopReasonItsMessageImplies() {
        ModelResponse plain = ModelResponse.of(Message.text("m", Role.ASSISTANT, "hi"));
        assertThat(plain.usage()).isEqualTo(Usage.ZERO);
        assertThat(plain.stopReason()).isEqualTo(StopReason.END_TURN);
        ModelResponse calling = ModelResponse.of(Message.of("m", Role.ASSISTANT,
                new dev.shelly.chats.ToolCall("c1", "t", "{}")));
        assertThat(calling.stopReason()).isEqualTo(StopReason.TOOL_USE);
        assertThat(calling.model()).isNull();
        assertThat(calling.provider()).isNull();
    }
}
