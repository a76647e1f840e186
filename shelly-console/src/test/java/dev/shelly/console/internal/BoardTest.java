package dev.shelly.console.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.agent.AgentEvent;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import dev.shelly.modeladapter.ModelTable;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The board keeps a bounded amount of what the events showed, dropping the oldest first. */
class BoardTest {
    private static AgentEvent.Source source(String session) {
        return new AgentEvent.Source("a", null, 0, "run-" + session, null, session);
    }

    private static AgentEvent started(String session) {
        return new AgentEvent.AgentStarted(source(session));
    }

    private static AgentEvent result(String session, int i, int size) {
        ToolCall call = new ToolCall("c" + i, "read", "y".repeat(size));
        return new AgentEvent.ToolCallFinished(source(session), call, ToolResult.of(call.id(), "x".repeat(size)),
                Duration.ZERO);
    }

    private static int shown(Board board, String session) {
        return Views.JSON.writeValueAsString(board.detail(session)).length();
    }

    @Test
    void theSessionsActiveLeastRecentlyAreDroppedBeyondTheLimit() {
        Board board = new Board(ModelTable.defaults(), Clock.systemUTC(), 5, Long.MAX_VALUE, Long.MAX_VALUE);
        for (int i = 0; i < 5; i++) {
            board.apply(started("s" + i));
        }
        board.apply(result("s0", 1, 10));
        board.apply(started("s5"));
        board.apply(started("s6"));
        assertThat(board.knows("s0")).isTrue();
        assertThat(board.knows("s1")).isFalse();
        assertThat(board.knows("s2")).isFalse();
        for (String kept : List.of("s3", "s4", "s5", "s6")) {
            assertThat(board.knows(kept)).as(kept).isTrue();
        }
    }

    @Test
    void largeToolCallsKeepEachSessionAndTheBoardWithinTheirCharacters() {
        long sessionChars = 400_000;
        long boardChars = 1_500_000;
        Board board = new Board(ModelTable.defaults(), Clock.systemUTC(), 1_000, sessionChars, boardChars);
        List<String> sessions = new ArrayList<>();
        for (int s = 0; s < 20; s++) {
            String session = "s" + s;
            sessions.add(session);
            board.apply(started(session));
            // 100 calls of 2 x 60,000 characters: 12 M characters offered to one session.
            for (int i = 0; i < 100; i++) {
                board.apply(result(session, i, 60_000));
                assertThat(board.chars()).isLessThanOrEqualTo(boardChars);
            }
            assertThat(shown(board, session)).isBetween(200_000, (int) sessionChars + 10_000);
        }
        long total = sessions.stream().filter(board::knows).mapToLong(s -> shown(board, s)).sum();
        assertThat(total).isLessThanOrEqualTo(boardChars + 50_000);
        // The most recent calls of the most recent sessions are the ones kept.
        assertThat(board.knows("s19")).isTrue();
        assertThat(board.knows("s0")).isFalse();
        assertThat(board.detail("s19").path("runs").get(0).path("tools").get(0).path("id").asString())
                .isNotEqualTo("c0");
        assertThat(board.detail("s19").path("runs").get(0).path("tools").get(board.detail("s19").path("runs").get(0)
                .path("tools").size() - 1).path("id").asString()).isEqualTo("c99");
    }
}
