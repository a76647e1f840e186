package dev.shelly.agent.workflow;

import static dev.shelly.agent.Fixtures.assertEveryCallAnsweredOnce;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.groups.Tuple.tuple;

import dev.shelly.agent.Agent;
import dev.shelly.agent.AgentEvent;
import dev.shelly.agent.Fixtures;
import dev.shelly.agent.RunContext;
import dev.shelly.agent.Runner;
import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.chats.ToolResult;
import dev.shelly.modeladapter.ModelException;
import dev.shelly.testing.ScriptedCompleter;
import dev.shelly.testing.Step;
import dev.shelly.tools.ToolBox;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class TeamTest {

    private static Agent agent(String name, ScriptedCompleter model) {
        return Agent.builder(name).description("The " + name).completer(model).build();
    }

    /** An agent whose model calls a tool that blocks until interrupted; counts starts and interrupts. */
    private static Agent blocked(String name, CountDownLatch started, AtomicInteger interrupted, List<AgentEvent> events) {
        ToolBox box = ToolBox.of(Fixtures.blockingTool("work", started, interrupted::incrementAndGet));
        return Agent.builder(name).completer(ScriptedCompleter.of(Step.toolCall("work", "{}"), Step.reply("unreached")))
                .toolboxes(box).listener(events::add).build();
    }

    private static Step.Answer waitThen(Supplier<String> body) {
        return Step.reply(chat -> body.get());
    }

    private static void await(CountDownLatch latch) {
        try {
            assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CancellationException("interrupted");
        }
    }

    // ------------------------------------------------------------------ sequence and sync

    @Test
    void aPipelineRunsEachMemberOnceAndReturnsTheLastReply() {
        ScriptedCompleter researcherModel = ScriptedCompleter.of(Step.message(
                Message.text("researcher", Role.ASSISTANT, "Findings: A and B").withMeta("source", "web")));
        ScriptedCompleter writerModel = ScriptedCompleter.of(Step.reply("Article about A and B"));
        Agent researcher = agent("researcher", researcherModel);
        Agent writer = agent("writer", writerModel);
        Team team = Team.builder("pipeline").member(researcher, "research").member(writer, "write")
                .coordinator(Coordinator.sequence()).build();

        Message result = team.run("Write about AI");

        assertThat(team.chat().messages()).extracting(Message::sender, Message::role, Message::text).containsExactly(
                tuple("user", Role.USER, "Write about AI"),
                tuple("researcher", Role.ASSISTANT, "Findings: A and B"),
                tuple("writer", Role.ASSISTANT, "Article about A and B"));
        assertThat(result).isEqualTo(team.chat().get(2));
        assertThat(writerModel.requests().getFirst().messages()).extracting(Message::sender, Message::role, Message::text)
                .containsExactly(
                        tuple("system", Role.SYSTEM, "You are writer. The writer"),
                        tuple("user", Role.USER, "Write about AI"),
                        tuple("researcher", Role.USER, "Findings: A and B"));
        assertThat(researcher.chat().messages()).extracting(Message::sender, Message::role).containsExactly(
                tuple("system", Role.SYSTEM), tuple("user", Role.USER), tuple("researcher", Role.ASSISTANT));
        assertThat(writer.chat().get(2).metadata()).as("metadata kept when remapped")
                .isEqualTo(team.chat().get(1).metadata()).isNotEmpty();
        assertThat(team.cursor("researcher")).isEqualTo(1);
        assertThat(team.cursor("writer")).isEqualTo(2);
        assertThat(team.members()).extracting(Team.Member::name, Team.Member::role, Team.Member::description)
                .containsExactly(tuple("researcher", "research", "The researcher"), tuple("writer", "write", "The writer"));
    }

    @Test
    void eachMemberSeesExactlyTheOthersMessagesAsUserMessagesAcrossRuns() {
        Agent a = agent("a", ScriptedCompleter.of(Step.reply("a1"), Step.reply("a2")));
        Agent b = agent("b", ScriptedCompleter.of(Step.reply("b1"), Step.reply("b2")));
        Chat shared = Chat.of(Message.system("Team rules"));
        Team team = Team.builder("t").chat(shared).member(a, "x").member(b, "y")
                .coordinator(Coordinator.sequence()).build();

        team.run("q1");
        team.run("q2");

        assertThat(shared.messages()).extracting(Message::text)
                .containsExactly("Team rules", "q1", "a1", "b1", "q2", "a2", "b2");
        assertThat(a.chat().messages()).extracting(Message::sender, Message::role, Message::text).containsExactly(
                tuple("system", Role.SYSTEM, "You are a. The a"),
                tuple("system", Role.USER, "Team rules"),
                tuple("user", Role.USER, "q1"),
                tuple("a", Role.ASSISTANT, "a1"),
                tuple("b", Role.USER, "b1"),
                tuple("user", Role.USER, "q2"),
                tuple("a", Role.ASSISTANT, "a2"));
        assertThat(b.chat().messages()).extracting(Message::sender, Message::role, Message::text).containsExactly(
                tuple("system", Role.SYSTEM, "You are b. The b"),
                tuple("system", Role.USER, "Team rules"),
                tuple("user", Role.USER, "q1"),
                tuple("a", Role.USER, "a1"),
                tuple("b", Role.ASSISTANT, "b1"),
                tuple("user", Role.USER, "q2"),
                tuple("a", Role.USER, "a2"),
                tuple("b", Role.ASSISTANT, "b2"));
        assertThat(team.cursor("a")).isEqualTo(5);
        assertThat(team.cursor("b")).isEqualTo(6);
    }

    @Test
    void aMemberPickedTwiceInARowIsAskedToContinueSoItsRequestEndsWithAUserTurn() {
        ScriptedCompleter model = ScriptedCompleter.of(Step.reply("part 1"), Step.reply("part 2"));
        Agent writer = agent("writer", model);
        Team team = Team.builder("desk").member(writer, "write")
                .coordinator(turn -> turn.step() < 2 ? Selection.of("writer") : Selection.DONE).build();

        Message result = team.run("Write a story");

        assertThat(result.text()).isEqualTo("part 2");
        assertThat(model.requests().get(1).messages()).containsExactly(
                Message.system("You are writer. The writer"),
                Message.user("Write a story"),
                writer.chat().get(2),
                Message.text("desk", Role.USER, Team.CONTINUE));
        assertThat(model.requests().get(1).lastMessage().role()).isEqualTo(Role.USER);
        // The shared chat holds only the conversation, not the nudge.
        assertThat(team.chat().messages()).extracting(Message::text).containsExactly("Write a story", "part 1", "part 2");
    }

    @Test
    void aReplyIsAppendedUnderTheMembersName() {
        Chat own = new Chat();
        Runner echo = new Runner() {
            @Override
            public String name() {
                return "echo";
            }

            @Override
            public Chat chat() {
                return own;
            }

            @Override
            public Message run(RunContext context) {
                return Message.text("someone-else", Role.ASSISTANT, "echo: " + own.last().orElseThrow().text());
            }
        };
        Team team = Team.builder("t").member(echo, "echo", "Repeats").coordinator(Coordinator.sequence()).build();

        Message reply = team.run("hi");

        assertThat(reply.sender()).isEqualTo("echo");
        assertThat(reply.text()).isEqualTo("echo: hi");
        assertThat(own.messages()).extracting(Message::sender, Message::role).containsExactly(tuple("user", Role.USER));
    }

    // ------------------------------------------------------------------ concurrency

    @RepeatedTest(5)
    void selectedMembersRunConcurrentlyAndTheirRepliesKeepSelectionOrder() {
        CyclicBarrier together = new CyclicBarrier(3);
        CountDownLatch thirdDone = new CountDownLatch(1);
        CountDownLatch secondDone = new CountDownLatch(1);
        Supplier<Void> meet = () -> {
            try {
                together.await(10, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new IllegalStateException("the researchers did not run at the same time", e);
            }
            return null;
        };
        Agent r1 = agent("r1", ScriptedCompleter.of(waitThen(() -> {
            meet.get();
            await(secondDone);
            return "US findings";
        })));
        Agent r2 = agent("r2", ScriptedCompleter.of(waitThen(() -> {
            meet.get();
            await(thirdDone);
            secondDone.countDown();
            return "EU findings";
        })));
        Agent r3 = agent("r3", ScriptedCompleter.of(waitThen(() -> {
            meet.get();
            thirdDone.countDown();
            return "Asia findings";
        })));
        ScriptedCompleter writerModel = ScriptedCompleter.of(Step.reply("Comparison"));
        Team team = Team.builder("parallel-research")
                .member(r1, "research").member(r2, "research").member(r3, "research")
                .member(agent("writer", writerModel), "write")
                .coordinator(Coordinator.roleRoundRobin(1, "research", "write")).build();

        Message result = team.run("Compare AI in the US, the EU and Asia");

        assertThat(team.chat().messages()).extracting(Message::sender, Message::text).containsExactly(
                tuple("user", "Compare AI in the US, the EU and Asia"),
                tuple("r1", "US findings"), tuple("r2", "EU findings"), tuple("r3", "Asia findings"),
                tuple("writer", "Comparison"));
        assertThat(result.text()).isEqualTo("Comparison");
        assertThat(writerModel.requests().getFirst().messages()).extracting(Message::sender, Message::role)
                .containsExactly(tuple("system", Role.SYSTEM), tuple("user", Role.USER), tuple("r1", Role.USER),
                        tuple("r2", Role.USER), tuple("r3", Role.USER));
    }

    @RepeatedTest(5)
    void theFirstFailureCancelsTheOtherMembersOfTheStep() {
        ModelException boom = ModelException.builder(ModelException.Kind.SERVER).providerMessage("a crashed").build();
        CountDownLatch bStarted = new CountDownLatch(1);
        AtomicInteger interrupted = new AtomicInteger();
        List<AgentEvent> events = Collections.synchronizedList(new ArrayList<>());
        ScriptedCompleter cModel = ScriptedCompleter.of(Step.hang());
        Agent a = agent("a", ScriptedCompleter.of(Step.answer(chat -> {
            await(bStarted);
            try {
                assertThat(cModel.awaitCalls(1, Duration.ofSeconds(10))).isTrue();
            } catch (InterruptedException e) {
                throw new CancellationException("interrupted");
            }
            throw boom;
        })));
        Agent b = blocked("b", bStarted, interrupted, events);
        Agent c = Agent.builder("c").completer(cModel).listener(events::add).build();
        Team team = Team.builder("t").member(a, "r").member(b, "r").member(c, "r")
                .coordinator(Coordinator.roleRoundRobin(1, "r")).build();

        assertThatThrownBy(() -> team.run("go"))
                .isInstanceOfSatisfying(TeamException.class, e -> {
                    assertThat(e.member()).contains("a");
                    assertThat(e.team()).isEqualTo("t");
                })
                .hasMessage("member 'a' of team 't' failed: " + boom.getMessage()
                        + "; cancelled members 'b', 'c' of the same step")
                .hasCause(boom);

        assertThat(Thread.currentThread().isInterrupted()).isFalse();
        assertThat(interrupted.get()).isEqualTo(1);
        assertEveryCallAnsweredOnce(b.chat());
        assertThat(b.chat().last().orElseThrow().parts())
                .containsExactly(ToolResult.error("call_1", "tool 'work' was cancelled before it finished"));
        assertThat(c.chat().messages()).extracting(Message::role).containsExactly(Role.SYSTEM, Role.USER);
        assertThat(events).filteredOn(AgentEvent.AgentFailed.class::isInstance)
                .extracting(e -> ((AgentEvent.AgentFailed) e).cancelled()).containsExactly(true, true);
        assertThat(team.chat().messages()).extracting(Message::text).containsExactly("go");
    }

    @Test
    void aCancelGraceTooLongForNanosecondsStillEndsTheStep() {
        ModelException boom = ModelException.builder(ModelException.Kind.SERVER).providerMessage("a crashed").build();
        ScriptedCompleter bModel = ScriptedCompleter.of(Step.hang());
        Agent a = agent("a", ScriptedCompleter.of(Step.answer(chat -> {
            try {
                assertThat(bModel.awaitCalls(1, Duration.ofSeconds(10))).isTrue();
            } catch (InterruptedException e) {
                throw new CancellationException("interrupted");
            }
            throw boom;
        })));
        Agent b = agent("b", bModel);
        Team team = Team.builder("t").member(a, "r").member(b, "r").coordinator(Coordinator.roleRoundRobin(1, "r"))
                .cancelGrace(Duration.ofSeconds(Long.MAX_VALUE)).build();

        assertThatThrownBy(() -> team.run("go")).isInstanceOf(TeamException.class)
                .hasMessage("member 'a' of team 't' failed: " + boom.getMessage() + "; cancelled member 'b' of the same step");
    }

    @RepeatedTest(5)
    void cancellingAConcurrentStepInterruptsEveryMemberAndLeavesNoOpenCall() throws Exception {
        CountDownLatch started = new CountDownLatch(3);
        AtomicInteger interrupted = new AtomicInteger();
        List<AgentEvent> events = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch quickDone = new CountDownLatch(1);
        Agent quick = Agent.builder("quick").completer(ScriptedCompleter.of(Step.reply("quick answer")))
                .listener(e -> {
                    if (e instanceof AgentEvent.AgentFinished) {
                        quickDone.countDown();
                    }
                }).build();
        Agent a = blocked("a", started, interrupted, events);
        Agent b = blocked("b", started, interrupted, events);
        Agent c = blocked("c", started, interrupted, events);
        Team team = Team.builder("t").member(quick, "r").member(a, "r").member(b, "r").member(c, "r")
                .coordinator(Coordinator.roleRoundRobin(1, "r")).build();

        Fixtures.Background run = new Fixtures.Background(() -> team.run("go"));
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(quickDone.await(10, TimeUnit.SECONDS)).isTrue();
        run.interruptAndJoin();

        assertThat(run.error.get()).isInstanceOf(CancellationException.class).hasMessage("team 't' was cancelled");
        assertThat(run.interruptedAfter.get()).isTrue();
        assertThat(interrupted.get()).isEqualTo(3);
        for (Agent member : List.of(a, b, c)) {
            assertEveryCallAnsweredOnce(member.chat());
            assertThat(member.chat().last().orElseThrow().parts())
                    .containsExactly(ToolResult.error("call_1", "tool 'work' was cancelled before it finished"));
        }
        assertThat(events).filteredOn(AgentEvent.AgentFailed.class::isInstance).hasSize(3)
                .allMatch(e -> ((AgentEvent.AgentFailed) e).cancelled());
        assertThat(team.chat().messages()).as("a reply finished before the cancel is kept")
                .extracting(Message::sender, Message::text)
                .containsExactly(tuple("user", "go"), tuple("quick", "quick answer"));
    }

    @Test
    void aFailingMemberEndsTheRunWithAnErrorNamingIt() {
        ModelException boom = ModelException.builder(ModelException.Kind.SERVER).providerMessage("down").build();
        Team team = Team.builder("pipeline")
                .member(agent("researcher", ScriptedCompleter.of(Step.reply("facts"))), "research")
                .member(agent("writer", ScriptedCompleter.of(Step.fail(boom))), "write")
                .coordinator(Coordinator.sequence()).build();

        assertThatThrownBy(() -> team.run("go")).isInstanceOf(TeamException.class)
                .hasMessage("member 'writer' of team 'pipeline' failed: " + boom.getMessage()).hasCause(boom);
        assertThat(team.chat().messages()).extracting(Message::sender).containsExactly("user", "researcher");
    }

    @Test
    void interruptingASingleMemberCancelsTheTeam() throws Exception {
        ScriptedCompleter model = ScriptedCompleter.of(Step.hang());
        Team team = Team.builder("t").member(agent("a", model), "r").coordinator(Coordinator.sequence()).build();

        Fixtures.Background run = new Fixtures.Background(() -> team.run("go"));
        assertThat(model.awaitCalls(1, Duration.ofSeconds(10))).isTrue();
        assertThatThrownBy(team::run).isInstanceOf(IllegalStateException.class)
                .hasMessage("team 't' is already running; a team runs one run() at a time");
        run.interruptAndJoin();

        assertThat(run.error.get()).isInstanceOf(CancellationException.class);
        assertThat(run.interruptedAfter.get()).isTrue();
    }

    // ------------------------------------------------------------------ coordinators

    @Test
    void loopRunsRoundsUntilItsLimitAndThenFails() {
        Team team = Team.builder("debate")
                .member(agent("a", ScriptedCompleter.of(Step.reply("a1"), Step.reply("a2"))), "x")
                .member(agent("b", ScriptedCompleter.of(Step.reply("b1"), Step.reply("b2"))), "x")
                .coordinator(Coordinator.loop(2)).build();

        assertThatThrownBy(() -> team.run("go")).isInstanceOfSatisfying(MaxRoundsException.class,
                        e -> assertThat(e.limit()).isEqualTo(2))
                .hasMessage("team 'debate' reached its limit of 2 rounds without its coordinator saying done");
        assertThat(team.chat().messages()).extracting(Message::text).containsExactly("go", "a1", "b1", "a2", "b2");
    }

    @Test
    void roundRobinUntilStopsWhenItsConditionHolds() {
        Team team = Team.builder("review")
                .member(agent("writer", ScriptedCompleter.of(Step.reply("draft 1"), Step.reply("draft 2"))), "write")
                .member(agent("reviewer", ScriptedCompleter.of(Step.reply("needs work"), Step.reply("APPROVED"))), "review")
                .coordinator(Coordinator.roundRobinUntil(
                        chat -> chat.last().orElseThrow().text().contains("APPROVED"), 3))
                .build();

        Message result = team.run("Write a haiku");

        assertThat(result.sender()).isEqualTo("reviewer");
        assertThat(team.chat().messages()).extracting(Message::text)
                .containsExactly("Write a haiku", "draft 1", "needs work", "draft 2", "APPROVED");
    }

    @Test
    void roundRobinUntilFailsAtItsLimit() {
        Team team = Team.builder("t")
                .member(agent("a", ScriptedCompleter.of(Step.reply("1"), Step.reply("2"))), "x")
                .coordinator(Coordinator.roundRobinUntil(chat -> false, 2)).build();

        assertThatThrownBy(() -> team.run("go")).isInstanceOf(MaxRoundsException.class)
                .hasMessage("team 't' reached its limit of 2 rounds without its coordinator saying done");
    }

    @Test
    void theBuiltInCoordinatorsDecideByStep() {
        Chat chat = new Chat();
        List<Team.Member> members = List.of(
                new Team.Member(agent("r1", ScriptedCompleter.of()), "research", ""),
                new Team.Member(agent("w", ScriptedCompleter.of()), "write", ""),
                new Team.Member(agent("r2", ScriptedCompleter.of()), "research", ""));
        List<Selection> sequence = new ArrayList<>();
        List<Selection> roles = new ArrayList<>();
        for (int step = 0; step < 5; step++) {
            Coordinator.Turn turn = new Coordinator.Turn("t", step, chat, members);
            sequence.add(Coordinator.sequence().next(turn));
            roles.add(Coordinator.roleRoundRobin(2, "research", "write").next(turn));
        }

        assertThat(sequence).containsExactly(Selection.of("r1"), Selection.of("w"), Selection.of("r2"),
                Selection.DONE, Selection.DONE);
        assertThat(roles).containsExactly(Selection.of("r1", "r2"), Selection.of("w"), Selection.of("r1", "r2"),
                Selection.of("w"), Selection.DONE);
        assertThat(Coordinator.loop(0).next(new Coordinator.Turn("t", 1000, chat, members)))
                .isEqualTo(Selection.of("w"));
        assertThatThrownBy(() -> Coordinator.roleRoundRobin(1, "review").next(new Coordinator.Turn("t", 0, chat, members)))
                .isInstanceOf(TeamException.class)
                .hasMessage("no member of team 't' has role 'review', which the role round-robin coordinator selects "
                        + "at step 0; the members' roles are research, write");
    }

    @Test
    void aCoordinatorsMistakesEndTheRunWithClearErrors() {
        Agent a = agent("a", ScriptedCompleter.of(Step.reply("x")));
        assertThatThrownBy(() -> Team.builder("t").member(a, "r").coordinator(turn -> Selection.of("ghost")).build()
                .run("go"))
                .isInstanceOf(TeamException.class)
                .hasMessage("the coordinator of team 't' selected unknown member 'ghost' at step 0; members: a");
        assertThatThrownBy(() -> Team.builder("t").member(agent("b", ScriptedCompleter.of()), "r")
                .coordinator(turn -> null).build().run("go"))
                .isInstanceOf(TeamException.class)
                .hasMessage("the coordinator of team 't' returned null at step 0 instead of a Selection");
        IllegalStateException bug = new IllegalStateException("bug");
        assertThatThrownBy(() -> Team.builder("t").member(agent("c", ScriptedCompleter.of()), "r")
                .coordinator(turn -> {
                    throw bug;
                }).build().run("go"))
                .isInstanceOf(TeamException.class)
                .hasMessage("the coordinator of team 't' failed at step 0: bug").hasCause(bug);
        assertThatThrownBy(() -> Team.builder("t").member(agent("d", ScriptedCompleter.of()), "r")
                .coordinator(turn -> Selection.DONE).build().run("go"))
                .isInstanceOf(TeamException.class)
                .hasMessage("team 't' ended without any member replying: its coordinator said done at step 0");
    }

    @Test
    void aSelectionIsEitherDoneOrNamesMembersOnce() {
        assertThatThrownBy(() -> Selection.of("a", "a")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Selection names member 'a' twice; a member runs once per step");
        assertThatThrownBy(() -> new Selection(List.of("a"), true)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a done Selection must name no member, but names [a]");
        assertThatThrownBy(Selection::of).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a Selection that is not done must name at least one member");
    }

    // ------------------------------------------------------------------ building

    @Test
    void theBuilderRefusesTeamsThatCannotWork() {
        Chat shared = new Chat();
        Chat one = new Chat();
        ScriptedCompleter m = ScriptedCompleter.of();
        assertThatThrownBy(() -> Team.builder("t").coordinator(Coordinator.sequence()).build())
                .hasMessage("Team 't' needs at least one member");
        assertThatThrownBy(() -> Team.builder("t").member(agent("a", m), "r").build())
                .hasMessage("Team 't' needs a coordinator, e.g. Coordinator.sequence()");
        assertThatThrownBy(() -> Team.builder("t").member(agent("a", m), "r").member(agent("a", m), "r")
                .coordinator(Coordinator.sequence()).build())
                .hasMessage("Team 't' has two members named 'a'");
        assertThatThrownBy(() -> Team.builder("t").chat(shared)
                .member(Agent.builder("a").completer(m).chat(shared).build(), "r")
                .coordinator(Coordinator.sequence()).build())
                .hasMessage("member 'a' of team 't' works on the team's shared chat; each member needs a private chat "
                        + "of its own");
        assertThatThrownBy(() -> Team.builder("t")
                .member(Agent.builder("a").completer(m).chat(one).build(), "r")
                .member(Agent.builder("b").completer(m).chat(one).build(), "r")
                .coordinator(Coordinator.sequence()).build())
                .hasMessage("members 'a' and 'b' of team 't' share one chat; each member needs a private chat of its own");
        assertThatThrownBy(() -> Team.builder("t").member(agent("user", m), "r")
                .coordinator(Coordinator.sequence()).build())
                .hasMessage("Team 't' cannot have a member named 'user': a member never sees messages sent by its own "
                        + "name, and 'user' is the sender of the input");
        assertThatThrownBy(() -> Team.builder("t").member(agent("a", m), " ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Team.Member role of 'a' must not be null or blank");
    }
}
