package dev.shelly.storage.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.agent.Answer;
import dev.shelly.agent.Approvals;
import dev.shelly.agent.PendingCall;
import dev.shelly.agent.ToolPolicy;
import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import dev.shelly.modeladapter.Cost;
import dev.shelly.modeladapter.Usage;
import dev.shelly.storage.SessionRecord;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/** What a paused session waits for, as the session stores keep it. */
class ApprovalsJsonTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private final ChatJson codec = new ChatJson(JSON);

    @Test
    void aPausedTreeWithEveryKindOfAnswerRoundTripsThroughTheSessionRecord() {
        Instant since = Instant.parse("2026-11-24T08:00:00Z");
        Map<String, Answer> answers = new LinkedHashMap<>();
        answers.put("c2/0/c1", Answer.approveAlways(Answer.Scope.PROJECT));
        answers.put("c3", Answer.deny("not now"));
        answers.put("c4", Answer.edit("{\"a\":1}"));
        answers.put("c5", Answer.reply("Lisbon"));
        Approvals.State state = new Approvals.State(List.of(
                new Approvals.Frame("c2/0", "helper", List.of(Message.user("write z")),
                        List.of(ToolResult.of("c2", "read a")),
                        List.of(new PendingCall("c2/0/c1", "helper", new ToolCall("c1", "fs_write", "{}"),
                                PendingCall.Kind.APPROVAL, "agent 'helper' asks to run tool 'fs_write'", since)),
                        List.of(), null),
                new Approvals.Frame("c2/1", "reader", List.of(), List.of(), List.of(), List.of(), "reader done"),
                new Approvals.Frame("", "lead", List.of(), List.of(ToolResult.error("c1", "tool 'x' was not run: no")),
                        List.of(new PendingCall("c5", "lead", new ToolCall("c5", "ask_user", "{\"question\":\"Where?\"}"),
                                PendingCall.Kind.QUESTION, "Where?", since)),
                        List.of(new ToolCall("c2", "delegate", "{\"tasks\":[]}")), null)),
                answers, List.of(new Approvals.Grant("lead", "fs_write", ToolPolicy.Permission.ALLOW)));
        SessionRecord record = new SessionRecord("s", "lead", since, since, new Chat(List.of(Message.user("hi"))).entries(), 3, Usage.ZERO,
                Cost.ZERO, state);

        SessionRecord back = codec.decodeRecord("s", JSON.readTree(JSON.writeValueAsString(codec.encodeRecord(record))), "f");

        assertThat(back).isEqualTo(record);
        assertThat(back.approvals()).isEqualTo(state);
    }

    @Test
    void aSessionThatWaitsForNothingWritesNoApprovalsAndLoadsEmpty() {
        Instant t = Instant.parse("2026-11-24T08:00:00Z");
        SessionRecord record = new SessionRecord("s", "lead", t, t, List.of(), 1, Usage.ZERO, Cost.ZERO);

        assertThat(codec.encodeRecord(record).has("approvals")).isFalse();
        assertThat(codec.decodeRecord("s", codec.encodeRecord(record), "f").approvals()).isEqualTo(Approvals.State.EMPTY);
    }

    @Test
    void aDamagedApprovalsSectionIsReportedWithItsSource() {
        Instant t = Instant.parse("2026-11-24T08:00:00Z");
        var root = codec.encodeRecord(new SessionRecord("s", "lead", t, t, List.of(), 1, Usage.ZERO, Cost.ZERO));
        root.set("approvals", JSON.readTree("{\"frames\":[{\"path\":\"\",\"agent\":\"lead\"}],\"answers\":{\"c1\":{\"type\":\"maybe\"}}}"));

        assertThatThrownBy(() -> codec.decodeRecord("s", root, "sessions/s.json"))
                .hasMessage("sessions/s.json: approvals: unknown answer type 'maybe' for call 'c1'");
    }
}
