package dev.shelly.agent.workflow;

import static dev.shelly.agent.Fixtures.assertEveryCallAnsweredOnce;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import dev.shelly.agent.Agent;
import dev.shelly.agent.Fixtures;
import dev.shelly.agent.RunInterceptor;
import dev.shelly.agent.Runner;
import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.chats.ToolResult;
import dev.shelly.testing.ScriptedCompleter;
import dev.shelly.testing.Step;
import dev.shelly.tools.ToolBox;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Workflows inside workflows: every one is a Runner, so any can be a member of any other. */
@Timeout(60)
class NestingTest {

    private final List<Agent> agents = Collections.synchronizedList(new ArrayList<>());
    private final AtomicReference<Team> department = new AtomicReference<>();
    private final AtomicReference<Team> researchers = new AtomicReference<>();

    private Agent agent(String name, Supplier<ScriptedCompleter> model, ToolBox... tools) {
        Agent a = Agent.builder(name).description("The " + name).completer(model.get()).toolboxes(tools).build();
        agents.add(a);
        return a;
    }

    private Agent find(String name) {
        return agents.stream().filter(a -> a.name().equals(name)).findFirst().orElseThrow();
    }

    /** The name an agent's system prompt gives it: "You are {name}. ..." */
    private static String whoAmI(dev.shelly.modeladapter.ModelRequest chat) {
        String prompt = chat.messages().getFirst().text();
        return prompt.substring("You are ".length(), prompt.indexOf('.'));
    }

    /**
     * Level 1, a tool: "department". Level 2, a team: the department, researchers then a writer.
     * Level 3, a team: the researchers, two at once, then a synthesizer.
     */
    private dev.shelly.tools.Tool departmentTool(Supplier<ScriptedCompleter> researcherModel, ToolBox... researcherTools) {
        return AgentTool.of("department", "A research department that writes reports", () -> {
            Team inner = Team.builder("researchers")
                    .member(agent("physicist", researcherModel, researcherTools), "research")
                    .member(agent("engineer", researcherModel, researcherTools), "research")
                    .member(agent("synthesizer", () -> ScriptedCompleter.of(Step.reply(chat ->
                            "Synthesis of " + chat.messages().get(2).text() + " and " + chat.messages().get(3).text()))),
                            "synthesize")
                    .coordinator(Coordinator.roleRoundRobin(1, "research", "synthesize"))
                    .build();
            Team outer = Team.builder("department")
                    .member(inner, "research", "Researches with several specialists")
                    .member(agent("writer", () -> ScriptedCompleter.of(Step.reply(chat ->
                            "Report: " + chat.last().orElseThrow().text()))), "write")
                    .coordinator(Coordinator.sequence())
                    .build();
            researchers.set(inner);
            department.set(outer);
            return outer;
        });
    }

    @Test
    void aTeamInsideATeamInsideAToolAnswersThroughEveryLevel() {
        ScriptedCompleter leadModel = ScriptedCompleter.of(
                Step.toolCall("department", "{\"task\":\"Report on quantum computing\"}"),
                Step.reply(chat -> "Here it is. " + chat.last().orElseThrow().toolResults().getFirst().text()));
        Agent lead = Agent.builder("lead").completer(leadModel)
                .toolboxes(ToolBox.of(departmentTool(() -> ScriptedCompleter.of(
                        Step.reply(chat -> whoAmI(chat) + " notes")))))
                .build();

        Message answer = lead.run("I need a report");

        assertThat(answer.text())
                .isEqualTo("Here it is. Report: Synthesis of physicist notes and engineer notes");
        assertThat(department.get().chat().messages()).extracting(Message::sender, Message::role, Message::text)
                .containsExactly(
                        tuple("lead", Role.USER, "Report on quantum computing"),
                        tuple("researchers", Role.ASSISTANT, "Synthesis of physicist notes and engineer notes"),
                        tuple("writer", Role.ASSISTANT, "Report: Synthesis of physicist notes and engineer notes"));
        assertThat(researchers.get().chat().messages()).extracting(Message::sender, Message::role, Message::text)
                .containsExactly(
                        tuple("lead", Role.USER, "Report on quantum computing"),
                        tuple("physicist", Role.ASSISTANT, "physicist notes"),
                        tuple("engineer", Role.ASSISTANT, "engineer notes"),
                        tuple("synthesizer", Role.ASSISTANT, "Synthesis of physicist notes and engineer notes"));
        assertThat(find("synthesizer").chat().messages()).extracting(Message::sender, Message::role).containsExactly(
                tuple("system", Role.SYSTEM), tuple("lead", Role.USER), tuple("physicist", Role.USER),
                tuple("engineer", Role.USER), tuple("synthesizer", Role.ASSISTANT));
        assertThat(find("writer").chat().messages()).extracting(Message::sender, Message::role).containsExactly(
                tuple("system", Role.SYSTEM), tuple("lead", Role.USER), tuple("researchers", Role.USER),
                tuple("writer", Role.ASSISTANT));
        assertThat(lead.chat().messages()).extracting(Message::role)
                .containsExactly(Role.SYSTEM, Role.USER, Role.ASSISTANT, Role.TOOL, Role.ASSISTANT);
    }

