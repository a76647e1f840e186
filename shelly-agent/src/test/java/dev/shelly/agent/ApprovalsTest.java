package dev.shelly.agent;

import static dev.shelly.agent.Fixtures.assertEveryCallAnsweredOnce;
import static dev.shelly.agent.Fixtures.results;
import static dev.shelly.agent.Fixtures.tool;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import dev.shelly.testing.ScriptedCompleter;
import dev.shelly.testing.Step;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolOutput;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class ApprovalsTest {

    private final List<String> ran = Collections.synchronizedList(new ArrayList<>());

    private ToolBox tools() {
        return ToolBox.of(tool("fs_read", (input, ctx) -> {
            ran.add("fs_read " + input);
            return ToolOutput.text("read ok");
        }), tool("fs_write", (input, ctx) -> {
            ran.add("fs_write " + input);
            return ToolOutput.text("written " + input.path("text").asString());
        }), tool("shell", (input, ctx) -> {
            ran.add("shell " + input);
            return ToolOutput.text("ran");
        }));
    }

    private static final ToolPolicy POLICY = ToolPolicy.builder().ask("fs_write*").deny("shell").build();

    /** Every call is answered by the very next message, in call order. */
    static void assertAnsweredInOrder(List<Message> messages) {
        for (int i = 0; i < messages.size(); i++) {
            List<ToolCall> calls = messages.get(i).toolCalls();
            if (!calls.isEmpty()) {
                assertThat(i + 1).as("the message after the calls of message " + i).isLessThan(messages.size());
                assertThat(messages.get(i + 1).toolResults()).extracting(ToolResult::toolCallId)
                        .containsExactlyElementsOf(calls.stream().map(ToolCall::id).toList());
            }
        }
    }

    private Agent agent(String name, ScriptedCompleter model) {
        return Agent.builder(name).toolboxes(tools()).completer(model).build();
    }

    @Test
    void policiesMatchExactNamesBeforePatternsAndPatternsInOrder() {
        ToolPolicy p = ToolPolicy.builder().ask("mcp_github_*").allow("mcp_github_list_issues").deny("mcp_*", "fs_?")
                .otherwise(ToolPolicy.Permission.ASK).build();

        assertThat(p.decide("mcp_github_list_issues")).isEqualTo(ToolPolicy.Permission.ALLOW);
        assertThat(p.decide("mcp_github_create_issue")).isEqualTo(ToolPolicy.Permission.ASK);
        assertThat(p.decide("mcp_slack_post")).isEqualTo(ToolPolicy.Permission.DENY);
        assertThat(p.decide("fs_a")).isEqualTo(ToolPolicy.Permission.DENY);
        assertThat(p.decide("fs_ab")).isEqualTo(ToolPolicy.Permission.ASK);
        assertThat(ToolPolicy.ALLOW_ALL.decide("anything")).isEqualTo(ToolPolicy.Permission.ALLOW);
        assertThatThrownBy(() -> ToolPolicy.builder().ask("fs_write", "fs write"))
                .hasMessage("ToolPolicy ask pattern [1] 'fs write' holds ' ' at 2; a tool pattern holds letters, digits, "
                        + "'_', '-', '.', ':' and the wildcards '*' and '?'");
    }

    @Test
    void anAskedCallWaitsWhileTheOthersRunAndTheAnswerCompletesTheTurnInCallOrder() {
        Approvals desk = Approvals.builder().policy("a", POLICY).build();
        List<AgentEvent> events = Collections.synchronizedList(new ArrayList<>());
        RunContext scope = RunContext.builder().approvals(desk).listener(events::add).build();
        Agent a = agent("a", ScriptedCompleter.of(
                Step.toolCalls(new Step.Call("fs_write", "{\"text\":\"x\"}"), new Step.Call("fs_read", "{}"),
                        new Step.Call("shell", "{}")),
                Step.reply(request -> "done after " + request.messages().size() + " messages")));

        assertThatThrownBy(() -> a.run("go", scope)).isInstanceOfSatisfying(RunPausedException.class, e -> {
            assertThat(e).hasMessage("agent 'a' paused for a decision: agent 'a' asks to run tool 'fs_write'");
            assertThat(e.decisions()).extracting(PendingCall::id).containsExactly("call_1");
        });

        assertThat(ran).containsExactly("fs_read {}");
        assertThat(a.chat().last().orElseThrow().toolCalls()).hasSize(3);
        PendingCall waiting = desk.pending().getFirst();
        assertThat(waiting.agent()).isEqualTo("a");
        assertThat(waiting.call()).isEqualTo(new ToolCall("call_1", "fs_write", "{\"text\":\"x\"}"));
        assertThat(waiting.kind()).isEqualTo(PendingCall.Kind.APPROVAL);
        assertThat(events).filteredOn(AgentEvent.DecisionNeeded.class::isInstance)
                .extracting(e -> ((AgentEvent.DecisionNeeded) e).pending()).containsExactly(waiting);

        desk.answer("call_1", Answer.approve());
        Message answer = a.run(scope);

        assertThat(ran).containsExactly("fs_read {}", "fs_write {\"text\":\"x\"}");
        assertThat(results(a)).containsExactly(ToolResult.of("call_1", "written x"), ToolResult.of("call_2", "read ok"),
                ToolResult.error("call_3", "tool 'shell' was not run: the tool policy of agent 'a' does not allow it"));
        assertThat(answer.text()).isEqualTo("done after 4 messages");
        assertThat(desk.paused()).isFalse();
        assertThat(desk.state().isEmpty()).isTrue();
        assertEveryCallAnsweredOnce(a.chat());
        assertAnsweredInOrder(a.chat().messages());
    }

    @Test
    void aDenialReachesTheModelAndAnEditRunsOtherArguments() {
        Approvals desk = Approvals.builder().policy("a", POLICY).build();
        RunContext scope = RunContext.builder().approvals(desk).build();
        Agent a = agent("a", ScriptedCompleter.of(
                Step.toolCalls(new Step.Call("fs_write", "{\"text\":\"x\"}"), new Step.Call("fs_write", "{\"text\":\"y\"}")),
                Step.reply("ok")));

        assertThatThrownBy(() -> a.run("go", scope)).isInstanceOf(RunPausedException.class);
        assertThat(desk.pending()).extracting(PendingCall::id).containsExactly("call_1", "call_2");
        desk.answer("call_1", Answer.deny("not that file"));
        desk.answer("call_2", Answer.edit("{\"text\":\"z\"}"));
        a.run(scope);

        assertThat(ran).containsExactly("fs_write {\"text\":\"z\"}");
        assertThat(results(a)).containsExactly(ToolResult.error("call_1", "tool 'fs_write' was not run: not that file"),
                ToolResult.of("call_2", "written z"));
        assertThat(a.chat().get(2).toolCalls().get(1).arguments()).isEqualTo("{\"text\":\"y\"}");
        assertAnsweredInOrder(a.chat().messages());
    }

    @Test
    void anUnansweredCallWaitsAgainAndKeepsWhenItBeganWaiting() {
        Instant t0 = Instant.parse("2026-11-24T08:00:00Z");
        Approvals desk = Approvals.builder().policy("a", POLICY)
                .clock(Clock.fixed(t0, ZoneOffset.UTC)).timeout(Duration.ofMinutes(5), Approvals.OnTimeout.DENY).build();
        RunContext scope = RunContext.builder().approvals(desk).build();
        Agent a = agent("a", ScriptedCompleter.of(
                Step.toolCalls(new Step.Call("fs_write", "{}"), new Step.Call("fs_write", "{}")), Step.reply("ok")));

        assertThatThrownBy(() -> a.run("go", scope)).isInstanceOf(RunPausedException.class);
        desk.answer("call_1", Answer.approve());
        assertThatThrownBy(() -> a.run(scope)).isInstanceOfSatisfying(RunPausedException.class,
                e -> assertThat(e.decisions()).extracting(PendingCall::id).containsExactly("call_2"));

        assertThat(ran).containsExactly("fs_write {}");
        assertThat(desk.pending()).singleElement().satisfies(p -> assertThat(p.since()).isEqualTo(t0));
        assertThat(desk.deadline()).contains(t0.plus(Duration.ofMinutes(5)));
        assertThat(desk.expired(t0.plus(Duration.ofMinutes(4)))).isEmpty();
        assertThat(desk.expired(t0.plus(Duration.ofMinutes(5)))).extracting(PendingCall::id).containsExactly("call_2");
        assertThat(a.chat().messages()).extracting(Message::role)
                .containsExactly(Role.SYSTEM, Role.USER, Role.ASSISTANT);
    }

    @Test
    void alwaysForTheSessionAndForTheProjectSkipTheQuestionLater() {
        PermissionStore project = PermissionStore.inMemory();
        Approvals desk = Approvals.builder().policy("a", POLICY).permissions(project).build();
        RunContext scope = RunContext.builder().approvals(desk).build();
        Agent a = agent("a", ScriptedCompleter.of(
                Step.toolCall("fs_write", "{}"), Step.reply("one"),
                Step.toolCall("fs_write_all", "{}"), Step.reply("two"),
                Step.toolCalls(new Step.Call("fs_write", "{}"), new Step.Call("fs_write_all", "{}")), Step.reply("three")));

        assertThatThrownBy(() -> a.run("go", scope)).isInstanceOf(RunPausedException.class);
        desk.answer("call_1", Answer.approveAlways(Answer.Scope.SESSION));
        assertThat(a.run(scope).text()).isEqualTo("one");
        assertThatThrownBy(() -> a.run("again", scope)).isInstanceOf(RunPausedException.class);
        desk.answer("call_2", Answer.denyAlways("never all files", Answer.Scope.PROJECT));
        assertThat(a.run(scope).text()).isEqualTo("two");

        assertThat(a.run("both", scope).text()).isEqualTo("three");
        assertThat(results(a)).containsExactly(ToolResult.of("call_1", "written "),
                ToolResult.error("call_2", "tool 'fs_write_all' was not run: never all files"),
                ToolResult.of("call_3", "written "),
                ToolResult.error("call_4", "tool 'fs_write_all' was not run: the user does not allow agent 'a' to use tool "
                        + "'fs_write_all'"));
        assertThat(project.remembered("a", "fs_write_all")).contains(ToolPolicy.Permission.DENY);
        assertThat(desk.state().sessionGrants()).containsExactly(
                new Approvals.Grant("a", "fs_write", ToolPolicy.Permission.ALLOW));

        Approvals fresh = Approvals.builder().policy("a", POLICY).permissions(project).build();
        assertThat(fresh.policy("a").decide("fs_write")).isEqualTo(ToolPolicy.Permission.ASK);
    }

    @Test
    void answersThatDoNotFitAreRefusedWithWhatWaits() {
        Approvals desk = Approvals.builder().policy("a", POLICY).build();
        RunContext scope = RunContext.builder().approvals(desk).build();
        Agent a = agent("a", ScriptedCompleter.of(Step.toolCall("fs_write", "{}"), Step.reply("ok")));
        assertThatThrownBy(() -> a.run("go", scope)).isInstanceOf(RunPausedException.class);

        assertThatThrownBy(() -> desk.answer("call_9", Answer.approve()))
                .hasMessage("no tool call 'call_9' waits for a decision; waiting: call_1");
        assertThatThrownBy(() -> desk.answer("call_1", Answer.reply("yes")))
                .hasMessage("tool call 'call_1' (tool 'fs_write' of agent 'a') needs approval, not a reply; answer it "
                        + "with approve, deny or edit");
        assertThatThrownBy(() -> desk.answer("call_1", Answer.approveAlways(Answer.Scope.PROJECT)))
                .hasMessage("tool call 'call_1' cannot be answered for the project: these approvals have no permission store");
        desk.answer("call_1", Answer.approve());
        assertThatThrownBy(() -> desk.answer("call_1", Answer.deny("no")))
                .hasMessage("tool call 'call_1' (tool 'fs_write' of agent 'a') is answered already");
    }

    @Test
    void aQuestionWaitsForTheUsersReplyWhichTheModelReads() {
        Approvals desk = Approvals.builder().build();
        RunContext scope = RunContext.builder().approvals(desk).build();
        Agent a = Agent.builder("a").toolboxes(AskUser.toolbox())
                .completer(ScriptedCompleter.of(Step.toolCall("ask_user", "{\"question\":\"Which city?\"}"),
                        Step.reply(request -> "noted: " + request.last().orElseThrow().toolResults().getFirst().text())))
                .build();

        assertThatThrownBy(() -> a.run("book a trip", scope)).isInstanceOf(RunPausedException.class);
        assertThat(desk.pending()).singleElement().satisfies(p -> {
            assertThat(p.kind()).isEqualTo(PendingCall.Kind.QUESTION);
            assertThat(p.reason()).isEqualTo("Which city?");
        });
        assertThatThrownBy(() -> desk.answer("call_1", Answer.approve()))
                .hasMessage("tool call 'call_1' is a question of agent 'a' (Which city?); answer it with "
                        + "Answer.reply(text) or Answer.deny(reason)");
        desk.answer("call_1", Answer.reply("Lisbon"));

        assertThat(a.run(scope).text()).isEqualTo("noted: Lisbon");
        assertThat(a.chat().get(2).toolCalls().getFirst().arguments()).isEqualTo("{\"question\":\"Which city?\"}");
    }

    @Test
    void aChildThatAsksPausesTheTreeAndResumesOnItsKeptChatWhileItsSiblingRanOnce() {
        List<String> childModel = Collections.synchronizedList(new ArrayList<>());
        ScriptedCompleter writerModel = ScriptedCompleter.of(
                Step.toolCalls(new Step.Call("fs_read", "{}"), new Step.Call("fs_write", "{\"text\":\"w\"}")),
                Step.reply(request -> {
                    childModel.add("writer " + request.messages().size());
                    return "writer saw " + request.last().orElseThrow().toolResults().stream().map(ToolResult::text).toList();
                }));
        ScriptedCompleter readerModel = ScriptedCompleter.of(Step.reply(request -> {
            childModel.add("reader " + request.messages().size());
            return "reader done";
        }));
        Registry r = new Registry()
                .register("writer", "Writes", () -> agent("writer", writerModel))
                .register("reader", "Reads", () -> agent("reader", readerModel));
        Agent lead = Agent.builder("lead").registry(r).toolboxes(tools())
                .completer(ScriptedCompleter.of(
                        Step.toolCalls(new Step.Call("fs_read", "{}"), new Step.Call("delegate",
                                "{\"tasks\":[{\"agent\":\"writer\",\"task\":\"write\"},{\"agent\":\"reader\",\"task\":\"read\"}]}")),
                        Step.reply(request -> request.last().orElseThrow().toolResults().get(1).text())))
                .build();
        Approvals desk = Approvals.builder().policy("writer", POLICY).build();
        List<AgentEvent> events = Collections.synchronizedList(new ArrayList<>());
        RunContext scope = RunContext.builder().approvals(desk).listener(events::add).build();

        assertThatThrownBy(() -> lead.run("go", scope)).isInstanceOfSatisfying(RunPausedException.class,
                e -> assertThat(e.decisions()).extracting(PendingCall::id).containsExactly("call_2/0/call_2"));

        assertThat(ran).containsExactlyInAnyOrder("fs_read {}", "fs_read {}");
        assertThat(childModel).containsExactly("reader 2");
        PendingCall waiting = desk.pending().getFirst();
        assertThat(waiting.agent()).isEqualTo("writer");
        assertThat(events).filteredOn(AgentEvent.DecisionNeeded.class::isInstance)
                .singleElement().satisfies(e -> assertThat(e.source().agent()).isEqualTo("writer"));
        assertThat(lead.chat().messages()).extracting(Message::role).containsExactly(Role.SYSTEM, Role.USER, Role.ASSISTANT);

        desk.answer(waiting.id(), Answer.approve());
        Message answer = lead.run(scope);

        assertThat(ran).containsExactlyInAnyOrder("fs_read {}", "fs_read {}", "fs_write {\"text\":\"w\"}");
        assertThat(childModel).containsExactly("reader 2", "writer 4");
        assertThat(answer.text()).isEqualTo("[{\"agent\":\"writer\",\"result\":\"writer saw [read ok, written w]\"},"
                + "{\"agent\":\"reader\",\"result\":\"reader done\"}]");
        assertThat(results(lead)).extracting(ToolResult::toolCallId).containsExactly("call_1", "call_2");
        assertAnsweredInOrder(lead.chat().messages());
        assertEveryCallAnsweredOnce(lead.chat());
        assertThat(desk.state().isEmpty()).isTrue();
    }

    @Test
    void cancellingAPausedTurnAnswersEveryCallAndKeepsWhatRan() {
        Approvals desk = Approvals.builder().policy("a", POLICY).build();
        RunContext scope = RunContext.builder().approvals(desk).build();
        Agent a = agent("a", ScriptedCompleter.of(
                Step.toolCalls(new Step.Call("fs_read", "{}"), new Step.Call("fs_write", "{}")), Step.reply("later")));
        assertThatThrownBy(() -> a.run("go", scope)).isInstanceOf(RunPausedException.class);

        assertThat(a.cancelPaused(scope, "the user cancelled")).isTrue();

        assertThat(results(a)).containsExactly(ToolResult.of("call_1", "read ok"),
                ToolResult.error("call_2", "tool 'fs_write' was not run: the user cancelled"));
        assertThat(desk.paused()).isFalse();
        assertThat(a.cancelPaused(scope, "again")).isFalse();
        assertThat(a.run("next", scope).text()).isEqualTo("later");
        assertAnsweredInOrder(a.chat().messages());
    }

    @Test
    void concurrentAnswersToManyWaitingCallsEachCountOnce() throws Exception {
        Approvals desk = Approvals.builder().policy("a", POLICY).build();
        RunContext scope = RunContext.builder().approvals(desk).build();
        Step.Call[] calls = new Step.Call[16];
        for (int i = 0; i < calls.length; i++) {
            calls[i] = new Step.Call("fs_write", "{\"text\":\"" + i + "\"}");
        }
        Agent a = agent("a", ScriptedCompleter.of(Step.toolCalls(calls), Step.reply("ok")));
        assertThatThrownBy(() -> a.run("go", scope)).isInstanceOf(RunPausedException.class);

        List<Thread> threads = new ArrayList<>();
        List<Throwable> refused = Collections.synchronizedList(new ArrayList<>());
        for (PendingCall p : desk.pending()) {
            for (int k = 0; k < 2; k++) {
                threads.add(Thread.ofVirtual().start(() -> {
                    try {
                        desk.answer(p.id(), Answer.approve());
                    } catch (IllegalStateException e) {
                        refused.add(e);
                    }
                }));
            }
        }
        for (Thread t : threads) {
            t.join();
        }

        assertThat(refused).hasSize(16);
        assertThat(desk.unanswered()).isEmpty();
        a.run(scope);
        assertThat(ran).hasSize(16);
        assertAnsweredInOrder(a.chat().messages());
    }

    @Test
    void aHookThatFailsOnTheResumedTurnKeepsTheResultsOfCallsThatRan() {
        Approvals desk = Approvals.builder().policy("a", POLICY).build();
        Agent a = agent("a", ScriptedCompleter.of(
                Step.toolCalls(new Step.Call("fs_read", "{}"), new Step.Call("fs_write", "{}")), Step.reply("ok")));
        assertThatThrownBy(() -> a.run("go", RunContext.builder().approvals(desk).build()))
                .isInstanceOf(RunPausedException.class);
        RunContext failing = RunContext.builder().approvals(desk)
                .interceptors(RunInterceptor.beforeToolCall(inv -> { throw new IllegalStateException("boom"); })).build();

        assertThatThrownBy(() -> a.run(failing)).isInstanceOf(AgentException.class);

        assertThat(ran).containsExactly("fs_read {}");
        assertThat(results(a)).containsExactly(ToolResult.of("call_1", "read ok"),
                ToolResult.error("call_2", "tool 'fs_write' was not run: a tool-call hook failed"));
        assertThat(desk.paused()).isFalse();
    }
}
