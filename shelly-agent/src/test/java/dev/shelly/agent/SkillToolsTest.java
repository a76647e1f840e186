package dev.shelly.agent;

import static dev.shelly.agent.Fixtures.offered;
import static dev.shelly.agent.Fixtures.results;
import static dev.shelly.agent.Fixtures.tool;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.chats.Message;
import dev.shelly.modeladapter.ModelException;
import dev.shelly.skills.Skill;
import dev.shelly.testing.ScriptedCompleter;
import dev.shelly.testing.Step;
import dev.shelly.testing.logs.LogCapture;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolOutput;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.event.Level;

/**
 * The tools a skill brings: started for a run when the skill is loaded (or already followed),
 * offered under the loaded skills' limit and the approvals, stopped when the run ends however it
 * ends.
 */
@Timeout(60)
class SkillToolsTest {
    private static final Skill ISSUES = Skill.of("issues", "How to file an issue", "Search first, then file.");
    private static final Skill REVIEW = new Skill("review", "How to review", "Read only.", null, null, null,
            List.of("fs_read", "issues_search"), Map.of(), Map.of());
    private static final Skill ALWAYS = Skill.of("always", "", "Always be brief.");

    /** Every start and stop, in order, as "start issues run-1" / "stop issues". */
    private final List<String> log = new CopyOnWriteArrayList<>();
    private final List<String> ran = new CopyOnWriteArrayList<>();
    private final AtomicInteger open = new AtomicInteger();

    /** Each skill brings one toolbox of two tools named after it; a skill named "broken" fails. */
    private final Agent.SkillTools tools = (skill, ctx) -> {
        log.add("start " + skill.name() + " " + ctx.agent());
        open.incrementAndGet();
        ToolBox box = ToolBox.of(
                tool(skill.name() + "_search", (in, c) -> ToolOutput.text(ran.add(skill.name() + "_search") ? "found" : "")),
                tool(skill.name() + "_file", (in, c) -> ToolOutput.text(ran.add(skill.name() + "_file") ? "filed" : "")));
        return new Agent.SkillTools.Started(List.of(box), List.of("MCP server 'tracker' of /skills/" + skill.name()
                + "/tools.yaml did not start: connection refused"), () -> {
                    open.decrementAndGet();
                    log.add("stop " + skill.name());
                });
    };

    private Agent agent(ScriptedCompleter model, List<Skill> skills) {
        ToolBox files = ToolBox.of(tool("fs_read", (in, ctx) -> ToolOutput.text(ran.add("fs_read") ? "text" : "")));
        return Agent.builder("a").completer(model).toolboxes(files).skills(skills).skillTools(tools).build();
    }

    @Test
    void loadingASkillStartsItsToolsOnceAndTheRunsEndStopsThem() {
        ScriptedCompleter model = ScriptedCompleter.of(
                Step.toolCall("load_skill", "{\"name\":\"issues\"}"),
                Step.toolCalls(new Step.Call("issues_search", "{}"), new Step.Call("load_skill", "{\"name\":\"issues\"}")),
                Step.reply("filed"),
                Step.reply("next turn"));
        Agent agent = agent(model, List.of(ISSUES, REVIEW));

        assertThat(agent.run("file a bug").text()).isEqualTo("filed");

        assertThat(offered(model, 0)).containsExactly("fs_read", "load_skill");
        assertThat(offered(model, 1)).containsExactly("fs_read", "load_skill", "issues_search", "issues_file");
        assertThat(ran).containsExactly("issues_search");
        assertThat(results(agent).getFirst().text()).isEqualTo("Search first, then file.\n\n"
                + "Not available:\n- MCP server 'tracker' of /skills/issues/tools.yaml did not start: connection refused\n"
                + "Go on without those tools, or tell the user what is missing.\n"
                + "Tools this skill brings, offered from now on: issues_search, issues_file.");
        assertThat(results(agent).get(2).text()).as("a second load in the run starts nothing")
                .isEqualTo("Search first, then file.");
        assertThat(log).containsExactly("start issues a", "stop issues");
        assertThat(open).hasValue(0);

        agent.run("something else");
        assertThat(offered(model, 3)).as("the next run has not loaded the skill").containsExactly("fs_read", "load_skill");
        assertThat(log).hasSize(2);
    }

    @Test
    void theToolsASkillBringsAreUnderTheLoadedSkillsAllowedTools() {
        ScriptedCompleter model = ScriptedCompleter.of(
                Step.toolCalls(new Step.Call("load_skill", "{\"name\":\"issues\"}"),
                        new Step.Call("load_skill", "{\"name\":\"review\"}")),
                Step.toolCall("issues_file", "{}"),
                Step.reply("done"));
        Agent agent = agent(model, List.of(ISSUES, REVIEW));

        agent.run("review");

        assertThat(offered(model, 1)).containsExactly("fs_read", "load_skill", "issues_search");
        assertThat(ran).isEmpty();
        assertThat(results(agent).get(2).text()).startsWith("tool 'issues_file' is not offered while skill 'review' is loaded");
        assertThat(log).containsExactlyInAnyOrder("start issues a", "start review a", "stop issues", "stop review");
    }

