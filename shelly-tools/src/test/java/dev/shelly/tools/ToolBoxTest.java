package dev.shelly.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.chats.Image;
import dev.shelly.chats.Text;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolDefinition;
import dev.shelly.chats.ToolResult;
import dev.shelly.tools.internal.ArgumentsText;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

class ToolBoxTest {

    private static final String CITY_SCHEMA =
            "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}},\"required\":[\"city\"]}";
    private static final ToolContext CTX = ToolContext.of("tester");

    private static Tool weather() {
        return Tool.of("get_weather", "Current weather for a city", CITY_SCHEMA,
                (in, ctx) -> ToolOutput.text("sunny in " + in.get("city").asString()));
    }

    @Test
    void callsAHandlerWithParsedInputAndTheCallersContext() {
        AtomicReference<ToolContext> seen = new AtomicReference<>();
        ToolBox box = ToolBox.of(Tool.of("whoami", "Says who calls", "{\"type\":\"object\"}", (in, ctx) -> {
            seen.set(ctx);
            return ToolOutput.text(ctx.agent() + "/" + ctx.parent() + "/" + ctx.depth());
        }), weather());
        ToolResult r = box.call(new ToolCall("c1", "get_weather", "{\"city\":\"Paris\"}"), CTX);
        assertThat(r).isEqualTo(ToolResult.of("c1", "sunny in Paris"));
        ToolResult who = box.call(new ToolCall("c2", "whoami", ""), new ToolContext("child", "lead", 2));
        assertThat(who.text()).isEqualTo("child/lead/2");
        assertThat(seen.get()).isEqualTo(new ToolContext("child", "lead", 2));
    }

    @Test
    void aHandlerThatReadsTheArgumentsAsTextGetsNoTreeUnlessItDeclinesThem() {
        List<String> seen = new ArrayList<>();
        ArgumentsText handler = new ArgumentsText() {
            @Override
            public ToolHandler read(String arguments) {
                seen.add("text " + arguments);
                return arguments.startsWith("{\"fast\"") ? (in, ctx) -> ToolOutput.text("read as text, tree " + in) : null;
            }

            @Override
            public ToolOutput call(JsonNode input, ToolContext context) {
                seen.add("tree " + input);
                return ToolOutput.text("read as a tree");
            }
        };
        ToolBox box = ToolBox.of(Tool.of("reader", "Reads", "{\"type\":\"object\"}", handler));

        assertThat(box.call(new ToolCall("c1", "reader", "{\"fast\":1}"), CTX))
                .isEqualTo(ToolResult.of("c1", "read as text, tree null"));
        assertThat(box.call(new ToolCall("c2", "reader", "{\"slow\":1}"), CTX)).isEqualTo(ToolResult.of("c2", "read as a tree"));
        assertThat(box.call(new ToolCall("c3", "reader", "[1]"), CTX)).isEqualTo(ToolResult.error("c3",
                "arguments for tool 'reader' must be a JSON object, got array. The arguments you sent: [1]"));
        assertThat(seen).containsExactly("text {\"fast\":1}", "text {\"slow\":1}", "tree {\"slow\":1}", "text [1]");
    }

    @Test
    void definitionsKeepRegistrationOrder() {
        ToolBox box = new ToolBox().register(weather()).register(Tool.of("b", "B", "{\"type\":\"object\"}", (i, c) -> ToolOutput.text("")));
        assertThat(box.definitions()).containsExactly(
                new ToolDefinition("get_weather", "Current weather for a city", CITY_SCHEMA),
                new ToolDefinition("b", "B", "{\"type\":\"object\"}"));
        assertThat(box.names()).containsExactly("get_weather", "b");
        assertThat(box.contains("b")).isTrue();
        assertThat(box.get("nope")).isEmpty();
    }

