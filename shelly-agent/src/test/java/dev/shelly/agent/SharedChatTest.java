package dev.shelly.agent;

import static dev.shelly.agent.Fixtures.assertEveryCallAnsweredOnce;
import static dev.shelly.agent.Fixtures.tool;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.chats.ToolResult;
import dev.shelly.testing.ScriptedCompleter;
import dev.shelly.testing.Step;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolOutput;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What workflows rely on in an agent: receive, stop tools, and a prompt kept out of a shared chat. */
@Timeout(30)
class SharedChatTest {

    @Test
    void receiveWritesThePromptBeforeTheInputAndAnnouncesEach() {
        List<AgentEvent> events = Collections.synchronizedList(new ArrayList<>());
        ScriptedCompleter model = ScriptedCompleter.of(Step.reply("done"));
        Agent a = Agent.builder("a").description("Does things").completer(model).listener(events::add).build();

        a.receive(List.of(Message.text("lead", Role.USER, "task one"), Message.text("lead", Role.USER, "task two")));
        a.run();

        assertThat(a.chat().messages()).extracting(Message::sender, Message::role, Message::text).containsExactly(
                org.assertj.core.groups.Tuple.tuple("system", Role.SYSTEM, "You are a. Does things"),
                org.assertj.core.groups.Tuple.tuple("lead", Role.USER, "task one"),
                org.assertj.core.groups.Tuple.tuple("lead", Role.USER, "task two"),
                org.assertj.core.groups.Tuple.tuple("a", Role.ASSISTANT, "done"));
        assertThat(events).filteredOn(AgentEvent.MessageAdded.class::isInstance).hasSize(4);
    }

    @Test
    void receiveOnAChatThatIsNotEmptyOnlyAppends() {
        Agent a = Agent.builder("a").completer(ScriptedCompleter.of()).chat(Chat.of(Message.user("hi"))).build();

        a.receive(List.of(Message.user("more")));

        assertThat(a.chat().messages()).extracting(Message::text).containsExactly("hi", "more");
        assertThatThrownBy(() -> a.receive(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Agent.receive input of 'a' must not be null");
    }

    @Test
    void aWrappedAgentReceivesThroughItsWrapper() {
        Agent a = Agent.builder("a").completer(ScriptedCompleter.of(Step.reply("ok"))).build();
        Runner wrapped = Runner.around(a, a::run);

        wrapped.receive(List.of(Message.user("task")));
        wrapped.run();

        assertThat(a.chat().messages()).extracting(Message::role)
                .containsExactly(Role.SYSTEM, Role.USER, Role.ASSISTANT);
    }

    @Test
    void aPlainRunnerReceivesIntoItsChat() {
        Chat chat = new Chat();
        Runner plain = new Runner() {
            @Override
            public String name() {
                return "plain";
            }

            @Override
            public Chat chat() {
                return chat;
            }

            @Override
            public Message run(RunContext context) {
                return chat.last().orElseThrow();
            }
        };

        plain.receive(List.of(Message.user("x"), Message.user("y")));
        plain.receive(List.of());

        assertThat(chat.messages()).extracting(Message::text).containsExactly("x", "y");
    }

    @Test
    void aStopToolEndsTheRunWithTheTurnsResults() {
        ScriptedCompleter model = ScriptedCompleter.of(
                Step.toolCalls(new Step.Call("lookup", "{}"), new Step.Call("finish", "{}")), Step.reply("unreached"));
        ToolBox box = ToolBox.of(tool("lookup", (i, c) -> ToolOutput.text("found")),
                tool("finish", (i, c) -> ToolOutput.text("finished")));
        Agent a = Agent.builder("a").completer(model).toolboxes(box).stopAtTools("finish").build();

        Message reply = a.run("go");

        assertThat(reply.role()).isEqualTo(Role.TOOL);
        assertThat(reply.sender()).isEqualTo("a");
        assertThat(reply.parts()).containsExactly(ToolResult.of("call_1", "found"), ToolResult.of("call_2", "finished"));
        assertThat(a.chat().last()).contains(reply);
        assertThat(model.callCount()).isEqualTo(1);
        assertEveryCallAnsweredOnce(a.chat());
        assertThat(a.stopTools()).containsExactly("finish");
    }

    @Test
    void otherToolsDoNotStopTheRun() {
        ScriptedCompleter model = ScriptedCompleter.of(Step.toolCall("lookup", "{}"), Step.reply("answer"));
        Agent a = Agent.builder("a").completer(model).stopAtTools("finish")
                .toolboxes(ToolBox.of(tool("lookup", (i, c) -> ToolOutput.text("found")))).build();

        assertThat(a.run("go").text()).isEqualTo("answer");
    }

    @Test
    void aPromptKeptOutOfTheChatIsWhatTheModelSeesFirst() {
        Chat shared = Chat.of(Message.system("You are part of a support team."), Message.user("help"));
        ScriptedCompleter model = ScriptedCompleter.perChat(Step.toolCall("lookup", "{}"), Step.reply("first"),
                Step.reply("second"));
        Agent a = Agent.builder("billing").description("Handles invoices").completer(model).chat(shared)
                .toolboxes(ToolBox.of(tool("lookup", (i, c) -> ToolOutput.text("invoice 7")))).systemPromptInChat(false)
                .build();

        a.run();
        shared.append(Message.user("thanks"));
        a.run();

        assertThat(shared.messages()).extracting(Message::role).containsExactly(Role.SYSTEM, Role.USER,
                Role.ASSISTANT, Role.TOOL, Role.ASSISTANT, Role.USER, Role.ASSISTANT);
        List<ScriptedCompleter.Request> requests = model.requests();
        assertThat(requests).extracting(ScriptedCompleter.Request::step).containsExactly(0, 1, 2);
        assertThat(requests.get(0).messages()).extracting(Message::text)
                .containsExactly("You are billing. Handles invoices", "You are part of a support team.", "help");
        assertThat(requests.get(2).messages().subList(1, requests.get(2).messages().size()))
                .isEqualTo(shared.messages().subList(0, 6));
        assertThat(requests.get(2).messages().getFirst().text()).isEqualTo("You are billing. Handles invoices");
        assertThat(a.systemPromptInChat()).isFalse();
    }

    @Test
    void onAnEmptyChatAPromptKeptOutWritesNothing() {
        ScriptedCompleter model = ScriptedCompleter.of(Step.reply("hi"));
        Agent a = Agent.builder("a").completer(model).systemPromptInChat(false).build();

        a.run("hello");

        assertThat(a.chat().messages()).extracting(Message::role).containsExactly(Role.USER, Role.ASSISTANT);
        assertThat(model.requests().getFirst().systemPrompt()).hasValue("You are a.");
    }
}