    @RepeatedTest(3)
    void cancellingTheTopInterruptsTheDeepestMembersAndLeavesNoOpenCallAnywhere() throws Exception {
        CountDownLatch bothDigging = new CountDownLatch(2);
        AtomicInteger interrupted = new AtomicInteger();
        ToolBox dig = ToolBox.of(Fixtures.blockingTool("dig", bothDigging, interrupted::incrementAndGet));
        Agent lead = Agent.builder("lead")
                .completer(ScriptedCompleter.of(Step.toolCall("department", "{\"task\":\"Report\"}")))
                .toolboxes(ToolBox.of(departmentTool(() -> ScriptedCompleter.of(Step.toolCall("dig", "{}")), dig)))
                .build();

        Fixtures.Background run = new Fixtures.Background(() -> lead.run("go"));
        assertThat(bothDigging.await(10, TimeUnit.SECONDS)).isTrue();
        run.interruptAndJoin();

        assertThat(run.error.get()).isInstanceOf(CancellationException.class).hasMessage("agent 'lead' was cancelled");
        assertThat(run.interruptedAfter.get()).isTrue();
        assertThat(interrupted.get()).isEqualTo(2);
        assertEveryCallAnsweredOnce(lead.chat());
        assertThat(lead.chat().last().orElseThrow().parts())
                .containsExactly(ToolResult.error("call_1", "tool 'department' was cancelled before it finished"));
        for (String name : List.of("physicist", "engineer")) {
            assertEveryCallAnsweredOnce(find(name).chat());
            assertThat(find(name).chat().last().orElseThrow().parts())
                    .containsExactly(ToolResult.error("call_1", "tool 'dig' was cancelled before it finished"));
        }
        assertThat(researchers.get().chat().messages()).extracting(Message::sender).containsExactly("lead");
        assertThat(department.get().chat().messages()).extracting(Message::sender).containsExactly("lead");
    }

    @Test
    void aHandOffGroupAndAWrappedAgentAreTeamMembersLikeAnyOther() {
        Handoff support = Handoff.builder("support")
                .member("triage", "Routes", ctx -> ctx.agent()
                        .completer(ScriptedCompleter.of(Step.toolCall("transfer_to_billing", "{}"))).build())
                .member("billing", "Handles invoices", ctx -> ctx.agent()
                        .completer(ScriptedCompleter.of(Step.reply("Refund issued."))).build())
                .build();
        ScriptedCompleter reporterModel = ScriptedCompleter.of(Step.reply(chat -> "Summary: " + chat.last().orElseThrow().text()));
        Agent reporter = Agent.builder("reporter").completer(reporterModel).timeout(Duration.ofSeconds(30))
                .middleware(RunInterceptor.recovery()).build();
        Runner guarded = Runner.around(reporter, reporter::run);
        Team org = Team.builder("org").member(support, "support", "The support desk").member(guarded, "report")
                .coordinator(Coordinator.sequence()).build();

        Message result = org.run("I was charged twice");

        assertThat(result.sender()).isEqualTo("reporter");
        assertThat(result.text()).isEqualTo("Summary: Refund issued.");
        assertThat(org.chat().messages()).extracting(Message::sender, Message::text).containsExactly(
                tuple("user", "I was charged twice"), tuple("support", "Refund issued."),
                tuple("reporter", "Summary: Refund issued."));
        assertThat(support.chat().messages()).extracting(Message::sender)
                .containsExactly("user", "triage", "triage", "billing");
        assertThat(reporter.chat().messages()).extracting(Message::sender, Message::role).containsExactly(
                tuple("system", Role.SYSTEM), tuple("user", Role.USER), tuple("support", Role.USER),
                tuple("reporter", Role.ASSISTANT));
    }

    @Test
    void aTeamAsAMemberReceivesTheOuterConversationInItsSharedChat() {
        Team inner = Team.builder("inner").member(agent("a", () -> ScriptedCompleter.of(Step.reply("a says hi"))), "x")
                .coordinator(Coordinator.sequence()).build();
        Chat outerShared = Chat.of(Message.user("hello"));
        Team outer = Team.builder("outer").chat(outerShared).member(inner, "x").coordinator(Coordinator.sequence()).build();

        outer.run();

        assertThat(inner.chat().messages()).extracting(Message::sender, Message::role)
                .containsExactly(tuple("user", Role.USER), tuple("a", Role.ASSISTANT));
        assertThat(outerShared.messages()).extracting(Message::sender, Message::role)
                .containsExactly(tuple("user", Role.USER), tuple("inner", Role.ASSISTANT));
    }
}
