package dev.shelly.agent.workflow;

import static dev.shelly.agent.Fixtures.assertEveryCallAnsweredOnce;
import static dev.shelly.agent.Fixtures.tool;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.groups.Tuple.tuple;

import dev.shelly.agent.Agent;
import dev.shelly.agent.AgentEvent;
import dev.shelly.agent.Fixtures;
import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.chats.Text;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolDefinition;
import dev.shelly.chats.ToolResult;
import dev.shelly.testing.ScriptedCompleter;
import dev.shelly.testing.Step;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolContext;
import dev.shelly.tools.ToolOutput;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class HandoffTest {

    private final List<AgentEvent> events = Collections.synchronizedList(new ArrayList<>());

    private static Step.Answer transferTo(String member) {
        return Step.toolCall(Handoff.TRANSFER_PREFIX + member, "{}");
    }

    private Handoff desk(ScriptedCompleter triage, ScriptedCompleter flights, ScriptedCompleter hotels, int maxHandoffs) {
        ToolBox flightTools = ToolBox.of(tool("change_flight", (i, c) -> ToolOutput.text("changed")));
        return Handoff.builder("support")
                .chat(Chat.of(Message.system("You are part of a customer support team.")))
                .member("triage", "Finds out what the customer needs",
                        ctx -> ctx.agent().completer(triage).instructions("Route the customer.").build())
                .member("flights", "Books and changes flights",
                        ctx -> ctx.agent().completer(flights).toolboxes(flightTools).build())
                .member("hotels", "Books hotels", ctx -> ctx.agent().completer(hotels).build())
                .maxHandoffs(maxHandoffs)
                .listener(events::add)
                .build();
    }

    @Test
    void triageHandsTheConversationToFlightsWhoAnswersOnTheSameChat() {
        ScriptedCompleter triage = ScriptedCompleter.of(transferTo("flights").withText("Let me connect you."));
        ScriptedCompleter flights = ScriptedCompleter.of(Step.toolCall("change_flight", "{\"date\":\"March 5\"}"),
                Step.reply("Your flight is now on March 5."));
        Handoff desk = desk(triage, flights, ScriptedCompleter.of(), 10);

        Message answer = desk.run("I need to change my flight");

        Chat shared = desk.chat();
        assertThat(shared.messages()).extracting(Message::sender, Message::role).containsExactly(
                tuple("system", Role.SYSTEM), tuple("user", Role.USER),
                tuple("triage", Role.ASSISTANT), tuple("triage", Role.TOOL),
                tuple("flights", Role.ASSISTANT), tuple("flights", Role.TOOL), tuple("flights", Role.ASSISTANT));
        assertThat(shared.get(2).parts()).containsExactly(new Text("Let me connect you."),
                new ToolCall("call_1", "transfer_to_flights", "{}"));
        assertThat(shared.get(3).parts()).containsExactly(
                ToolResult.of("call_1", "Transferred the conversation to 'flights'; flights answers next."));
        assertThat(answer).isEqualTo(shared.get(6));
        assertThat(answer.text()).isEqualTo("Your flight is now on March 5.");
        assertThat(desk.active()).isEqualTo("flights");
        assertEveryCallAnsweredOnce(shared);

        ScriptedCompleter.Request triageSaw = triage.requests().getFirst();
        assertThat(triageSaw.messages()).extracting(Message::text).containsExactly(
                "You are triage. Finds out what the customer needs\n\n## Instructions\n\nRoute the customer.",
                "You are part of a customer support team.", "I need to change my flight");
        assertThat(triageSaw.tools()).extracting(ToolDefinition::name)
                .containsExactly("transfer_to_flights", "transfer_to_hotels");
        assertThat(triageSaw.tools().getFirst().description()).isEqualTo("Transfer the conversation to flights (Books "
                + "and changes flights). Call it when flights should take over: you stop, and flights answers next.");
        ScriptedCompleter.Request flightsSaw = flights.requests().getFirst();
        assertThat(flightsSaw.systemPrompt()).hasValue("You are flights. Books and changes flights");
        assertThat(flightsSaw.messages().subList(1, flightsSaw.messages().size())).isEqualTo(shared.messages().subList(0, 4));
        assertThat(flightsSaw.toolNames()).containsExactly("transfer_to_triage", "transfer_to_hotels", "change_flight");
    }

    @Test
    void theTransferIsAnEventBetweenTheTwoAgentsRuns() {
        Handoff desk = desk(ScriptedCompleter.of(transferTo("flights")),
                ScriptedCompleter.of(Step.reply("Done.")), ScriptedCompleter.of(), 10);

        desk.run("help");

        List<String> order = new ArrayList<>();
        for (AgentEvent e : events) {
            switch (e) {
                case AgentEvent.AgentStarted s -> order.add("started " + s.source().agent());
                case AgentEvent.AgentFinished f -> order.add("finished " + f.source().agent());
                case AgentEvent.HandedOff h -> order.add("handed off " + h.source().agent() + " -> " + h.to() + " in "
                        + h.group() + " #" + h.handoffs());
                default -> { }
            }
        }
        assertThat(order).containsExactly("started triage", "finished triage",
                "handed off triage -> flights in support #1", "started flights", "finished flights");
    }

    @Test
    void theAgentWhoAnsweredLastGetsTheNextMessage() {
        ScriptedCompleter flights = ScriptedCompleter.of(Step.reply("Flight changed."), transferTo("hotels"));
        ScriptedCompleter hotels = ScriptedCompleter.of(Step.reply("Hotel booked."));
        Handoff desk = desk(ScriptedCompleter.of(transferTo("flights")), flights, hotels, 1);

        desk.run("Change my flight");
        Message second = desk.run("And book a hotel");

        assertThat(second.sender()).isEqualTo("hotels");
        assertThat(desk.active()).isEqualTo("hotels");
        assertThat(desk.chat().messages()).extracting(Message::sender).containsExactly("system", "user",
                "triage", "triage", "flights", "user", "flights", "flights", "hotels");
    }

    @Test
    void theHandoffLimitIsEnforcedWithAClearError() {
        ScriptedCompleter triage = ScriptedCompleter.of(transferTo("flights"), transferTo("flights"));
        ScriptedCompleter flights = ScriptedCompleter.of(transferTo("triage"));
        Handoff desk = desk(triage, flights, ScriptedCompleter.of(), 2);

        assertThatThrownBy(() -> desk.run("ping-pong")).isInstanceOfSatisfying(MaxHandoffsException.class, e -> {
            assertThat(e.limit()).isEqualTo(2);
            assertThat(e.path()).containsExactly("triage", "flights", "triage");
            assertThat(e.agent()).isEqualTo("support");
        }).hasMessage("hand-off group 'support' reached its limit of 2 handoffs (triage -> flights -> triage); "
                + "'triage' asked for another transfer, to 'flights'");

        assertThat(desk.chat().last().orElseThrow().parts()).containsExactly(ToolResult.error("call_3",
                "cannot transfer to 'flights': this conversation reached its limit of 2 handoffs"));
        assertEveryCallAnsweredOnce(desk.chat());
        assertThat(events).filteredOn(AgentEvent.HandedOff.class::isInstance).hasSize(2);
        assertThat(desk.active()).isEqualTo("triage");
    }

    @RepeatedTest(3)
    void aSecondTransferInOneTurnIsRefused() {
        ScriptedCompleter triage = ScriptedCompleter.of(Step.toolCalls(
                new Step.Call("transfer_to_flights", "{}"), new Step.Call("transfer_to_hotels", "{}")));
        Handoff desk = desk(triage, ScriptedCompleter.of(Step.reply("flights here")),
                ScriptedCompleter.of(Step.reply("hotels here")), 10);

        Message answer = desk.run("help");

        List<ToolResult> results = desk.chat().get(3).toolResults();
        assertThat(results).hasSize(2);
        assertThat(results).filteredOn(ToolResult::isError).hasSize(1).first().extracting(ToolResult::text)
                .asString().matches("cannot transfer to '(flights|hotels)': the conversation is already being "
                        + "transferred to '(flights|hotels)'; transfer to one agent at a time");
        ToolResult accepted = results.stream().filter(r -> !r.isError()).findFirst().orElseThrow();
        assertThat(accepted.text()).isEqualTo("Transferred the conversation to '" + desk.active() + "'; "
                + desk.active() + " answers next.");
        assertThat(answer.sender()).isEqualTo(desk.active());
        assertEveryCallAnsweredOnce(desk.chat());
    }

    @Test
    void anAgentThatDoesNotStopAtTheTransferHandsOverWhenItFinishes() {
        Handoff desk = Handoff.builder("desk")
                .member("a", "", ctx -> Agent.builder("a").chat(ctx.chat()).toolboxes(ctx.transfers())
                        .completer(ScriptedCompleter.of(transferTo("b"), Step.reply("Transferring you now."))).build())
                .member("b", "", ctx -> ctx.agent().completer(ScriptedCompleter.of(Step.reply("b here"))).build())
                .build();

        Message answer = desk.run("hi");

        assertThat(answer.text()).isEqualTo("b here");
        assertThat(desk.chat().messages()).extracting(Message::sender)
                .containsExactly("user", "a", "a", "a", "b");
    }

    @Test
    void cancellingTheActiveAgentCancelsTheGroupAndLeavesNoOpenCall() throws Exception {
        ScriptedCompleter flights = ScriptedCompleter.of(Step.hang());
        Handoff desk = desk(ScriptedCompleter.of(transferTo("flights")), flights, ScriptedCompleter.of(), 10);

        Fixtures.Background run = new Fixtures.Background(() -> desk.run("help"));
        assertThat(flights.awaitCalls(1, Duration.ofSeconds(10))).isTrue();
        assertThatThrownBy(desk::run).isInstanceOf(IllegalStateException.class)
                .hasMessage("hand-off group 'support' is already running; it runs one run() at a time");
        run.interruptAndJoin();

        assertThat(run.error.get()).isInstanceOf(CancellationException.class);
        assertThat(run.interruptedAfter.get()).isTrue();
        assertEveryCallAnsweredOnce(desk.chat());
        assertThat(desk.active()).isEqualTo("flights");
    }

    @Test
    void aTransferOutsideARunIsRefused() {
        AtomicReference<ToolBox> transfers = new AtomicReference<>();
        Handoff.builder("desk")
                .member("a", "", ctx -> {
                    transfers.set(ctx.transfers());
                    return ctx.agent().completer(ScriptedCompleter.of()).build();
                })
                .member("b", "", ctx -> ctx.agent().completer(ScriptedCompleter.of()).build())
                .build();

        ToolResult result = transfers.get().call(new ToolCall("x", "transfer_to_b", "{}"), ToolContext.of("a"));

        assertThat(result).isEqualTo(ToolResult.error("x", "cannot transfer to 'b': hand-off group 'desk' is not running"));
    }

    @Test
    void theBuilderRefusesGroupsThatCannotWork() {
        ScriptedCompleter m = ScriptedCompleter.of();
        assertThatThrownBy(() -> Handoff.builder("g").member("a", "", ctx -> ctx.agent().completer(m).build()).build())
                .hasMessage("hand-off group 'g' needs at least two members, has 1");
        assertThatThrownBy(() -> Handoff.builder("g").member("a b", "", ctx -> null))
                .hasMessage("member name 'a b' of hand-off group 'g' cannot name a tool transfer_to_a b: use 1 to 52 "
                        + "letters, digits, '_' or '-'");
        assertThatThrownBy(() -> Handoff.builder("g").member("a", "", ctx -> ctx.agent().completer(m).build())
                .member("b", "", ctx -> ctx.agent().completer(m).build()).start("c").build())
                .hasMessage("hand-off group 'g' cannot start with 'c': it is not a member; members: a, b");
        assertThatThrownBy(() -> Handoff.builder("g").member("a", "", ctx -> ctx.agent().completer(m).build())
                .member("b", "", ctx -> Agent.builder("bee").chat(ctx.chat()).completer(m).build()).build())
                .hasMessage("the factory of member 'b' of hand-off group 'g' built a runner named 'bee'; use ctx.agent() "
                        + "or the name 'b'");
        assertThatThrownBy(() -> Handoff.builder("g").member("a", "", ctx -> ctx.agent().completer(m).build())
                .member("b", "", ctx -> Agent.builder("b").completer(m).build()).build())
                .hasMessage("member 'b' of hand-off group 'g' works on a chat of its own; build it on ctx.chat(), the "
                        + "chat the group shares");
        assertThatThrownBy(() -> Handoff.builder("g").member("a", "", ctx -> ctx.agent().completer(m).build())
                .member("a", "", ctx -> null))
                .hasMessage("hand-off group 'g' has two members named 'a'");
    }
}
