package dev.shelly.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolDefinition;
import dev.shelly.chats.ToolResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

class ToolBoxChangesTest {
    private static final ToolContext CTX = ToolContext.of("tester");

    private static Tool echo(String name, String reply) {
        return Tool.of(name, "answers " + reply, "{\"type\":\"object\"}", (in, ctx) -> ToolOutput.text(reply));
    }

    @Test
    void handWrittenToolsAreCheckedWhenTheyAskForIt() {
        String schema = "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}},\"required\":[\"city\"]}";
        Tool lenient = Tool.of("get_weather", "x", schema,
                (in, ctx) -> ToolOutput.text(in.has("city") ? "sunny" : "which city? got " + in));
        ToolCall call = new ToolCall("c1", "get_weather", "{\"town\":\"Paris\"}");
        assertThat(ToolBox.of(lenient).call(call, CTX)).as("without a check the handler decides")
                .isEqualTo(ToolResult.of("c1", "which city? got {\"town\":\"Paris\"}"));
        Tool checked = lenient.withInputCheck();
        assertThat(checked.withInputCheck()).isSameAs(checked);
        assertThat(ToolBox.of(checked).call(call, CTX)).isEqualTo(ToolResult.error("c1",
                "arguments for tool 'get_weather' do not match its schema: $.city is required"));
        assertThat(ToolBox.of(checked.withTimeout(Duration.ofSeconds(5))).call(call, CTX).isError()).isTrue();
    }

    @Test
    void atMostTenProblemsAreListed() {
        StringBuilder schema = new StringBuilder("{\"type\":\"object\",\"required\":[");
        for (int i = 0; i < 12; i++) {
            schema.append(i == 0 ? "" : ",").append("\"f").append(i).append('"');
        }
        ToolBox box = ToolBox.of(Tool.of("many", "x", schema.append("]}").toString(), (in, ctx) -> ToolOutput.text(""))
                .withInputCheck());
        assertThat(box.call(new ToolCall("c1", "many", "{}"), CTX).text()).isEqualTo(
                "arguments for tool 'many' do not match its schema: $.f0 is required; $.f1 is required; $.f2 is required;"
                        + " $.f3 is required; $.f4 is required; $.f5 is required; $.f6 is required; $.f7 is required;"
                        + " $.f8 is required; $.f9 is required; and 2 more");
    }

    @Test
    void aToolIsMadeOnlyWithASchemaThatIsAJsonObject() {
        assertThatThrownBy(() -> Tool.of("broken", "x", "{\"type\":", (in, ctx) -> ToolOutput.text("")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("the input schema of tool 'broken' is not valid JSON (");
        assertThatThrownBy(() -> Tool.of("list", "x", "[]", (in, ctx) -> ToolOutput.text("")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the input schema of tool 'list' must be a JSON object, got array");
        assertThatThrownBy(() -> Tool.of("flag", "x", "true", (in, ctx) -> ToolOutput.text("")))
                .hasMessage("the input schema of tool 'flag' must be a JSON object, got boolean");
        assertThatThrownBy(() -> new Tool(new ToolDefinition("two", "x", "{} {}"), (in, ctx) -> ToolOutput.text(""), null))
                .hasMessageStartingWith("the input schema of tool 'two' is not valid JSON (");
    }

    /**
     * A definition found valid is not checked again when a tool is made from it once more (an
     * agent's delegate tool is made per call); one found invalid is refused every time, also
     * while many threads make tools from more definitions than are remembered.
     */
    @RepeatedTest(3)
    void aDefinitionIsRefusedEveryTimeAndTheValidOnesAreMadeFromManyThreads() throws Exception {
        ToolDefinition bad = new ToolDefinition("two", "x", "{} {}");
        for (int i = 0; i < 3; i++) {
            assertThatThrownBy(() -> new Tool(bad, (in, ctx) -> ToolOutput.text(""), null))
                    .hasMessageStartingWith("the input schema of tool 'two' is not valid JSON (");
        }
        List<ToolDefinition> definitions = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            definitions.add(i % 2 == 0 ? new ToolDefinition("t" + i, "x", "{\"type\":\"object\"}")
                    : new ToolDefinition("t" + i, "x", "[" + i + "]"));
        }
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<Integer>> made = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                int first = t;
                made.add(pool.submit(() -> {
                    go.await();
                    int refused = 0;
                    for (int k = 0; k < 400; k++) {
                        ToolDefinition d = definitions.get((first * 7 + k) % definitions.size());
                        try {
                            assertThat(new Tool(d, (in, ctx) -> ToolOutput.text(""), null).definition()).isSameAs(d);
                        } catch (IllegalArgumentException e) {
                            assertThat(e).hasMessage("the input schema of tool '" + d.name()
                                    + "' must be a JSON object, got array");
                            refused++;
                        }
                    }
                    return refused;
                }));
            }
            go.countDown();
            for (Future<Integer> f : made) {
                assertThat(f.get()).isEqualTo(200);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void replaceAllRemoveAndListeners() {
        ToolBox box = ToolBox.of(echo("a", "1"), echo("b", "2"));
        List<List<String>> seen = new CopyOnWriteArrayList<>();
        ToolBox.Listener listener = changed -> seen.add(changed.names());
        box.addListener(listener);
        box.replaceAll(List.of(echo("c", "3"), echo("a", "4")));
        assertThat(box.names()).containsExactly("c", "a");
        assertThat(box.call(new ToolCall("x", "a", "{}"), CTX)).isEqualTo(ToolResult.of("x", "4"));
        assertThat(box.remove("c")).isTrue();
        assertThat(box.remove("c")).isFalse();
        box.register(echo("d", "5"));
        assertThat(box.removeListener(listener)).isTrue();
        box.remove("d");
        assertThat(seen).containsExactly(List.of("c", "a"), List.of("a"), List.of("a", "d"));
        assertThatThrownBy(() -> box.replaceAll(List.of(echo("x", "1"), echo("x", "2"))))
                .hasMessage("ToolBox.replaceAll got two tools named 'x'");
        assertThat(box.names()).containsExactly("a");
    }

    @RepeatedTest(5)
    void callsRunningWhileTheToolsAreReplacedSeeTheOldOrTheNewSet() throws Exception {
        ToolBox box = ToolBox.of(echo("t", "old"));
        CountDownLatch go = new CountDownLatch(1);
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<ToolResult>> results = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                String id = "c" + i;
                results.add(pool.submit(() -> {
                    go.await();
                    return box.call(new ToolCall(id, "t", "{}"), CTX);
                }));
            }
            pool.submit(() -> {
                go.await();
                box.replaceAll(List.of(echo("t", "new")));
                return null;
            });
            go.countDown();
            for (Future<ToolResult> result : results) {
                assertThat(result.get().text()).isIn("old", "new");
                assertThat(result.get().isError()).isFalse();
            }
        }
        assertThat(box.call(new ToolCall("last", "t", "{}"), CTX).text()).isEqualTo("new");
    }
}