    @Test
    void duplicateNamesAreRejectedAndNothingIsAdded() {
        ToolBox box = ToolBox.of(weather());
        Tool other = Tool.of("other", "x", "{\"type\":\"object\"}", (i, c) -> ToolOutput.text(""));
        assertThatThrownBy(() -> box.register(other, weather()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a tool named 'get_weather' is already registered");
        assertThat(box.names()).containsExactly("get_weather");
    }

    @Test
    void invalidToolNamesAreRejected() {
        assertThatThrownBy(() -> Tool.of("read file", "x", "{}", (i, c) -> ToolOutput.text("")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("tool name 'read file' is invalid: use 1 to 64 letters, digits, '_' or '-' (what model providers accept)");
        assertThatThrownBy(() -> Tool.of("x", "x", "{}", null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Tool.handler of 'x' must not be null");
        assertThatThrownBy(() -> weather().withTimeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Tool.timeout of 'get_weather' must be positive, was PT0S");
    }

    @Test
    void unknownToolListsTheKnownOnes() {
        ToolBox box = ToolBox.of(weather(), Tool.of("search", "s", "{\"type\":\"object\"}", (i, c) -> ToolOutput.text("")));
        assertThat(box.call(new ToolCall("c1", "get_wether", "{}"), CTX))
                .isEqualTo(ToolResult.error("c1", "unknown tool 'get_wether'; available tools: get_weather, search"));
        assertThat(new ToolBox().call(new ToolCall("c1", "x", "{}"), CTX).text())
                .isEqualTo("unknown tool 'x'; available tools: none");
    }

    @Test
    void argumentsThatAreNotJsonAreReported() {
        ToolResult r = ToolBox.of(weather()).call(new ToolCall("c1", "get_weather", "{\"city\": Paris}"), CTX);
        assertThat(r.isError()).isTrue();
        assertThat(r.text()).startsWith("arguments for tool 'get_weather' are not valid JSON (")
                .endsWith("); send a JSON object matching the tool's input schema. "
                        + "The arguments you sent: {\"city\": Paris}");
    }

    @Test
    void argumentsThatAreNotAnObjectAreReported() {
        ToolResult r = ToolBox.of(weather()).call(new ToolCall("c1", "get_weather", "[1,2]"), CTX);
        assertThat(r).isEqualTo(ToolResult.error("c1",
                "arguments for tool 'get_weather' must be a JSON object, got array. The arguments you sent: [1,2]"));
    }

    @Test
    void aThrowingHandlerBecomesAnErrorResult() {
        ToolBox box = ToolBox.of(Tool.of("boom", "fails", "{\"type\":\"object\"}", (i, c) -> {
            throw new IOException("disk full");
        }), Tool.of("npe", "fails", "{\"type\":\"object\"}", (i, c) -> {
            throw new NullPointerException();
        }));
        assertThat(box.call(new ToolCall("c1", "boom", "{}"), CTX)).isEqualTo(ToolResult.error("c1", "tool 'boom' failed: disk full"));
        assertThat(box.call(new ToolCall("c2", "npe", "{}"), CTX)).isEqualTo(ToolResult.error("c2", "tool 'npe' failed: NullPointerException"));
    }

    @Test
    void handlersMayReturnErrorsAndImages() {
        ToolBox box = ToolBox.of(
                Tool.of("shot", "screenshot", "{\"type\":\"object\"}",
                        (i, c) -> ToolOutput.of(new Text("here"), Image.ofBase64("AQID", "image/png"))),
                Tool.of("no", "refuses", "{\"type\":\"object\"}", (i, c) -> ToolOutput.error("city not found")));
        ToolResult shot = box.call(new ToolCall("c1", "shot", "{}"), CTX);
        assertThat(shot.isError()).isFalse();
        assertThat(shot.content()).containsExactly(new Text("here"), Image.ofBase64("AQID", "image/png"));
        assertThat(box.call(new ToolCall("c2", "no", "{}"), CTX)).isEqualTo(ToolResult.error("c2", "city not found"));
    }

    @Test
    void aHandlerPastItsTimeoutIsStoppedAndInterrupted() throws Exception {
        CountDownLatch interrupted = new CountDownLatch(1);
        Tool slow = Tool.of("slow", "sleeps", "{\"type\":\"object\"}", (i, c) -> {
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                interrupted.countDown();
                throw e;
            }
            return ToolOutput.text("late");
        }).withTimeout(Duration.ofMillis(500)); // long enough for the handler to start on a loaded machine
        ToolResult r = ToolBox.of(slow).call(new ToolCall("c1", "slow", "{}"), CTX);
        assertThat(r).isEqualTo(ToolResult.error("c1", "tool 'slow' did not finish within 500 ms and was stopped"));
        assertThat(interrupted.await(10, java.util.concurrent.TimeUnit.SECONDS)).as("handler was interrupted").isTrue();
    }

    @Test
    void aTimeoutTooLongForNanosecondsIsNoLimitInPractice() {
        Tool patient = Tool.of("patient", "answers", "{\"type\":\"object\"}", (i, c) -> ToolOutput.text("done"))
                .withTimeout(Duration.ofSeconds(Long.MAX_VALUE));
        assertThat(ToolBox.of(patient).call(new ToolCall("c1", "patient", "{}"), CTX)).isEqualTo(ToolResult.of("c1", "done"));
    }

    @Test
    void interruptingTheCallerInterruptsTheHandler() throws Exception {
        for (Duration timeout : new Duration[] {null, Duration.ofMinutes(5)}) {
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch handlerInterrupted = new CountDownLatch(1);
            Tool blocking = new Tool(new ToolDefinition("block", "blocks", "{\"type\":\"object\"}"), (i, c) -> {
                started.countDown();
                try {
                    Thread.sleep(60_000);
                } catch (InterruptedException e) {
                    handlerInterrupted.countDown();
                    throw e;
                }
                return ToolOutput.text("never");
            }, timeout);
            ToolBox box = ToolBox.of(blocking);
            AtomicReference<ToolResult> result = new AtomicReference<>();
            AtomicBoolean flagKept = new AtomicBoolean();
            Thread caller = Thread.ofVirtual().start(() -> {
                result.set(box.call(new ToolCall("c1", "block", "{}"), CTX));
                flagKept.set(Thread.currentThread().isInterrupted());
            });
            started.await();
            caller.interrupt();
            assertThat(caller.join(Duration.ofSeconds(10))).isTrue();
            assertThat(result.get()).isEqualTo(ToolResult.error("c1", "tool 'block' was cancelled before it finished"));
            assertThat(flagKept.get()).as("caller's interrupt flag stays set").isTrue();
            assertThat(handlerInterrupted.await(10, java.util.concurrent.TimeUnit.SECONDS)).as("handler was interrupted").isTrue();
        }
    }

    @Test
    void concurrentCallsAndRegistrations() throws Exception {
        ToolBox box = ToolBox.of(weather());
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<ToolResult>> results = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                int n = i;
                results.add(pool.submit(() -> box.call(new ToolCall("c" + n, "get_weather", "{\"city\":\"C" + n + "\"}"), CTX)));
                if (i % 20 == 0) {
                    pool.submit(() -> box.register(Tool.of("t" + n, "x", "{\"type\":\"object\"}", (in, c) -> ToolOutput.text(""))));
                }
            }
            for (int i = 0; i < 200; i++) {
                assertThat(results.get(i).get()).isEqualTo(ToolResult.of("c" + i, "sunny in C" + i));
            }
        }
        assertThat(box.names()).hasSize(11);
    }
}
