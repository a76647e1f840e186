package dev.shelly.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** What a tool says about repeating a call, and the key a handler can pass on to make one safe. */
class IdempotencyTest {

    private static final Tool LOOKUP = Tool.of("lookup", "Looks up an order", "{\"type\":\"object\"}",
            (input, ctx) -> ToolOutput.text("order " + ctx.idempotencyKey()));

    @Test
    void aToolIsNotIdempotentUnlessItSaysSoAndEveryCopyKeepsWhatItSaid() {
        assertThat(LOOKUP.idempotent()).isFalse();
        Tool safe = LOOKUP.idempotent(true);
        assertThat(safe.idempotent()).isTrue();
        assertThat(safe.withTimeout(Duration.ofSeconds(5)).idempotent()).isTrue();
        assertThat(safe.withMaxResultChars(100).idempotent()).isTrue();
        assertThat(safe.withInputCheck().idempotent()).isTrue();
        assertThat(safe.idempotent(false).idempotent()).isFalse();
        assertThat(Tool.typed("t", "typed", Input.class, (in, ctx) -> ToolOutput.text(in.id())).idempotent(true)
                .idempotent()).isTrue();
    }

    @Test
    void aCallReadsItsOwnKeyAndTheRunsContextStaysAsItWas() throws Exception {
        ToolContext run = new ToolContext("clerk", null, 0, "run-1", null, "s-1", RunValues.EMPTY);
        assertThat(run.idempotencyKey()).isNull();
        ToolContext call = run.forCall("s-1/run-1/call_7");
        assertThat(call.idempotencyKey()).isEqualTo("s-1/run-1/call_7");
        assertThat(call).isEqualTo(new ToolContext("clerk", null, 0, "run-1", null, "s-1", RunValues.EMPTY,
                "s-1/run-1/call_7"));
        assertThat(LOOKUP.handler().call(null, call).toResult("call_7").text()).isEqualTo("order s-1/run-1/call_7");
        assertThat(ToolContext.of("clerk").idempotencyKey()).isNull();
    }

    record Input(String id) {}
}
