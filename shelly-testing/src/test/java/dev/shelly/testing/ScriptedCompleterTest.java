package dev.shelly.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolDefinition;
import dev.shelly.chats.ToolResult;
import dev.shelly.modeladapter.Delta;
import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.ModelOptions;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.StopReason;
import dev.shelly.modeladapter.Usage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class ScriptedCompleterTest {

    private static final ToolDefinition WEATHER = new ToolDefinition("get_weather", "weather", "{\"type\":\"object\"}");

    /** The request an agent sends for a chat: its messages, the tools, and the chat's id. */
    private static ModelRequest request(Chat chat, List<ToolDefinition> tools) {
        return new ModelRequest(chat.messages(), tools, ModelOptions.NONE, chat.id());
    }

    @Test
    void followsTheScriptInOrderAndRecordsWhatTheModelSaw() {
        ScriptedCompleter model = ScriptedCompleter.of(
                Step.toolCall("get_weather", "{\"city\":\"Paris\"}"),
                Step.reply("It is sunny."));
        Chat chat = Chat.of(Message.system("be brief"), Message.user("weather?"));

        ModelResponse first = model.complete(request(chat, List.of(WEATHER)));
        chat.append(first.message(), Message.of("tools", Role.TOOL, ToolResult.of("call_1", "sunny")));
        ModelResponse second = model.complete(request(chat, List.of(WEATHER)));

        assertThat(first.message().toolCalls())
                .containsExactly(new ToolCall("call_1", "get_weather", "{\"city\":\"Paris\"}"));
        assertThat(first.message().sender()).isEqualTo("assistant");
        assertThat(first.message().metadata()).as("replies carry no metadata").isEmpty();
        assertThat(first.stopReason()).isEqualTo(StopReason.TOOL_USE);
        assertThat(second.message().text()).isEqualTo("It is sunny.");
        assertThat(second.stopReason()).isEqualTo(StopReason.END_TURN);
        assertThat(second.usage()).isEqualTo(Usage.ZERO);
        assertThat(second.provider()).isEqualTo("scripted");
        assertThat(second.model()).isNull();
        assertThat(chat.size()).isEqualTo(4);

        List<ScriptedCompleter.Request> requests = model.requests();
        assertThat(requests).hasSize(2);
        assertThat(requests.getFirst().systemPrompt()).hasValue("be brief");
        assertThat(requests.getFirst().messages()).hasSize(2);
        assertThat(requests.getFirst().toolNames()).containsExactly("get_weather");
        assertThat(requests.get(1).last().orElseThrow().toolResults().getFirst().text()).isEqualTo("sunny");
        assertThat(requests.get(1).step()).isEqualTo(1);
    }

    @Test
    void toolCallIdsCountTheCallsAlreadyInTheChat() {
        ScriptedCompleter model = ScriptedCompleter.of(
                Step.toolCall("a", "{}"),
                Step.toolCalls(new Step.Call("b", "{\"x\":1}"), new Step.Call("c", null)));
        Chat chat = Chat.of(Message.user("go"));

        chat.append(model.complete(request(chat, List.of())).message());
        Message second = model.complete(request(chat, List.of())).message();

        assertThat(second.toolCalls()).containsExactly(
                new ToolCall("call_2", "b", "{\"x\":1}"), new ToolCall("call_3", "c", "{}"));
    }

    @Test
    void delegationStepsWriteTheDelegateToolsArguments() {
        ModelRequest empty = ModelRequest.of(List.of());
        Message one = Step.delegate("worker", "do \"X\"").respond().apply(empty).message();
        Message many = Step.delegate(new Step.Task("a", "t1", "line1\nline2"), new Step.Task("b", "t2", null))
                .respond().apply(empty).message();

        assertThat(one.toolCalls().getFirst().name()).isEqualTo("delegate");
        assertThat(one.toolCalls().getFirst().arguments())
                .isEqualTo("{\"tasks\":[{\"agent\":\"worker\",\"task\":\"do \\\"X\\\"\"}]}");
        assertThat(many.toolCalls().getFirst().arguments()).isEqualTo(
                "{\"tasks\":[{\"agent\":\"a\",\"task\":\"t1\",\"context\":\"line1\\nline2\"},"
                        + "{\"agent\":\"b\",\"task\":\"t2\"}]}");
    }

    @Test
    void repliesMayBeComputedFromTheChatAndCarryUsageAndText() {
        ScriptedCompleter model = ScriptedCompleter.of(
                Step.reply(chat -> "echo: " + chat.last().orElseThrow().text()).withUsage(Usage.of(7, 2)),
                Step.toolCall("t", "{}").withText("Let me look."));
        Chat chat = Chat.of(Message.user("hi"));

        ModelResponse echo = model.complete(request(chat, List.of()));
        Message withText = model.complete(request(chat, List.of())).message();

        assertThat(echo.message().text()).isEqualTo("echo: hi");
        assertThat(echo.usage()).isEqualTo(Usage.of(7, 2));
        assertThat(withText.text()).isEqualTo("Let me look.");
        assertThat(withText.toolCalls()).hasSize(1);
    }

    @Test
    void streamsTextAsWordsThenToolCallsThenUsage() {
        ScriptedCompleter model = ScriptedCompleter.of(
                Step.toolCall("get_weather", "{\"city\":\"Oslo\"}").withText("Checking  the weather.")
                        .withUsage(Usage.of(3, 4)));
        List<Delta> deltas = new ArrayList<>();

        Message reply = model.complete(request(Chat.of(Message.user("?")), List.of(WEATHER)), deltas::add).message();

        assertThat(deltas).containsExactly(
                new Delta.TextDelta("Checking"),
                new Delta.TextDelta("  the"),
                new Delta.TextDelta(" weather."),
                new Delta.ToolCallStart(0, "call_1", "get_weather"),
                new Delta.ToolCallArguments(0, "{\"city\":\"Oslo\"}"),
                new Delta.UsageDelta(Usage.of(3, 4)));
        assertThat(reply.text()).isEqualTo("Checking  the weather.");
    }

    @Test
    void wordChunksConcatenateToTheText() {
        for (String text : List.of("", " ", "a", " lead", "trail ", "a  b\n\nc", "\n")) {
            assertThat(String.join("", ScriptedCompleter.words(text))).isEqualTo(text);
        }
    }

    @Test
    void failsWithTheScriptedModelException() {
        ModelException overloaded = ModelException.builder(ModelException.Kind.OVERLOADED).provider("p").build();
        ScriptedCompleter model = ScriptedCompleter.of(Step.fail(overloaded));

        assertThatThrownBy(() -> model.complete(request(Chat.of(Message.user("x")), List.of()))).isSameAs(overloaded);
    }

    @Test
    void aCallPastTheEndOfTheScriptSaysSo() {
        ScriptedCompleter model = ScriptedCompleter.of(Step.reply("only"));
        Chat chat = Chat.of(Message.user("again please"));
        model.complete(request(chat, List.of()));

        assertThatThrownBy(() -> model.complete(request(chat, List.of())))
                .isInstanceOfSatisfying(ModelException.class, e -> assertThat(e.kind())
                        .isEqualTo(ModelException.Kind.INVALID_RESPONSE))
                .hasMessage("scripted: invalid response: the script has 1 step and was called for step 2; "
                        + "the chat's last message is from 'user' (user): 'again please'");
    }

    @Test
    @Timeout(10)
    void aDelayedStepWaitsAndAnswersInterruptsWithACancellation() throws Exception {
        ScriptedCompleter model = ScriptedCompleter.of(Step.reply("late").after(Duration.ofMinutes(5)));
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        AtomicReference<Boolean> flag = new AtomicReference<>();
        Thread caller = Thread.ofVirtual().start(() -> {
            try {
                model.complete(request(Chat.of(Message.user("x")), List.of()));
            } catch (Throwable t) {
                thrown.set(t);
                flag.set(Thread.currentThread().isInterrupted());
            }
        });

        assertThat(model.awaitCalls(1, Duration.ofSeconds(5))).isTrue();
        caller.interrupt();
        caller.join();

        assertThat(thrown.get()).isInstanceOf(CancellationException.class);
        assertThat(flag.get()).isTrue();
    }

    @Test
    @Timeout(10)
    void aHangingStepWaitsUntilInterrupted() throws Exception {
        ScriptedCompleter model = ScriptedCompleter.of(Step.hang());
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread caller = Thread.ofVirtual().start(() -> {
            try {
                model.complete(request(Chat.of(Message.user("x")), List.of()));
            } catch (Throwable t) {
                thrown.set(t);
            }
        });

        assertThat(model.awaitCalls(1, Duration.ofSeconds(5))).isTrue();
        Thread.sleep(20);
        assertThat(caller.isAlive()).isTrue();
        caller.interrupt();
        caller.join();

        assertThat(thrown.get()).isInstanceOf(CancellationException.class);
    }

    @Test
    void anInterruptedCallerIsRefusedAtOnce() {
        ScriptedCompleter model = ScriptedCompleter.of(Step.reply("never"));
        Thread.currentThread().interrupt();
        try {
            assertThatThrownBy(() -> model.complete(request(Chat.of(Message.user("x")), List.of())))
                    .isInstanceOf(CancellationException.class);
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
        assertThat(model.callCount()).isZero();
    }

    @Test
    void awaitCallsTimesOut() throws InterruptedException {
        assertThat(ScriptedCompleter.of(Step.reply("x")).awaitCalls(1, Duration.ofMillis(10))).isFalse();
    }

    @RepeatedTest(5)
    @Timeout(20)
    void perChatGivesEveryConcurrentChatTheWholeScript() throws Exception {
        ScriptedCompleter model = ScriptedCompleter.perChat(
                Step.toolCall("work", "{}"),
                Step.reply(chat -> "done " + chat.messages().getFirst().text()));
        int n = 200;
        List<String> answers = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String task = "task-" + i;
            threads.add(Thread.ofVirtual().start(() -> {
                try {
                    start.await();
                    Chat chat = Chat.of(Message.user(task));
                    Message call = model.complete(request(chat, List.of())).message();
                    chat.append(call, Message.of("tools", Role.TOOL, ToolResult.of(call.toolCalls().getFirst().id(), "ok")));
                    answers.add(model.complete(request(chat, List.of())).message().text());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }));
        }
        start.countDown();
        for (Thread t : threads) {
            t.join();
        }

        assertThat(answers).hasSize(n);
        for (int i = 0; i < n; i++) {
            assertThat(answers).contains("done task-" + i);
        }
        assertThat(model.callCount()).isEqualTo(2 * n);
    }

    @Test
    void respondStepsGiveWholeResponsesAndWithModelNamesTheModel() {
        ScriptedCompleter model = ScriptedCompleter.of(
                Step.respond(r -> new ModelResponse(Message.text("a", Role.ASSISTANT, "cut"), new Usage(5, 9, 100, 0),
                        StopReason.MAX_TOKENS, "length", null, "resp_1", null)),
                Step.reply("priced").withModel("claude-sonnet-4-5").withUsage(Usage.of(1, 2)));
        ModelRequest request = ModelRequest.builder().message(Message.user("q")).maxTokens(9).build();

        ModelResponse cut = model.complete(request);
        ModelResponse priced = model.complete(request);

        assertThat(cut).isEqualTo(new ModelResponse(Message.text("a", Role.ASSISTANT, "cut"), new Usage(5, 9, 100, 0),
                StopReason.MAX_TOKENS, "length", null, "resp_1", "scripted"));
        assertThat(priced.model()).isEqualTo("claude-sonnet-4-5");
        assertThat(priced.usage()).isEqualTo(Usage.of(1, 2));
        assertThat(model.requests().getFirst().options().maxTokens()).isEqualTo(9);
    }

    @RepeatedTest(5)
    @Timeout(20)
    void aSharedScriptHandsEachStepOutExactlyOnce() throws Exception {
        int n = 100;
        List<Step> steps = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            steps.add(Step.reply("r" + i));
        }
        ScriptedCompleter model = ScriptedCompleter.of(steps);
        List<String> got = Collections.synchronizedList(new ArrayList<>());
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            threads.add(Thread.ofVirtual().start(() -> got.add(model.complete(request(Chat.of(Message.user("x")), List.of())).message().text())));
        }
        for (Thread t : threads) {
            t.join();
        }

        assertThat(got).hasSize(n).doesNotHaveDuplicates();
    }
    @Test
    void requestsOfAKindWithAScriptOfTheirOwnFollowItWhileTheRestFollowTheMainScript() {
        ScriptedCompleter model = ScriptedCompleter.perChat(Step.reply("turn one"), Step.reply("turn two"))
                .on(ScriptedCompleter.Kind.SUMMARY, Step.reply("summary one"), Step.reply("summary two"))
                .on(ScriptedCompleter.Kind.STRUCTURED, Step.reply("{\"city\":\"Paris\"}"));
        Chat a = Chat.of(Message.user("a"));
        Chat b = Chat.of(Message.user("b"));
        ModelRequest summary = ModelRequest.of(List.of(Message.system("You compress"), Message.user("Messages to summarise")));
        ModelRequest structured = ModelRequest.builder().message(Message.user("a city?")).conversationId(a.id())
                .responseFormat(new dev.shelly.modeladapter.ResponseFormat.JsonSchema("City", "{\"type\":\"object\"}", true))
                .build();

        assertThat(model.complete(request(a, List.of(WEATHER))).message().text()).isEqualTo("turn one");
        assertThat(model.complete(summary).message().text()).as("a summary has no chat, yet perChat answers it")
                .isEqualTo("summary one");
        assertThat(model.complete(request(b, List.of())).message().text()).isEqualTo("turn one");
        assertThat(model.complete(structured).message().text()).isEqualTo("{\"city\":\"Paris\"}");
        assertThat(model.complete(request(a, List.of(WEATHER))).message().text()).isEqualTo("turn two");
        assertThat(model.complete(summary).message().text()).isEqualTo("summary two");

        assertThat(model.requests()).extracting(ScriptedCompleter.Request::kind).containsExactly(
                ScriptedCompleter.Kind.TURN, ScriptedCompleter.Kind.SUMMARY, ScriptedCompleter.Kind.TURN,
                ScriptedCompleter.Kind.STRUCTURED, ScriptedCompleter.Kind.TURN, ScriptedCompleter.Kind.SUMMARY);
        assertThat(model.requests().get(1).conversationId()).isNull();
        assertThat(model.requests().get(1).systemPrompt()).hasValue("You compress");
        assertThat(model.requests().get(5).step()).as("the summary script's own step").isEqualTo(1);
        assertThatThrownBy(() -> model.complete(summary)).isInstanceOf(ModelException.class)
                .hasMessageContaining("the SUMMARY script has 2 steps and was called for step 3; "
                        + "the chat's last message is from 'user' (user): 'Messages to summarise'");
    }

    @Test
    void aPerChatScriptWithoutASummaryScriptSaysHowToScriptARequestWithNoChat() {
        ScriptedCompleter model = ScriptedCompleter.perChat(Step.reply("turn"));
        assertThatThrownBy(() -> model.complete(ModelRequest.of(List.of(Message.user("summarise")))))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("ScriptedCompleter.perChat needs requests with a conversationId; an agent sets it to its "
                        + "chat's id (script a SUMMARY request with on(Kind.SUMMARY, ...))");
    }
}
