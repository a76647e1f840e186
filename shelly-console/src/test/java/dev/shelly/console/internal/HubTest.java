package dev.shelly.console.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.agent.AgentEvent;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import dev.shelly.modeladapter.ModelTable;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The hub's history and a client's buffer are bounded in characters as well as in changes. */
class HubTest {
    private static AgentEvent result(int i, int size) {
        AgentEvent.Source source = new AgentEvent.Source("a", null, 0, "run-1", null, "s-1");
        ToolCall call = new ToolCall("c" + i, "read", "{}");
        return new AgentEvent.ToolCallFinished(source, call, ToolResult.of(call.id(), "x".repeat(size)), Duration.ZERO);
    }

    /** What a stream writes up to its first flush: the frames queued when it starts. */
    private static String firstWrite(Stream stream) {
        ByteArrayOutputStream out = new ByteArrayOutputStream() {
            @Override
            public void flush() throws IOException {
                throw new IOException("enough");
            }
        };
        try {
            stream.pump(out, 1);
        } catch (IOException e) {
            // the first flush
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void largeChangesLeaveTheHistorySoonerAndAClientThatMissedThemIsToldToReload() {
        Hub hub = new Hub(new Board(ModelTable.defaults(), Clock.systemUTC()), 10_000);
        // 200 changes of about 60,000 characters: far fewer than 10,000 changes, far more than 8 M characters.
        for (int i = 0; i < 200; i++) {
            hub.accept(result(i, 60_000));
        }
        Stream stale = new Stream(10_000);
        hub.connect(stale, 1);
        assertThat(firstWrite(stale)).startsWith("event: reset\n").contains("\"seq\":200");
        Stream recent = new Stream(10_000);
        hub.connect(recent, 198);
        String replay = firstWrite(recent);
        assertThat(replay).startsWith("id: 199\n").contains("id: 200\n").doesNotContain("reset");
    }

    @Test
    void aClientFallsBehindByAtMostItsCharacters() {
        Stream stream = new Stream(1_000_000);
        String frame = "y".repeat(1 << 20);
        int taken = 0;
        while (stream.offer(frame)) {
            taken++;
        }
        assertThat(taken).isEqualTo((int) (Stream.MAX_CHARS / frame.length()));
    }
}
