package dev.shelly.agent;

import static dev.shelly.agent.Fixtures.assertEveryCallAnsweredOnce;
import static dev.shelly.agent.Fixtures.tool;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.testing.ScriptedCompleter;
import dev.shelly.testing.Step;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolOutput;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** An agent is a description: conversations hold the state, and one agent runs many at once. */
@Timeout(60)
class ConversationTest {

    private static String lastUserText(dev.shelly.modeladapter.ModelRequest request) {
        String text = "";
        for (Message m : request.messages()) {
            if (m.role() == Role.USER) {
                text = m.text();
            }
        }
        return text;
    }

    @Test
    void oneAgentRunsAHundredConversationsAtOnce() throws Exception {
        int n = 100;
        CountDownLatch allInTools = new CountDownLatch(n);
        Agent agent = Agent.builder("support")
                .toolboxes(ToolBox.of(tool("lookup", (input, ctx) -> {
                    allInTools.countDown();
                    // Every conversation waits here until all are inside a tool call at once.
                    if (!allInTools.await(30, TimeUnit.SECONDS)) {
                        return ToolOutput.text("alone");
                    }
                    return ToolOutput.text("found for " + ctx.runId());
                })))
                .completer(ScriptedCompleter.perChat(Step.toolCall("lookup", "{}"),
                        Step.reply(request -> "answer to " + lastUserText(request)),
                        Step.reply(request -> "and to " + lastUserText(request))))
                .build();
        List<Conversation> conversations = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            conversations.add(new Conversation());
        }
        // Two turns on every conversation, each turn of all of them at once on one agent.
        for (String turn : List.of("question ", "follow-up ")) {
            List<Future<Message>> replies = new ArrayList<>();
            try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
                for (int i = 0; i < n; i++) {
                    Conversation c = conversations.get(i);
                    String text = turn + i;
                    replies.add(threads.submit(() -> agent.run(c, text, RunContext.root())));
                }
                for (int i = 0; i < n; i++) {
                    assertThat(replies.get(i).get(30, TimeUnit.SECONDS).text())
                            .isEqualTo((turn.equals("question ") ? "answer to " : "and to ") + turn + i);
                }
            }
        }

        assertThat(allInTools.getCount()).isZero();
        java.util.Set<String> toolResults = new java.util.HashSet<>();
        for (int i = 0; i < n; i++) {
            List<Message> chat = conversations.get(i).chat().messages();
            // Exactly its own messages: no other conversation's question, result or answer.
            assertThat(chat).extracting(Message::role).containsExactly(Role.SYSTEM, Role.USER, Role.ASSISTANT,
                    Role.TOOL, Role.ASSISTANT, Role.USER, Role.ASSISTANT);
            assertThat(chat).extracting(Message::text).containsExactly(agent.systemPrompt(), "question " + i, "",
                    chat.get(3).text(), "answer to question " + i, "follow-up " + i, "and to follow-up " + i);
            String result = chat.get(3).toolResults().getFirst().text();
            assertThat(result).startsWith("found for run_");
            assertThat(toolResults.add(result)).as("each conversation's tool ran in its own run").isTrue();
            assertEveryCallAnsweredOnce(conversations.get(i).chat());
            assertThat(conversations.get(i).running()).isFalse();
        }
        assertThat(agent.chat().isEmpty()).as("the agent's own conversation is untouched").isTrue();
    }

    @Test
    void aConversationTakesOneRunAtATime() throws Exception {
        CountDownLatch inTool = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        java.util.concurrent.atomic.AtomicBoolean first = new java.util.concurrent.atomic.AtomicBoolean(true);
        Agent agent = Agent.builder("a")
                .toolboxes(ToolBox.of(tool("wait", (input, ctx) -> {
                    if (first.getAndSet(false)) {   // only the first run's call waits
                        inTool.countDown();
                        release.await();
                    }
                    return ToolOutput.text("done");
                })))
                .completer(ScriptedCompleter.perChat(Step.toolCall("wait", "{}"), Step.reply("ok")))
                .build();
        Conversation shared = new Conversation();
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            Future<Message> running = threads.submit(() -> agent.run(shared, "one", RunContext.root()));
            assertThat(inTool.await(10, TimeUnit.SECONDS)).isTrue();

            assertThatThrownBy(() -> agent.run(shared, "two", RunContext.root()))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage("a run is already on the conversation; agent 'a' runs a conversation one run at a time");
            assertThat(agent.run(new Conversation(), "elsewhere", RunContext.root()).text())
                    .as("another conversation on the same agent runs meanwhile").isEqualTo("ok");

            release.countDown();
            assertThat(running.get(10, TimeUnit.SECONDS).text()).isEqualTo("ok");
        }
    }

    @Test
    void theConvenienceMethodsContinueTheAgentsOwnConversation() {
        Agent agent = Agent.builder("a")
                .completer(ScriptedCompleter.of(Step.reply("first"), Step.reply("second"))).build();

        agent.run("one");
        agent.run("two");

        assertThat(agent.conversation().chat()).isSameAs(agent.chat());
        assertThat(agent.chat().messages()).extracting(Message::text)
                .containsExactly(agent.systemPrompt(), "one", "first", "two", "second");
    }
}
