package dev.shelly.agent;

import dev.shelly.agent.AgentException.MaxIterationsException;
import static dev.shelly.agent.Fixtures.assertEveryCallAnsweredOnce;
import static dev.shelly.agent.Fixtures.tool;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.Delta;
import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.Usage;
import dev.shelly.skills.Skill;
import dev.shelly.testing.ScriptedCompleter;
import dev.shelly.testing.Step;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolContext;
import dev.shelly.tools.ToolOutput;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class AgentTest {

    private static Agent.Builder agent(String name, ScriptedCompleter model) {
        return Agent.builder(name).completer(model);
    }

    // ------------------------------------------------------------------ system prompt

    /**
     * Fresh agents with the same texts share one system prompt message (a fan-out's workers keep
     * one, not one each), and agents built at once with different texts each get their own.
     */
    @Test
    void freshAgentsShareTheirPromptMessageOnlyWhenTheirTextsAreTheSame() throws Exception {
        dev.shelly.modeladapter.ModelResponse answer = dev.shelly.modeladapter.ModelResponse.of(
                Message.text("model", Role.ASSISTANT, "done"));
        dev.shelly.modeladapter.Completer model = request -> answer;
        Agent first = Agent.builder("worker").instructions("Do the part you are given.").completer(model).build();
        Agent second = Agent.builder("worker").instructions("Do the part you are given.").completer(model).build();
        first.run("one");
        second.run("two");
        assertThat(second.chat().get(0)).as("the same prompt: one message").isSameAs(first.chat().get(0));
        assertThat(first.chat().get(0).text()).isEqualTo("You are worker.\n\n## Instructions\n\nDo the part you are given.");

        List<String> failures = Collections.synchronizedList(new ArrayList<>());
        try (var pool = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < 400; i++) {
                String part = "Do part " + (i % 3) + ".";
                pool.submit(() -> {
                    Agent a = Agent.builder("worker").instructions(part).completer(model).build();
                    a.run("go");
                    String prompt = a.chat().get(0).text();
                    if (!prompt.endsWith(part)) {
                        failures.add(part + " got " + prompt);
                    }
                });
            }
        }
        assertThat(failures).as("agents built at once with other texts keep their own prompt").isEmpty();
    }

    @Test
    void theSystemPromptHasTheSeedsStructureExactly() {
        Registry registry = new Registry()
                .register("writer", "Writes articles and summaries", () -> null)
                .register("lead", "Coordinates the work", () -> null)
                .register("analyst", "Analyses data", () -> null);
        Agent lead = Agent.builder("lead")
                .description("Coordinates the work")
                .instructions("  Break tasks down.\nDelegate them.\n")
                .context("The project is a Java SDK.")
                .skills(List.of(Skill.of("orchestration", "How to orchestrate", "1. Break it into subtasks\n2. Delegate"),
                        Skill.of("review", "", "Read the diff.")))
                .registry(registry)
                .completer(ScriptedCompleter.of(Step.reply("ok")))
                .build();

        lead.run("go");

        String expected = """
                You are lead. Coordinates the work

                ## Instructions

                Break tasks down.
                Delegate them.

                ## Project Context

                The project is a Java SDK.

                ## Skills

                Call load_skill with a skill's name to read its full procedure before you follow it.

                ### orchestration

                How to orchestrate

                ### review

                Read the diff.

                ## Available Agents

                - **analyst**: Analyses data
                - **writer**: Writes articles and summaries""";
        assertThat(lead.systemPrompt()).isEqualTo(expected);
        assertThat(lead.chat().get(0)).isEqualTo(Message.system(expected));
    }

    @Test
    void skillsWithADescriptionAreListedByItAndTheirContentIsLoadedOnDemand() {
        ScriptedCompleter model = ScriptedCompleter.of(
                Step.toolCalls(new Step.Call("load_skill", "{\"name\":\"deploy\"}")), Step.reply("done"));
        Agent a = agent("ops", model)
                .skills(List.of(Skill.of("deploy", "Ship a release to production", "1. Tag.\n2. Build.\n3. Roll out.")))
                .build();

        a.run("ship it");

        assertThat(a.systemPrompt()).isEqualTo("""
                You are ops.

                ## Skills

                Call load_skill with a skill's name to read its full procedure before you follow it.

                ### deploy

                Ship a release to production""");
        assertThat(model.requests().getFirst().messages().getFirst().text()).doesNotContain("Roll out");
        assertThat(a.chat().get(3).parts()).containsExactly(ToolResult.of("call_1", "1. Tag.\n2. Build.\n3. Roll out."));
    }

    @Test
    void emptySectionsAreLeftOut() {
        Registry onlySelf = new Registry().register("solo", "Works alone", () -> null);

        assertThat(agent("solo", ScriptedCompleter.of()).build().systemPrompt()).isEqualTo("You are solo.");
        assertThat(agent("solo", ScriptedCompleter.of()).description("Works alone").registry(onlySelf).build()
                .systemPrompt()).isEqualTo("You are solo. Works alone");
        assertThat(agent("solo", ScriptedCompleter.of()).instructions(" \n").context("Ctx").build().systemPrompt())
                .isEqualTo("You are solo.\n\n## Project Context\n\nCtx");
        assertThat(agent("solo", ScriptedCompleter.of()).skills(List.of(Skill.of("empty", "", ""))).build()
                .systemPrompt()).isEqualTo("You are solo.\n\n## Skills\n\n### empty");
    }

    @Test
    void theSystemPromptIsWrittenOnlyOnAnEmptyChat() {
        ScriptedCompleter model = ScriptedCompleter.of(Step.reply("one"), Step.reply("two"));
        Agent a = agent("a", model).build();

        a.run("first");
        a.run("second");

        assertThat(a.chat().messages()).extracting(Message::role)
                .containsExactly(Role.SYSTEM, Role.USER, Role.ASSISTANT, Role.USER, Role.ASSISTANT);
        assertThat(model.requests().get(1).messages()).hasSize(4);
    }

    @Test
    void aChatThatHoldsMessagesWithoutASystemMessageGetsThePromptInFrontOfEveryModelCall() {
        Chat shared = Chat.of(Message.user("hello"));
        ScriptedCompleter model = ScriptedCompleter.of(Step.toolCall("t", "{}"), Step.reply("hi"));
        Agent a = agent("a", model).description("Greets.").chat(shared)
                .toolboxes(ToolBox.of(tool("t", (i, c) -> ToolOutput.text("done")))).build();

        a.run();

        // The chat is left as it was given (a chat only grows), but the model sees the prompt first.
        assertThat(shared.messages()).extracting(Message::role)
                .containsExactly(Role.USER, Role.ASSISTANT, Role.TOOL, Role.ASSISTANT);
        assertThat(model.requests().get(0).messages())
                .containsExactly(Message.system("You are a. Greets."), Message.user("hello"));
        assertThat(model.requests().get(1).messages()).containsExactly(Message.system("You are a. Greets."),
                Message.user("hello"), shared.get(1), shared.get(2));
    }

    @Test
    void aMessageAppendedToTheChatBeforeTheRunKeepsTheSystemPromptFirst() {
        ScriptedCompleter model = ScriptedCompleter.of(Step.reply("one"), Step.reply("two"));
        Agent a = agent("a", model).instructions("Be brief.").build();

        a.chat().append(Message.user("earlier"));
        a.run("now");
        a.run("again");

        String prompt = "You are a.\n\n## Instructions\n\nBe brief.";
        assertThat(model.requests().get(0).messages())
                .containsExactly(Message.system(prompt), Message.user("earlier"), Message.user("now"));
        assertThat(model.requests().get(1).messages()).containsExactly(Message.system(prompt),
                Message.user("earlier"), Message.user("now"), a.chat().get(2), Message.user("again"));
    }

    @Test
    void aChatThatOpensWithASystemMessageKeepsItAsThePrompt() {
        Chat given = Chat.of(Message.system("House rules."), Message.user("hello"));
        ScriptedCompleter model = ScriptedCompleter.of(Step.reply("hi"));
        Agent a = agent("a", model).chat(given).build();

        a.run();

        assertThat(model.requests().getFirst().messages())
                .containsExactly(Message.system("House rules."), Message.user("hello"));
    }

    // ------------------------------------------------------------------ the loop

    @Test
    void reasonsActsAndAnswersWithRepliesSentByTheAgent() {
        ScriptedCompleter model = ScriptedCompleter.of(
                Step.toolCall("get_weather", "{\"city\":\"Paris\"}"),
                Step.reply("It is sunny in Paris."));
        List<ToolContext> contexts = Collections.synchronizedList(new ArrayList<>());
        ToolBox weather = ToolBox.of(tool("get_weather", (input, ctx) -> {
            contexts.add(ctx);
            return ToolOutput.text("sunny in " + input.get("city").stringValue());
        }));
        Agent a = agent("weather-bot", model).description("A weather assistant").toolboxes(weather).build();

        Message answer = a.run("Weather in Paris?");

        assertThat(answer.text()).isEqualTo("It is sunny in Paris.");
        assertThat(answer.sender()).isEqualTo("weather-bot");
        List<Message> chat = a.chat().messages();
        assertThat(chat).hasSize(5);
        assertThat(chat.get(0)).isEqualTo(Message.system("You are weather-bot. A weather assistant"));
        assertThat(chat.get(1)).isEqualTo(Message.user("Weather in Paris?"));
        assertThat(chat.get(2).sender()).isEqualTo("weather-bot");
        assertThat(chat.get(2).toolCalls()).containsExactly(new ToolCall("call_1", "get_weather", "{\"city\":\"Paris\"}"));
        assertThat(chat.get(3).role()).isEqualTo(Role.TOOL);
        assertThat(chat.get(3).sender()).isEqualTo("weather-bot");
        assertThat(chat.get(3).parts()).containsExactly(ToolResult.of("call_1", "sunny in Paris"));
        assertThat(chat.get(4)).isSameAs(answer);
        ToolContext ctx = contexts.getFirst();
        assertThat(contexts).hasSize(1);
        assertThat(ctx).extracting(ToolContext::agent, ToolContext::parent, ToolContext::depth, ToolContext::sessionId,
                ToolContext::parentRunId).containsExactly("weather-bot", null, 0, null, null);
        assertThat(ctx.runId()).startsWith("run_");
        assertThat(RunContext.from(ctx).orElseThrow().runId()).contains(ctx.runId());
        assertThat(model.requests().getFirst().toolNames()).containsExactly("get_weather");
    }

    @RepeatedTest(5)
    void toolCallsOfOneTurnRunConcurrentlyAndAnswerInCallOrder() {
        CyclicBarrier bothRunning = new CyclicBarrier(2);
        CountDownLatch secondDone = new CountDownLatch(1);
        ToolBox box = ToolBox.of(
                tool("slow", (input, ctx) -> {
                    bothRunning.await(10, TimeUnit.SECONDS);
                    secondDone.await(10, TimeUnit.SECONDS);
                    return ToolOutput.text("slow done");
                }),
                tool("fast", (input, ctx) -> {
                    bothRunning.await(10, TimeUnit.SECONDS);
                    secondDone.countDown();
                    return ToolOutput.text("fast done");
                }));
        ScriptedCompleter model = ScriptedCompleter.of(
                Step.toolCalls(new Step.Call("slow", "{}"), new Step.Call("fast", "{}")),
                Step.reply("both done"));
        Agent a = agent("a", model).toolboxes(box).build();

        a.run("go");

        Message results = a.chat().get(3);
        assertThat(results.parts()).containsExactly(ToolResult.of("call_1", "slow done"), ToolResult.of("call_2", "fast done"));
    }

    @Test
    void anUnknownToolBecomesAnErrorResultAndTheLoopGoesOn() {
        ScriptedCompleter model = ScriptedCompleter.of(Step.toolCall("nope", "{}"), Step.reply("sorry"));
        Agent a = agent("a", model).toolboxes(ToolBox.of(tool("known", (i, c) -> ToolOutput.text("x")))).build();

        a.run("go");

        assertThat(a.chat().get(3).parts())
                .containsExactly(ToolResult.error("call_1", "unknown tool 'nope'; available tools: known"));
    }

    /** An agent that offers no tool still answers a call the model makes anyway, and goes on. */
    @Test
    void aToolCalledOfAnAgentWithNoToolsBecomesAnErrorResultAndTheLoopGoesOn() {
        ScriptedCompleter model = ScriptedCompleter.of(Step.toolCall("nope", "{}"), Step.reply("sorry"));
        Agent a = agent("a", model).build();

        assertThat(a.run("go").text()).isEqualTo("sorry");

        assertThat(model.requests().getFirst().tools()).as("nothing offered").isEmpty();
        assertThat(a.chat().get(3).parts())
                .containsExactly(ToolResult.error("call_1", "unknown tool 'nope'; available tools: none"));
        assertEveryCallAnsweredOnce(a.chat());
    }

    @Test
    void theFirstToolboxHoldingANameWins() {
        ToolBox first = ToolBox.of(tool("dup", (i, c) -> ToolOutput.text("first")));
        ToolBox second = ToolBox.of(tool("dup", (i, c) -> ToolOutput.text("second")), tool("other", (i, c) -> ToolOutput.text("o")));
        ScriptedCompleter model = ScriptedCompleter.of(Step.toolCall("dup", "{}"), Step.reply("ok"));
        Agent a = agent("a", model).toolboxes(first, second).build();

        a.run("go");

        assertThat(a.chat().get(3).toolResults().getFirst().text()).isEqualTo("first");
        assertThat(model.requests().getFirst().toolNames()).containsExactly("dup", "other");
    }

    @Test
    void theIterationLimitEndsTheRunWithEveryCallAnswered() {
        ScriptedCompleter model = ScriptedCompleter.of(Step.toolCall("t", "{}"), Step.toolCall("t", "{}"), Step.reply("late"));
        Agent a = agent("looper", model).maxIterations(2)
                .toolboxes(ToolBox.of(tool("t", (i, c) -> ToolOutput.text("again")))).build();

        assertThatThrownBy(() -> a.run("go"))
                .isInstanceOf(MaxIterationsException.class)
                .hasMessage("agent 'looper' reached its limit of 2 iterations without a final answer")
                .satisfies(e -> assertThat(((MaxIterationsException) e).limit()).isEqualTo(2))
                .satisfies(e -> assertThat(((MaxIterationsException) e).agent()).isEqualTo("looper"));
        assertThat(model.callCount()).isEqualTo(2);
        assertThat(a.chat().size()).isEqualTo(6);
        assertEveryCallAnsweredOnce(a.chat());
    }

    @Test
    void aModelErrorEndsTheRunUnchanged() {
        ModelException overloaded = ModelException.builder(ModelException.Kind.OVERLOADED).build();
        Agent a = agent("a", ScriptedCompleter.of(Step.fail(overloaded))).build();

        assertThatThrownBy(() -> a.run("go")).isSameAs(overloaded);
        assertThat(a.chat().size()).isEqualTo(2);
    }

    @Test
    void anAgentRunsOneRunAtATime() throws Exception {
        ScriptedCompleter model = ScriptedCompleter.of(Step.hang());
        Agent a = agent("busy", model).build();
        Fixtures.Background first = new Fixtures.Background(() -> a.run("one"));
        assertThat(model.awaitCalls(1, Duration.ofSeconds(10))).isTrue();

        assertThatThrownBy(a::run)
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("agent 'busy' is already running; an agent runs one run() at a time");
        first.interruptAndJoin();
        assertThat(first.error.get()).isInstanceOf(CancellationException.class);
    }

    @Test
    void theDefaultIterationLimitBoundsALoopingModel() {
        List<Step> steps = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            steps.add(Step.toolCall("t", "{}"));
        }
        ScriptedCompleter model = ScriptedCompleter.of(steps);
        Agent a = agent("looper", model).toolboxes(ToolBox.of(tool("t", (i, c) -> ToolOutput.text("again")))).build();

        assertThat(a.maxIterations()).isEqualTo(Agent.DEFAULT_MAX_ITERATIONS).isEqualTo(25);
        assertThatThrownBy(() -> a.run("go"))
                .isInstanceOf(MaxIterationsException.class)
                .hasMessage("agent 'looper' reached its limit of 25 iterations without a final answer");
        assertThat(model.callCount()).isEqualTo(25);
        assertEveryCallAnsweredOnce(a.chat());
    }

    @Test
    void anUnlimitedAgentRunsPastTheDefaultLimit() {
        List<Step> steps = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            steps.add(Step.toolCall("t", "{}"));
        }
        steps.add(Step.reply("finally"));
        ScriptedCompleter model = ScriptedCompleter.of(steps);
        Agent a = agent("patient", model).maxIterations(Agent.UNLIMITED)
                .toolboxes(ToolBox.of(tool("t", (i, c) -> ToolOutput.text("again")))).build();

        assertThat(a.run("go").text()).isEqualTo("finally");
        assertThat(model.callCount()).isEqualTo(31);
    }

    @Test
    void aBlankRunIsRefusedNamingTheParameter() {
        ScriptedCompleter model = ScriptedCompleter.of(Step.reply("never"));
        Agent a = agent("a", model).build();

        assertThatThrownBy(() -> a.run("")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Agent.run userMessage of 'a' must not be null or blank");
        assertThatThrownBy(() -> a.run(" \n")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Agent.run userMessage of 'a' must not be null or blank");
        assertThat(a.chat().isEmpty()).isTrue();
        assertThat(model.callCount()).isZero();
    }

    @Test
    void aToolNamedLikeABuiltInIsRefused() {
        for (String builtin : List.of("delegate", "list_agents", "load_skill")) {
            ToolBox box = ToolBox.of(tool(builtin, (i, c) -> ToolOutput.text("mine")));
            assertThatThrownBy(() -> agent("a", ScriptedCompleter.of()).toolboxes(ToolBox.of(), box).build())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("toolbox 2 of agent 'a' holds a tool named '" + builtin + "', the name of a built-in "
                            + "tool (delegate, list_agents, load_skill); rename the tool");
        }
    }

    @Test
    void aBuiltInNameAddedToAToolboxAfterTheBuildFailsTheRunBeforeTheModelIsAsked() {
        ToolBox box = new ToolBox();
        ScriptedCompleter model = ScriptedCompleter.of(Step.reply("never"));
        Agent a = agent("a", model).toolboxes(box).build();
        box.register(tool("delegate", (i, c) -> ToolOutput.text("mine")));

        assertThatThrownBy(() -> a.run("go")).isInstanceOf(IllegalStateException.class)
                .hasMessage("toolbox 1 of agent 'a' holds a tool named 'delegate', the name of a built-in "
                        + "tool (delegate, list_agents, load_skill); rename the tool");
        assertThat(model.callCount()).isZero();
    }

    @Test
    void agentNamesAreThoseProvidersAccept() {
        String invalid = " is invalid: use 1 to 64 letters, digits, '_' or '-' (providers accept only these in the "
                + "tool and sender names an agent's name appears in)";
        assertThatThrownBy(() -> Agent.builder(" ")).hasMessage("agent name ' '" + invalid);
        assertThatThrownBy(() -> Agent.builder(null)).hasMessage("agent name null" + invalid);
        assertThatThrownBy(() -> Agent.builder("weather bot")).hasMessage("agent name 'weather bot'" + invalid);
        assertThatThrownBy(() -> Agent.builder("a.b")).hasMessage("agent name 'a.b'" + invalid);
        assertThatThrownBy(() -> Agent.builder("x".repeat(65))).hasMessage("agent name '" + "x".repeat(65) + "'" + invalid);
        assertThat(Agent.builder("x".repeat(64)).completer(ScriptedCompleter.of()).build().name()).hasSize(64);
        assertThat(Agent.builder("Weather_bot-2").completer(ScriptedCompleter.of()).build().name()).isEqualTo("Weather_bot-2");
    }

    @Test
    void theBuilderChecksItsInput() {
        assertThatThrownBy(() -> Agent.builder("a").build()).hasMessage("Agent 'a' needs a completer");
        assertThatThrownBy(() -> Agent.builder("a").maxIterations(-1))
                .hasMessage("Agent 'a' maxIterations must be at least 1, was -1; use Agent.UNLIMITED for no limit");
        assertThatThrownBy(() -> Agent.builder("a").maxIterations(0))
                .hasMessage("Agent 'a' maxIterations must be at least 1, was 0; use Agent.UNLIMITED for no limit");
        assertThatThrownBy(() -> Agent.builder("a").skills(List.of(Skill.of("s", "", ""), Skill.of("s", "", ""))))
                .hasMessage("Agent 'a' has two skills named 's'");
    }

    // ------------------------------------------------------------------ events

    @Test
    void observersSeeTheRunInOrderWithDeltasUsageAndTiming() {
        ScriptedCompleter model = ScriptedCompleter.of(
                Step.toolCall("echo", "{}").withUsage(Usage.of(10, 3)),
                Step.reply("all done").withUsage(Usage.of(20, 2)));
        List<AgentEvent> events = Collections.synchronizedList(new ArrayList<>());
        Agent a = agent("observed", model).listener(events::add)
                .toolboxes(ToolBox.of(tool("echo", (i, c) -> ToolOutput.text("e")))).build();

        a.run("go");

        assertThat(events).extracting(e -> e.getClass().getSimpleName()).containsExactly(
                "AgentStarted", "MessageAdded", "MessageAdded",
                "CompletionStarted", "StreamDelta", "StreamDelta", "StreamDelta", "MessageAdded", "CompletionFinished",
                "ToolCallStarted", "ToolCallFinished", "MessageAdded",
                "CompletionStarted", "StreamDelta", "StreamDelta", "StreamDelta", "MessageAdded", "CompletionFinished",
                "AgentFinished");
        AgentEvent.Source source = events.getFirst().source();
        assertThat(source).extracting(AgentEvent.Source::agent, AgentEvent.Source::parent, AgentEvent.Source::depth)
                .containsExactly("observed", null, 0);
        assertThat(source.runId()).startsWith("run_");
        assertThat(events).allSatisfy(e -> assertThat(e.source()).isSameAs(source));
        List<AgentEvent.CompletionFinished> completions = events.stream()
                .filter(AgentEvent.CompletionFinished.class::isInstance).map(AgentEvent.CompletionFinished.class::cast).toList();
        assertThat(completions).extracting(AgentEvent.CompletionFinished::usage)
                .containsExactly(Usage.of(10, 3), Usage.of(20, 2));
        assertThat(completions).extracting(AgentEvent.CompletionFinished::iteration).containsExactly(1, 2);
        assertThat(events.get(4)).isEqualTo(new AgentEvent.StreamDelta(source, new Delta.ToolCallStart(0, "call_1", "echo")));
        AgentEvent.ToolCallFinished tool = (AgentEvent.ToolCallFinished) events.get(10);
        assertThat(tool.result()).isEqualTo(ToolResult.of("call_1", "e"));
        assertThat(tool.took().isNegative()).isFalse();
        AgentEvent.AgentFinished end = (AgentEvent.AgentFinished) events.getLast();
        assertThat(end.reply().text()).isEqualTo("all done");
        assertThat(((AgentEvent.MessageAdded) events.get(1)).message().role()).isEqualTo(Role.SYSTEM);
    }

    @Test
    void aFailedRunEndsWithAgentFailed() {
        List<AgentEvent> events = Collections.synchronizedList(new ArrayList<>());
        ModelException boom = ModelException.builder(ModelException.Kind.SERVER).build();
        Agent a = agent("a", ScriptedCompleter.of(Step.fail(boom))).listener(events::add).build();

        assertThatThrownBy(() -> a.run("go")).isSameAs(boom);

        AgentEvent.AgentFailed failed = (AgentEvent.AgentFailed) events.getLast();
        assertThat(failed.error()).isSameAs(boom);
        assertThat(failed.cancelled()).isFalse();
    }

    @Test
    void aListenerThatThrowsNeverBreaksTheRun() {
        Agent a = agent("a", ScriptedCompleter.of(Step.reply("fine"))).listener(e -> {
            throw new IllegalStateException("observer bug");
        }).build();

        assertThat(a.run("go").text()).isEqualTo("fine");
    }

    // ------------------------------------------------------------------ cancellation

    @RepeatedTest(5)
    void cancellingMidToolAnswersEveryCallAndStopsPromptly() throws Exception {
        CountDownLatch blockedStarted = new CountDownLatch(1);
        CountDownLatch quickDone = new CountDownLatch(1);
        AtomicReference<Boolean> toolSawInterrupt = new AtomicReference<>(false);
        ToolBox box = ToolBox.of(
                tool("quick", (i, c) -> {
                    quickDone.countDown();
                    return ToolOutput.text("quick result");
                }),
                tool("blocked", (i, c) -> {
                    blockedStarted.countDown();
                    try {
                        new CountDownLatch(1).await();
                    } catch (InterruptedException e) {
                        toolSawInterrupt.set(true);
                        throw e;
                    }
                    return ToolOutput.text("never");
                }));
        ScriptedCompleter model = ScriptedCompleter.of(
                Step.toolCalls(new Step.Call("quick", "{}"), new Step.Call("blocked", "{}")), Step.reply("unreached"));
        CountDownLatch quickAnswered = new CountDownLatch(1);
        Agent a = agent("a", model).toolboxes(box).listener(e -> {
            if (e instanceof AgentEvent.ToolCallFinished f && f.call().name().equals("quick")) {
                quickAnswered.countDown();
            }
        }).build();

        Fixtures.Background run = new Fixtures.Background(() -> a.run("go"));
        assertThat(blockedStarted.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(quickDone.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(quickAnswered.await(10, TimeUnit.SECONDS)).as("the quick call's result is in").isTrue();
        run.interruptAndJoin();

        assertThat(run.error.get()).isInstanceOf(CancellationException.class).hasMessage("agent 'a' was cancelled");
        assertThat(run.interruptedAfter.get()).isTrue();
        assertThat(toolSawInterrupt.get()).isTrue();
        assertEveryCallAnsweredOnce(a.chat());
        assertThat(a.chat().last().orElseThrow().parts()).containsExactly(
                ToolResult.of("call_1", "quick result"),
                ToolResult.error("call_2", "tool 'blocked' was cancelled before it finished"));
        assertThat(model.callCount()).isEqualTo(1);
    }

    @RepeatedTest(3)
    void cancellingWhileTheModelThinksLeavesNoOpenCall() throws Exception {
        ScriptedCompleter model = ScriptedCompleter.of(Step.toolCall("t", "{}"), Step.hang());
        Agent a = agent("a", model).toolboxes(ToolBox.of(tool("t", (i, c) -> ToolOutput.text("ok")))).build();

        Fixtures.Background run = new Fixtures.Background(() -> a.run("go"));
        assertThat(model.awaitCalls(2, Duration.ofSeconds(10))).isTrue();
        run.interruptAndJoin();

        assertThat(run.error.get()).isInstanceOf(CancellationException.class);
        assertThat(run.interruptedAfter.get()).isTrue();
        assertThat(a.chat().size()).isEqualTo(4);
        assertEveryCallAnsweredOnce(a.chat());
    }

    @Test
    void aToolThatIgnoresItsInterruptIsAbandonedAfterTheGrace() throws Exception {
        // Two calls, so they run on threads of their own: a lone call runs on the caller's thread
        // and holds the run until it returns (see aLoneToolCallRunsOnTheCallersThread).
        CountDownLatch started = new CountDownLatch(2);
        CountDownLatch release = new CountDownLatch(1);
        AtomicReference<Thread> toolThread = new AtomicReference<>();
        ToolBox box = ToolBox.of(tool("stubborn", (i, c) -> {
            toolThread.set(Thread.currentThread());
            started.countDown();
            while (release.getCount() > 0) {
                try {
                    release.await();
                } catch (InterruptedException ignored) {
                    // Deliberately ignores cancellation.
                }
            }
            return ToolOutput.text("finally");
        }), tool("polite", (i, c) -> {
            started.countDown();
            new CountDownLatch(1).await();
            return ToolOutput.text("never");
        }));
        List<AgentEvent> events = Collections.synchronizedList(new ArrayList<>());
        ScriptedCompleter model = ScriptedCompleter.of(
                Step.toolCalls(new Step.Call("stubborn", "{}"), new Step.Call("polite", "{}")));
        Agent a = agent("a", model).toolboxes(box).cancelGrace(Duration.ofMillis(50)).listener(events::add).build();

        Fixtures.Background run = new Fixtures.Background(() -> a.run("go"));
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        run.interruptAndJoin();
        release.countDown();

        assertThat(run.error.get()).isInstanceOf(CancellationException.class);
        assertThat(a.chat().last().orElseThrow().parts()).containsExactly(
                ToolResult.error("call_1", "tool 'stubborn' was cancelled before it finished"),
                ToolResult.error("call_2", "tool 'polite' was cancelled before it finished"));
        assertThat(toolThread.get().join(Duration.ofSeconds(10))).as("the abandoned tool finished").isTrue();
        assertEveryCallAnsweredOnce(a.chat());
        assertThat(events).filteredOn(AgentEvent.ToolCallFinished.class::isInstance).hasSize(2);
    }

    @Test
    void aLoneToolCallRunsOnTheCallersThread() throws Exception {
        AtomicReference<Thread> toolThread = new AtomicReference<>();
        ToolBox box = ToolBox.of(tool("where", (i, c) -> {
            toolThread.set(Thread.currentThread());
            return ToolOutput.text("here");
        }));
        ScriptedCompleter model = ScriptedCompleter.of(Step.toolCall("where", "{}"), Step.reply("done"));
        Agent a = agent("a", model).toolboxes(box).build();
        AtomicReference<Message> reply = new AtomicReference<>();

        Thread caller = Thread.ofPlatform().start(() -> reply.set(a.run("go")));
        caller.join(10_000);

        assertThat(reply.get().text()).isEqualTo("done");
        assertThat(toolThread.get()).isSameAs(caller);
    }

    @Test
    void anAlreadyInterruptedCallerIsCancelledAtOnce() {
        ScriptedCompleter model = ScriptedCompleter.of(Step.reply("x"));
        Agent a = agent("a", model).build();
        Thread.currentThread().interrupt();
        try {
            assertThatThrownBy(() -> a.run("go")).isInstanceOf(CancellationException.class);
        } finally {
            Thread.interrupted();
        }
        assertThat(model.callCount()).isZero();
    }

    // ------------------------------------------------------------------ skills

    @Test
    void loadSkillReturnsTheContentWithAFooterNamingTheFolder() {
        Path dir = Path.of("/opt/skills/review").toAbsolutePath();
        Skill review = new Skill("review", "How to review", "1. Read the diff.", dir, null, null, List.of(), Map.of(), Map.of());
        Skill inline = Skill.of("triage", "Sort issues", "Label it.");
        ScriptedCompleter model = ScriptedCompleter.of(
                Step.toolCalls(new Step.Call("load_skill", "{\"name\":\"review\"}"),
                        new Step.Call("load_skill", "{\"name\":\"triage\"}"),
                        new Step.Call("load_skill", "{\"name\":\"nope\"}")),
                Step.reply("ok"));
        Agent a = agent("a", model).skills(List.of(review, inline)).build();

        a.run("go");

        assertThat(model.requests().getFirst().toolNames()).containsExactly("load_skill");
        assertThat(a.chat().get(3).parts()).containsExactly(
                ToolResult.of("call_1", "1. Read the diff.\n\n---\nSkill directory: " + dir
                        + "\nSupplementary files mentioned above are in this directory."),
                ToolResult.of("call_2", "Label it."),
                ToolResult.error("call_3", "unknown skill 'nope'; available skills: review, triage"));
    }

    @Test
    void withoutSkillsOrRegistryNoBuiltInToolIsOffered() {
        ScriptedCompleter model = ScriptedCompleter.of(Step.reply("ok"));

        agent("a", model).build().run("go");

        assertThat(model.requests().getFirst().tools()).isEmpty();
    }

    @Test
    void aToolCallCutOffAtTheOutputLimitIsNotRunAndTheModelIsToldToRaiseMaxTokens() {
        List<String> ran = Collections.synchronizedList(new ArrayList<>());
        ToolBox box = ToolBox.of(tool("write_file", (in, ctx) -> {
            ran.add(in.toString());
            return ToolOutput.text("written");
        }), tool("get_time", (in, ctx) -> ToolOutput.text("noon")));
        Message cut = Message.of("model", Role.ASSISTANT, new ToolCall("c1", "get_time", "{}"),
                new ToolCall("c2", "write_file", "{\"path\":\"a.txt\",\"text\":\"Once upon"));
        ScriptedCompleter model = ScriptedCompleter.of(
                Step.respond(r -> new dev.shelly.modeladapter.ModelResponse(cut, Usage.of(40, 256),
                        dev.shelly.modeladapter.StopReason.MAX_TOKENS, "length", null, null, null)),
                Step.reply("I will write smaller pieces."));
        List<AgentEvent> events = Collections.synchronizedList(new ArrayList<>());
        Agent agent = Agent.builder("writer").completer(model).toolboxes(box).listener(events::add).build();

        agent.run("write a story");

        String expected = "the reply was cut off at 256 output tokens (the output limit) before the arguments of tool "
                + "'write_file' were complete, so it was not run; raise max_tokens (ModelOptions.maxTokens) to let the "
                + "call finish, or split the work into smaller calls. The arguments received: "
                + "{\"path\":\"a.txt\",\"text\":\"Once upon";
        assertThat(ran).isEmpty();
        assertThat(agent.chat().get(3).toolResults()).containsExactly(ToolResult.of("c1", "noon"),
                ToolResult.error("c2", expected));
        assertThat(events).filteredOn(AgentEvent.ToolCallFinished.class::isInstance)
                .map(e -> ((AgentEvent.ToolCallFinished) e).result())
                .contains(ToolResult.error("c2", expected));
        assertThat(events).filteredOn(AgentEvent.ToolCallStarted.class::isInstance)
                .map(e -> ((AgentEvent.ToolCallStarted) e).call().id()).containsExactly("c1");
        assertEveryCallAnsweredOnce(agent.chat());
    }

    @Test
    void aCompleteToolCallOfAReplyCutOffLaterStillRunsAndTheLimitSetIsNamedWithoutAReportedCount() {
        Message cut = Message.of("model", Role.ASSISTANT, new ToolCall("c1", "get_time", "{}"),
                new ToolCall("c2", "get_time", "{\"zone\":"));
        ScriptedCompleter model = ScriptedCompleter.of(
                Step.respond(r -> new dev.shelly.modeladapter.ModelResponse(cut, Usage.ZERO,
                        dev.shelly.modeladapter.StopReason.MAX_TOKENS, null, null, null, null)),
                Step.reply("ok"));
        Agent agent = Agent.builder("clock").completer(model)
                .toolboxes(ToolBox.of(tool("get_time", (in, ctx) -> ToolOutput.text("noon"))))
                .options(dev.shelly.modeladapter.ModelOptions.builder().maxTokens(64).build()).build();

        agent.run("time?");

        assertThat(agent.chat().get(3).toolResults().get(0)).isEqualTo(ToolResult.of("c1", "noon"));
        assertThat(agent.chat().get(3).toolResults().get(1).text())
                .startsWith("the reply was cut off at 64 output tokens (the output limit) before the arguments of tool "
                        + "'get_time' were complete");
    }

    /** Two agents built alike whose models are equal but not the same each ask their own. */
    @Test
    void agentsBuiltAlikeWithEqualModelsEachAskTheirOwn() {
        record Counting(List<ModelRequest> seen) implements Completer {
            @Override
            public ModelResponse complete(ModelRequest request) {
                seen.add(request);
                return ModelResponse.of(Message.text("model", Role.ASSISTANT, "ok"));
            }
        }
        Counting first = new Counting(new CopyOnWriteArrayList<>());
        Counting second = new Counting(new CopyOnWriteArrayList<>());
        assertThat(first).isEqualTo(second);
        Agent a = Agent.builder("worker").completer(first).build();
        Agent b = Agent.builder("worker").completer(second).build();

        a.run("hi");
        b.run("hi");

        assertThat(first.seen()).hasSize(1);
        assertThat(second.seen()).hasSize(1);
    }
}
