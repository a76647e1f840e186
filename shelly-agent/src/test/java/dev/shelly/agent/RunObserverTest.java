package dev.shelly.agent;

import static dev.shelly.agent.Fixtures.tool;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.agent.RunInterceptor.ModelCall;
import dev.shelly.agent.RunInterceptor.ToolInvocation;
import dev.shelly.agent.workflow.Team;
import dev.shelly.chats.Message;
import dev.shelly.chats.ToolResult;
import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.ModelTarget;
import dev.shelly.testing.ScriptedCompleter;
import dev.shelly.testing.Step;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolOutput;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class RunObserverTest {

    /**
     * Keeps a "current" label per thread, as a tracer keeps its current span: each observation
     * records what was current when it started (its parent) and makes itself current until it
     * ends; {@link #propagate} carries the label to forked threads.
     */
    static final class Recorder implements RunObserver {
        final ThreadLocal<String> current = new ThreadLocal<>();
        final List<String> log = Collections.synchronizedList(new ArrayList<>());

        private <R> Observation<R> enter(String label, java.util.function.Function<R, String> outcome) {
            String parent = current.get();
            Thread thread = Thread.currentThread();
            log.add("start " + label + " under " + parent);
            current.set(label);
            return (result, failure) -> {
                assertThat(Thread.currentThread()).as("ended on its own thread").isSameAs(thread);
                assertThat(current.get()).as("ended in nesting order").isEqualTo(label);
                log.add("end " + label + (failure == null ? " " + outcome.apply(result) : " failed " + failure.getClass().getSimpleName()));
                current.set(parent);
            };
        }

        @Override
        public Observation<Message> runStarted(RunInterceptor.RunChain run) {
            return enter("run " + run.context().agent().orElseThrow() + "@" + run.context().depth(), Message::text);
        }

        @Override
        public Observation<Message> workflowStarted(Runner workflow, RunContext context) {
            return enter("workflow " + workflow.name(), Message::text);
        }

        @Override
        public Observation<ModelResponse> modelCallStarted(ModelCall call, ModelTarget target) {
            return enter("chat " + call.run().agent().orElseThrow() + "#" + call.iteration(),
                    r -> "stop " + r.stopReason());
        }

        @Override
        public Observation<ToolResult> toolCallStarted(ToolInvocation call) {
            return enter("tool " + call.call().name() + " of " + call.run().agent().orElseThrow(),
                    r -> r.isError() ? "error" : "ok");
        }

        @Override
        public Runnable propagate(Runnable task) {
            String carried = current.get();
            return () -> {
                String before = current.get();
                current.set(carried);
                try {
                    task.run();
                } finally {
                    current.set(before);
                }
            };
        }

        List<String> starts() {
            synchronized (log) {
                return log.stream().filter(l -> l.startsWith("start ")).toList();
            }
        }
    }

    @Test
    void aRunItsModelCallsAndItsToolCallsAreObservedNestedOnTheirThreads() {
        Recorder recorder = new Recorder();
        Agent a = Agent.builder("a")
                .toolboxes(ToolBox.of(tool("read", (input, ctx) -> ToolOutput.text("read ok"))))
                .completer(ScriptedCompleter.of(Step.toolCall("read", "{}"), Step.reply("done")))
                .build();

        a.run("go", RunContext.builder().observers(recorder).build());

        assertThat(recorder.log).containsExactly(
                "start run a@0 under null",
                "start chat a#1 under run a@0",
                "end chat a#1 stop TOOL_USE",
                "start tool read of a under run a@0",
                "end tool read of a ok",
                "start chat a#2 under run a@0",
                "end chat a#2 stop END_TURN",
                "end run a@0 done");
    }

    @Test
    void delegatedChildrenOnVirtualThreadsStartUnderTheDelegateCallThreeLevelsDeep() {
        Recorder recorder = new Recorder();
        ToolBox leafTools = ToolBox.of(tool("leaf_tool", (input, ctx) -> ToolOutput.text("leaf ok")));
        Registry registry = new Registry()
                .register("mid", "Delegates further", () -> Agent.builder("mid").maxDelegationDepth(2)
                        .completer(ScriptedCompleter.of(Step.delegate(new Step.Task("leaf", "a", null),
                                new Step.Task("leaf", "b", null)), Step.reply("mid done")))
                        .build())
                .register("leaf", "Works", () -> Agent.builder("leaf").toolboxes(leafTools)
                        .completer(ScriptedCompleter.of(Step.toolCall("leaf_tool", "{}"), Step.reply("leaf done")))
                        .build());
        Agent top = Agent.builder("top").registry(registry).maxDelegationDepth(2)
                .completer(ScriptedCompleter.of(Step.delegate("mid", "go on"), Step.reply("top done")))
                .build();

        top.run("go", RunContext.builder().observers(recorder).build());

        assertThat(recorder.starts()).containsExactlyInAnyOrder(
                "start run top@0 under null",
                "start chat top#1 under run top@0",
                "start tool delegate of top under run top@0",
                "start run mid@1 under tool delegate of top",
                "start chat mid#1 under run mid@1",
                "start tool delegate of mid under run mid@1",
                "start run leaf@2 under tool delegate of mid",
                "start run leaf@2 under tool delegate of mid",
                "start chat leaf#1 under run leaf@2",
                "start chat leaf#1 under run leaf@2",
                "start tool leaf_tool of leaf under run leaf@2",
                "start tool leaf_tool of leaf under run leaf@2",
                "start chat leaf#2 under run leaf@2",
                "start chat leaf#2 under run leaf@2",
                "start chat mid#2 under run mid@1",
                "start chat top#2 under run top@0");
        assertThat(recorder.log).filteredOn(l -> l.startsWith("end run")).containsExactlyInAnyOrder(
                "end run leaf@2 leaf done", "end run leaf@2 leaf done", "end run mid@1 mid done", "end run top@0 top done");
        assertThat(recorder.current.get()).isNull();
    }

    @Test
    void membersOfAConcurrentTeamStepStartUnderTheWorkflow() throws Exception {
        Recorder recorder = new Recorder();
        CyclicBarrier together = new CyclicBarrier(2);
        ToolBox meet = ToolBox.of(tool("meet", (input, ctx) -> {
            together.await(10, TimeUnit.SECONDS); // both members' tools run at once: each on its own thread
            return ToolOutput.text("met");
        }));
        Team team = Team.builder("crew")
                .member(Agent.builder("x").toolboxes(meet)
                        .completer(ScriptedCompleter.of(Step.toolCall("meet", "{}"), Step.reply("x done"))).build(), "x")
                .member(Agent.builder("y").toolboxes(meet)
                        .completer(ScriptedCompleter.of(Step.toolCall("meet", "{}"), Step.reply("y done"))).build(), "y")
                .coordinator(turn -> turn.step() == 0 ? dev.shelly.agent.workflow.Selection.of("x", "y")
                        : dev.shelly.agent.workflow.Selection.DONE)
                .build();

        team.run("go", RunContext.builder().observers(recorder).build());

        assertThat(recorder.starts()).containsExactlyInAnyOrder(
                "start workflow crew under null",
                "start run x@0 under workflow crew",
                "start run y@0 under workflow crew",
                "start chat x#1 under run x@0",
                "start chat y#1 under run y@0",
                "start tool meet of x under run x@0",
                "start tool meet of y under run y@0",
                "start chat x#2 under run x@0",
                "start chat y#2 under run y@0");
        assertThat(recorder.log).last().isEqualTo("end workflow crew y done");
    }

    @Test
    void aFailedModelCallEndsItsObservationAndTheRunsWithTheFailure() {
        Recorder recorder = new Recorder();
        ModelException refused = ModelException.builder(ModelException.Kind.INVALID_REQUEST).build();
        Agent a = Agent.builder("a").completer(ScriptedCompleter.of(Step.fail(refused))).build();

        assertThatThrownBy(() -> a.run("go", RunContext.builder().observers(recorder).build())).isSameAs(refused);

        assertThat(recorder.log).containsExactly(
                "start run a@0 under null",
                "start chat a#1 under run a@0",
                "end chat a#1 failed ModelException",
                "end run a@0 failed ModelException");
    }

    @Test
    void anObserverThatThrowsChangesNothingAndTheOthersStillSeeEverything() {
        Recorder recorder = new Recorder();
        RunObserver broken = new RunObserver() {
            @Override
            public Observation<Message> runStarted(RunInterceptor.RunChain run) {
                throw new IllegalStateException("broken start");
            }

            @Override
            public Observation<ModelResponse> modelCallStarted(ModelCall call, ModelTarget target) {
                return (result, failure) -> {
                    throw new IllegalStateException("broken end");
                };
            }
        };
        Agent a = Agent.builder("a").completer(ScriptedCompleter.of(Step.reply("fine"))).build();

        Message reply = a.run("go", RunContext.builder().observers(broken, recorder).build());

        assertThat(reply.text()).isEqualTo("fine");
        assertThat(recorder.log).containsExactly("start run a@0 under null", "start chat a#1 under run a@0",
                "end chat a#1 stop END_TURN", "end run a@0 fine");
    }

    @Test
    void anObserverThatIsNotActiveIsLeftOutOfTheScopeAndNeverCalled() {
        Recorder recorder = new Recorder();
        List<String> calls = Collections.synchronizedList(new ArrayList<>());
        RunObserver off = new RunObserver() {
            @Override
            public boolean active() {
                return false;
            }

            @Override
            public Observation<Message> runStarted(RunInterceptor.RunChain run) {
                calls.add("runStarted");
                return Observation.none();
            }

            @Override
            public Runnable propagate(Runnable task) {
                calls.add("propagate");
                return task;
            }
        };
        RunContext scope = RunContext.builder().observers(off, recorder, off).build();
        Agent a = Agent.builder("a").completer(ScriptedCompleter.of(Step.reply("fine"))).build();

        a.run("go", scope);

        assertThat(scope.observers()).containsExactly(recorder);
        assertThat(RunContext.builder().observers(off).build().observers()).isEmpty();
        assertThat(calls).isEmpty();
        assertThat(recorder.log).containsExactly("start run a@0 under null", "start chat a#1 under run a@0",
                "end chat a#1 stop END_TURN", "end run a@0 fine");
    }
}