    @Test
    void aSkillWithoutADescriptionBringsItsToolsFromTheStart() {
        ScriptedCompleter model = ScriptedCompleter.of(Step.toolCall("always_search", "{}"), Step.reply("ok"));
        Agent agent = agent(model, List.of(ALWAYS, ISSUES));

        agent.run("go");

        assertThat(offered(model, 0)).containsExactly("fs_read", "load_skill", "always_search", "always_file");
        assertThat(ran).containsExactly("always_search");
        assertThat(log).containsExactly("start always a", "stop always");
    }

    @Test
    void theToolsStopWhenTheRunFailsOrIsCancelled() throws Exception {
        ScriptedCompleter failing = ScriptedCompleter.of(Step.toolCall("load_skill", "{\"name\":\"issues\"}"),
                Step.fail(ModelException.builder(ModelException.Kind.SERVER).build()));
        assertThatThrownBy(() -> agent(failing, List.of(ISSUES)).run("go")).isInstanceOf(ModelException.class);
        assertThat(log).containsExactly("start issues a", "stop issues");

        CountDownLatch waiting = new CountDownLatch(1);
        Agent.SkillTools slow = (skill, ctx) -> {
            open.incrementAndGet();
            ToolBox box = ToolBox.of(Fixtures.blockingTool("issues_wait", waiting, () -> { }));
            return new Agent.SkillTools.Started(List.of(box), List.of(), open::decrementAndGet);
        };
        Agent agent = Agent.builder("a").skills(List.of(ISSUES)).skillTools(slow).completer(ScriptedCompleter.of(
                Step.toolCall("load_skill", "{\"name\":\"issues\"}"), Step.toolCall("issues_wait", "{}"))).build();
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            Future<Message> run = pool.submit(() -> agent.run("go"));
            assertThat(waiting.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(open).hasValue(1);
            run.cancel(true);
        }
        assertThat(open).as("stopped after the cancelled run").hasValue(0);
    }

    @Test
    void twoSkillsLoadedInParallelStartTheirToolsAtTheSameTime() {
        CountDownLatch both = new CountDownLatch(2);
        List<Boolean> together = new CopyOnWriteArrayList<>();
        Agent.SkillTools meeting = (skill, ctx) -> {
            both.countDown();
            try {
                together.add(both.await(10, TimeUnit.SECONDS));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return tools.start(skill, ctx);
        };
        ScriptedCompleter model = ScriptedCompleter.of(
                Step.toolCalls(new Step.Call("load_skill", "{\"name\":\"issues\"}"),
                        new Step.Call("load_skill", "{\"name\":\"review\"}")),
                Step.reply("done"));
        Agent agent = Agent.builder("a").completer(model).skills(List.of(ISSUES, REVIEW)).skillTools(meeting).build();

        assertThat(agent.run("go").text()).isEqualTo("done");

        assertThat(together).as("each start saw the other one begin while it ran").containsExactly(true, true);
        assertThat(log).containsExactlyInAnyOrder("start issues a", "start review a", "stop issues", "stop review");
        assertThat(open).hasValue(0);
    }

    @Test
    void aCancelledRunEndsWithoutWaitingForAStartAndWhatThatStartBringsIsStopped() throws Exception {
        CountDownLatch starting = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Agent.SkillTools stuck = (skill, ctx) -> {
            starting.countDown();
            // As a server waiting for the user's consent: deaf to the run's interrupt.
            boolean interrupted = false;
            while (true) {
                try {
                    release.await();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            return tools.start(skill, ctx);
        };
        ToolBox files = ToolBox.of(tool("fs_read", (in, ctx) -> ToolOutput.text("text")));
        Agent agent = Agent.builder("a").completer(ScriptedCompleter.of(Step.toolCalls(
                new Step.Call("load_skill", "{\"name\":\"issues\"}"), new Step.Call("fs_read", "{}"))))
                .toolboxes(files).skills(List.of(ISSUES)).skillTools(stuck).cancelGrace(Duration.ofMillis(100)).build();
        CountDownLatch ended = new CountDownLatch(1);
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            Future<?> run = pool.submit(() -> {
                try {
                    return agent.run("go");
                } finally {
                    ended.countDown();
                }
            });
            try {
                assertThat(starting.await(10, TimeUnit.SECONDS)).isTrue();
                run.cancel(true);

                assertThat(ended.await(10, TimeUnit.SECONDS)).as("the run ended while the start still ran").isTrue();
                assertThat(log).isEmpty();
            } finally {
                release.countDown();
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (log.size() < 2 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
        }
        assertThat(log).as("a start that ends after its run stops what it started").containsExactly("start issues a", "stop issues");
        assertThat(open).hasValue(0);
    }

    @Test
    void aPausedTurnStopsTheToolsAndTheResumedRunStartsThemAgain() {
        Approvals desk = Approvals.builder().policy("a", ToolPolicy.builder().ask("issues_file").build()).build();
        RunContext scope = RunContext.builder().approvals(desk).build();
        ScriptedCompleter model = ScriptedCompleter.of(
                Step.toolCall("load_skill", "{\"name\":\"issues\"}"),
                Step.toolCall("issues_file", "{}"),
                Step.reply("filed"));
        Agent agent = agent(model, List.of(ISSUES));

        assertThatThrownBy(() -> agent.run("file it", scope)).isInstanceOf(RunPausedException.class);
        assertThat(log).containsExactly("start issues a", "stop issues");
        assertThat(ran).isEmpty();

        desk.answer(desk.pending().getFirst().id(), Answer.approve());
        assertThat(agent.run(scope).text()).isEqualTo("filed");

        assertThat(ran).containsExactly("issues_file");
        assertThat(log).containsExactly("start issues a", "stop issues", "start issues a", "stop issues");
    }

    @Test
    void concurrentRunsEachStartTheirOwn() throws Exception {
        int runs = 8;
        CountDownLatch all = new CountDownLatch(runs);
        List<Integer> seen = new CopyOnWriteArrayList<>();
        Agent.SkillTools counted = (skill, ctx) -> {
            open.incrementAndGet();
            ToolBox box = ToolBox.of(tool("issues_search", (in, c) -> {
                seen.add(open.get());
                all.countDown();
                all.await(10, TimeUnit.SECONDS);
                return ToolOutput.text("found");
            }));
            return new Agent.SkillTools.Started(List.of(box), List.of(), open::decrementAndGet);
        };
        Agent agent = Agent.builder("a").skills(List.of(ISSUES)).skillTools(counted).completer(ScriptedCompleter.perChat(
                Step.toolCall("load_skill", "{\"name\":\"issues\"}"), Step.toolCall("issues_search", "{}"),
                Step.reply("done"))).build();
        List<Future<Message>> answers = new ArrayList<>();
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < runs; i++) {
                answers.add(pool.submit(() -> agent.run(new Conversation(), "go", RunContext.root())));
            }
            for (Future<Message> answer : answers) {
                assertThat(answer.get(30, TimeUnit.SECONDS).text()).isEqualTo("done");
            }
        }
        assertThat(seen).as("while every run's call waited, each had its own tools open").contains(runs);
        assertThat(open).hasValue(0);
    }

    @Test
    void aStartThatThrowsIsToldToTheModelAndTheRunGoesOn() {
        ScriptedCompleter model = ScriptedCompleter.of(Step.toolCall("load_skill", "{\"name\":\"issues\"}"),
                Step.reply("without it"));
        Agent agent = Agent.builder("a").skills(List.of(ISSUES)).completer(model).skillTools((skill, ctx) -> {
            throw new IllegalStateException("no such program 'tracker'");
        }).build();

        try (LogCapture log = LogCapture.start()) {
            assertThat(agent.run("go").text()).isEqualTo("without it");

            assertThat(log.lines()).filteredOn(l -> l.level() == Level.WARN).extracting(LogCapture.Line::message)
                    .containsExactly("agent 'a', skill 'issues': the tools of skill 'issues' did not start: "
                            + "no such program 'tracker'");
        }
        assertThat(results(agent).getFirst().text()).isEqualTo("Search first, then file.\n\nNot available:\n"
                + "- the tools of skill 'issues' did not start: no such program 'tracker'\n"
                + "Go on without those tools, or tell the user what is missing.");
    }

    @Test
    void aStartThatThrowsWithoutAMessageIsToldByTheExceptionsClass() {
        ScriptedCompleter model = ScriptedCompleter.of(Step.toolCall("load_skill", "{\"name\":\"issues\"}"),
                Step.reply("without it"));
        Agent agent = Agent.builder("a").skills(List.of(ISSUES)).completer(model).skillTools((skill, ctx) -> {
            throw new IllegalStateException();
        }).build();

        try (LogCapture captured = LogCapture.start()) {
            assertThat(agent.run("go").text()).isEqualTo("without it");
            assertThat(captured.lines()).filteredOn(l -> l.level() == Level.WARN).extracting(LogCapture.Line::message)
                    .containsExactly("agent 'a', skill 'issues': the tools of skill 'issues' did not start: "
                            + "java.lang.IllegalStateException");
        }
        assertThat(results(agent).getFirst().text())
                .contains("- the tools of skill 'issues' did not start: java.lang.IllegalStateException\n");
    }
}
