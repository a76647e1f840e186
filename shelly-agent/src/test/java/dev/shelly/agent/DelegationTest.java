package dev.shelly.agent;

import dev.shelly.agent.AgentException.AgentTimeoutException;
import static dev.shelly.agent.Fixtures.assertEveryCallAnsweredOnce;
import static dev.shelly.agent.Fixtures.tool;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.chats.ToolResult;
import dev.shelly.modeladapter.ModelException;
import dev.shelly.testing.ScriptedCompleter;
import dev.shelly.testing.Step;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolContext;
import dev.shelly.tools.ToolOutput;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class DelegationTest {

    /** Every agent the test's factories built, in the order they were built. */
    private final List<Agent> spawned = Collections.synchronizedList(new ArrayList<>());

    private Registry registry() {
        return new Registry();
    }

    /** Registers an agent whose fresh instances all share one per-chat script. */
    private void register(Registry r, String name, String description, ScriptedCompleter model,
            Function<Agent.Builder, Agent.Builder> more) {
        r.register(name, description, () -> {
            Agent a = more.apply(Agent.builder(name).description(description).completer(model)).build();
            spawned.add(a);
            return a;
        });
    }

    private void register(Registry r, String name, String description, ScriptedCompleter model) {
        register(r, name, description, model, b -> b);
    }

    private static Agent lead(Registry r, ScriptedCompleter model, int maxDepth) {
        return Agent.builder("lead").description("Leads the work").completer(model).registry(r)
                .maxDelegationDepth(maxDepth).build();
    }

    /** The text of the result the lead got for its first tool call. */
    private static ToolResult firstResult(Agent a) {
        for (Message m : a.chat().messages()) {
            if (!m.toolResults().isEmpty()) {
                return m.toolResults().getFirst();
            }
        }
        throw new AssertionError("no tool result in " + a.chat().messages());
    }

    private static Step.Answer echoLastResult() {
        return Step.reply(chat -> "lead saw: " + chat.last().orElseThrow().toolResults().getFirst().text());
    }

    // ------------------------------------------------------------------ list_agents

    @Test
    void listAgentsGivesEveryOtherEntryAsJson() {
        Registry r = registry();
        r.register("lead", "Leads the work", () -> null);
        register(r, "writer", "Writes \"articles\"", ScriptedCompleter.perChat());
        register(r, "analyst", "Analyses data", ScriptedCompleter.perChat());
        ScriptedCompleter model = ScriptedCompleter.of(Step.toolCall("list_agents", "{}"), Step.reply("ok"));
        Agent lead = lead(r, model, 1);

        lead.run("who is there?");

        assertThat(firstResult(lead)).isEqualTo(ToolResult.of("call_1",
                "[{\"name\":\"analyst\",\"description\":\"Analyses data\"},"
                        + "{\"name\":\"writer\",\"description\":\"Writes \\\"articles\\\"\"}]"));
        assertThat(model.requests().getFirst().toolNames()).containsExactly("list_agents", "delegate");
        assertThat(spawned).isEmpty();
    }

    // ------------------------------------------------------------------ delegate

    @Test
    void aDelegatedChildGetsAFreshChatWithContextAndTaskAndReportsBack() {
        Registry r = registry();
        List<ToolContext> childContexts = Collections.synchronizedList(new ArrayList<>());
        ScriptedCompleter workerModel = ScriptedCompleter.perChat(
                Step.toolCall("search", "{}"),
                Step.reply(chat -> "found X for: " + chat.messages().get(2).text()));
        register(r, "worker", "Finds things", workerModel, b -> b.toolboxes(ToolBox.of(tool("search", (i, ctx) -> {
            childContexts.add(ctx);
            return ToolOutput.text("hits");
        }))));
        r.register("lead", "Leads the work", () -> null);
        ScriptedCompleter leadModel = ScriptedCompleter.of(
                Step.delegate("worker", "find X", "the user is in Paris"), echoLastResult());
        Agent lead = lead(r, leadModel, 1);

        Message answer = lead.run("research X");

        assertThat(firstResult(lead)).isEqualTo(
                ToolResult.of("call_1", "[{\"agent\":\"worker\",\"result\":\"found X for: find X\"}]"));
        assertThat(answer.text()).isEqualTo("lead saw: [{\"agent\":\"worker\",\"result\":\"found X for: find X\"}]");
        assertThat(spawned).hasSize(1);
        Agent child = spawned.getFirst();
        List<Message> childChat = child.chat().messages();
        // At the depth limit, the child is told of no other agent and offered no delegation tools.
        assertThat(childChat.get(0)).isEqualTo(Message.system("You are worker. Finds things"));
        assertThat(childChat.get(1)).isEqualTo(Message.text("lead", Role.USER, "the user is in Paris"));
        assertThat(childChat.get(2)).isEqualTo(Message.text("lead", Role.USER, "find X"));
        assertThat(childChat.getLast().sender()).isEqualTo("worker");
        assertThat(childChat).hasSize(6);
        assertThat(childContexts).extracting(ToolContext::agent, ToolContext::parent, ToolContext::depth)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("worker", "lead", 1));
        assertThat(workerModel.requests().getFirst().toolNames()).containsExactly("search");
        assertThat(leadModel.requests().getFirst().systemPrompt())
                .hasValue("You are lead. Leads the work\n\n## Available Agents\n\n- **worker**: Finds things");
    }

    @Test
    void aTaskWithoutContextGivesTheChildOnlyTheTask() {
        Registry r = registry();
        register(r, "worker", "Works", ScriptedCompleter.perChat(Step.reply("done")));
        Agent lead = lead(r, ScriptedCompleter.of(Step.delegate("worker", "just this"), Step.reply("ok")), 1);

        lead.run("go");

        assertThat(spawned.getFirst().chat().messages()).extracting(Message::text)
                .containsExactly("You are worker. Works", "just this", "done");
    }

    @RepeatedTest(5)
    void tasksRunConcurrentlyAndResultsComeBackInTaskOrder() {
        int n = 6;
        CyclicBarrier allRunning = new CyclicBarrier(n);
        Registry r = registry();
        register(r, "echo", "Echoes", ScriptedCompleter.perChat(Step.answer(chat -> {
            try {
                allRunning.await(20, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new IllegalStateException("children did not all run at once", e);
            }
            String task = chat.last().orElseThrow().text();
            return Message.text("x", Role.ASSISTANT, "echo " + task);
        })));
        Step.Task[] tasks = new Step.Task[n];
        StringBuilder expected = new StringBuilder("[");
        for (int i = 0; i < n; i++) {
            tasks[i] = new Step.Task("echo", "t" + i, null);
            expected.append(i == 0 ? "" : ",").append("{\"agent\":\"echo\",\"result\":\"echo t").append(i).append("\"}");
        }
        Agent lead = lead(r, ScriptedCompleter.of(Step.delegate(tasks), Step.reply("ok")), 1);

        lead.run("go");

        assertThat(firstResult(lead)).isEqualTo(ToolResult.of("call_1", expected.append("]").toString()));
        assertThat(spawned).hasSize(n);
    }

    @Test
    void answersAndErrorsAreEscapedInTheResultsAsJacksonWritesThem() throws Exception {
        String answer = "say \"hi\"\\ now\nthen\ttab\u0001\u001f a/b \u00e9 \uD83D\uDE00 \u2028";
        String failure = "the \"server\"\nfell over";
        Registry r = registry();
        register(r, "worker", "Answers oddly", ScriptedCompleter.perChat(Step.reply(answer)));
        register(r, "bad", "Fails", ScriptedCompleter.perChat(Step.fail(
                ModelException.builder(ModelException.Kind.SERVER).providerMessage(failure).build())));
        Agent lead = lead(r, ScriptedCompleter.of(Step.delegate(new Step.Task("worker", "a", null),
                new Step.Task("worker", "b", null)), Step.delegate("bad", "c", null),
                Step.reply("done")), 1);

        lead.run("go");

        List<ToolResult> results = new ArrayList<>();
        for (Message m : lead.chat().messages()) {
            results.addAll(m.toolResults());
        }
        // An answer's entry is written by its child on its own thread (two tasks: two threads),
        // an error's by the lead, who strings them together.
        String entry = "{\"agent\":\"worker\",\"result\":\"say \\\"hi\\\"\\\\ now"
                + "\\nthen\\ttab\\u0001\\u001F a/b \u00e9 \uD83D\uDE00 \u2028\"}";
        assertThat(results.get(0).text()).isEqualTo("[" + entry + "," + entry + "]");
        assertThat(results.get(1).text()).isEqualTo(
                "[{\"agent\":\"bad\",\"error\":\"server: the \\\"server\\\"\\nfell over\"}]");
        record Entry(String agent, String result) {}
        tools.jackson.databind.json.JsonMapper json = tools.jackson.databind.json.JsonMapper.builder().build();
        assertThat(results.get(0).text())
                .isEqualTo(json.writeValueAsString(List.of(new Entry("worker", answer), new Entry("worker", answer))));
        assertThat(json.readTree(results.get(1).text()).get(0).get("error").stringValue())
                .isEqualTo("server: " + failure);
    }

    @RepeatedTest(5)
    void theFirstFailureCancelsTheSiblings() {
        Registry r = registry();
        ModelException crash = ModelException.builder(ModelException.Kind.SERVER).providerMessage("worker crashed").build();
        ScriptedCompleter slowModel = ScriptedCompleter.perChat(Step.toolCall("wait", "{}"), Step.reply("unreached"));
        register(r, "slow", "Takes forever", slowModel, b -> b.toolboxes(ToolBox.of(tool("wait", (i, c) -> {
            Thread.sleep(60_000);
            return ToolOutput.text("never");
        }))));
        register(r, "bad", "Fails", ScriptedCompleter.perChat(Step.fail(crash).after(Duration.ofMillis(20))));
        Agent lead = lead(r, ScriptedCompleter.of(
                Step.delegate(new Step.Task("slow", "a", null), new Step.Task("bad", "b", null), new Step.Task("slow", "c", null)),
                echoLastResult()), 1);

        long start = System.nanoTime();
        lead.run("go");

        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(30));
        assertThat(firstResult(lead)).isEqualTo(ToolResult.error("call_1",
                "[{\"agent\":\"slow\",\"error\":\"cancelled because tasks[1] (agent 'bad') failed\"},"
                        + "{\"agent\":\"bad\",\"error\":\"server: worker crashed\"},"
                        + "{\"agent\":\"slow\",\"error\":\"cancelled because tasks[1] (agent 'bad') failed\"}]"));
        for (Agent child : spawned) {
            assertEveryCallAnsweredOnce(child.chat());
        }
        assertEveryCallAnsweredOnce(lead.chat());
    }

    @Test
    void delegatingToItselfOrToAnUnknownAgentIsRefusedBeforeAnyChildStarts() {
        Registry r = registry();
        register(r, "worker", "Works", ScriptedCompleter.perChat(Step.reply("done")));
        r.register("lead", "Leads the work", () -> null);
        ScriptedCompleter model = ScriptedCompleter.of(
                Step.toolCalls(
                        new Step.Call("delegate", "{\"tasks\":[{\"agent\":\"lead\",\"task\":\"x\"}]}"),
                        new Step.Call("delegate", "{\"tasks\":[{\"agent\":\"worker\",\"task\":\"x\"},{\"agent\":\"ghost\",\"task\":\"y\"}]}")),
                Step.reply("ok"));
        Agent lead = lead(r, model, 1);

        lead.run("go");

        assertThat(lead.chat().get(3).parts()).containsExactly(
                ToolResult.error("call_1", "tasks[0]: agent 'lead' cannot delegate to itself; pick another agent or do "
                        + "the work yourself; nothing was delegated"),
                ToolResult.error("call_2", "tasks[1]: unknown agent 'ghost'; available agents: worker; nothing was delegated"));
        assertThat(spawned).isEmpty();
    }

    @Test
    void aChildsGuardrailRejectionComesBackAsItsErrorAndCancelsItsSiblings() {
        Registry r = registry();
        register(r, "leaky", "Talks too much", ScriptedCompleter.perChat(Step.reply("the SECRET plan")),
                b -> b.middleware(RunInterceptor.outputGuardrail(m -> m.text().contains("SECRET")
                        ? java.util.Optional.of("leaks a secret") : java.util.Optional.empty())));
        register(r, "slow", "Slow", ScriptedCompleter.perChat(Step.hang()));
        Agent lead = lead(r, ScriptedCompleter.of(
                Step.delegate(new Step.Task("leaky", "tell", null), new Step.Task("slow", "wait", null)),
                echoLastResult()), 1);

        lead.run("go");

        assertThat(firstResult(lead)).isEqualTo(ToolResult.error("call_1",
                "[{\"agent\":\"leaky\",\"error\":\"the output guardrail rejected the final message of agent 'leaky': "
                        + "leaks a secret\"},{\"agent\":\"slow\",\"error\":\"cancelled because tasks[0] (agent 'leaky') failed\"}]"));
        assertThat(spawned.stream().filter(a -> a.name().equals("leaky")).findFirst().orElseThrow()
                .chat().last().orElseThrow().text()).isEqualTo("the SECRET plan");
    }

    /**
     * Malformed input is checked by the delegate tool itself (a toolbox may also check it against
     * the schema first, with its own message), before any child starts.
     */
    @Test
    void theDelegateToolExplainsMalformedInputAndStartsNothing() {
        Registry r = registry();
        register(r, "worker", "Works", ScriptedCompleter.perChat(Step.reply("done")));
        Agent lead = lead(r, ScriptedCompleter.of(Step.toolCalls(
                new Step.Call("delegate", "{\"tasks\":[]}"),
                new Step.Call("delegate", "{}"),
                new Step.Call("delegate", "{\"tasks\":[{\"agent\":\"worker\"}]}"),
                new Step.Call("delegate", "{\"tasks\":[{\"agent\":\"worker\",\"task\":\"a\"},{\"agent\":\" \",\"task\":\"x\"}]}"),
                new Step.Call("delegate", "{\"tasks\":[\"worker\"]}")), Step.reply("ok")), 1);
        String none = "; nothing was delegated";

        lead.run("go");

        assertThat(lead.chat().get(3).toolResults()).containsExactly(
                ToolResult.error("call_1", "delegate needs at least one task in 'tasks'" + none),
                ToolResult.error("call_2", "delegate needs 'tasks': a list of {\"agent\", \"task\", \"context\"} objects" + none),
                ToolResult.error("call_3", "tasks[0].task is missing; say what agent 'worker' should do" + none),
                ToolResult.error("call_4", "tasks[1].agent is missing; name one of: worker" + none),
                ToolResult.error("call_5", "tasks[0] must be an object {\"agent\", \"task\", \"context\"}" + none));
        assertThat(spawned).isEmpty();
    }

    /**
     * Arguments are read from their text when they are plainly well formed, and through a tree
     * otherwise (a context that is not a string); both give the children the same input.
     */
    @Test
    void whateverShapeTheArgumentsTakeEachChildGetsItsStrippedTaskAndItsContext() {
        Registry r = registry();
        ScriptedCompleter echo = ScriptedCompleter.perChat(Step.reply(request -> {
            List<String> got = new ArrayList<>();
            for (Message m : request.messages()) {
                if (m.role() == Role.USER) {
                    got.add(m.text());
                }
            }
            return String.join("|", got);
        }));
        register(r, "worker", "Works", echo);
        register(r, "helper", "Helps", echo);
        String read = "{\"why\":{\"a\":[1,{\"b\":null}]},\"tasks\":["
                + "{\"agent\":\" worker \",\"task\":\" a \",\"context\":\"  \",\"note\":[true]},"
                + "{\"task\":\"b\",\"agent\":\"worker\",\"context\":null},"
                + "{\"agent\":\"worker\",\"task\":\"c\",\"context\":\" shared \"},"
                + "{\"agent\":\"worker\",\"task\":\"d\",\"context\":\" shared \"},"
                + "{\"agent\":\"helper\",\"task\":\"f\",\"context\":\" sHared \"}]}";
        String tree = "{\"tasks\":[{\"agent\":\"worker\",\"task\":\"e\",\"context\":{\"k\":1}}]}";
        Agent lead = lead(r, ScriptedCompleter.of(Step.toolCalls(new Step.Call("delegate", read),
                new Step.Call("delegate", tree)), Step.reply("ok")), 1);

        lead.run("go");

        assertThat(lead.chat().get(3).toolResults()).containsExactly(
                ToolResult.of("call_1", "[{\"agent\":\"worker\",\"result\":\"a\"},{\"agent\":\"worker\",\"result\":\"b\"},"
                        + "{\"agent\":\"worker\",\"result\":\" shared |c\"},{\"agent\":\"worker\",\"result\":\" shared |d\"},"
                        + "{\"agent\":\"helper\",\"result\":\" sHared |f\"}]"),
                ToolResult.of("call_2", "[{\"agent\":\"worker\",\"result\":\"{\\\"k\\\":1}|e\"}]"));
        assertThat(spawned).extracting(Agent::name).containsExactlyInAnyOrder("worker", "worker", "worker", "worker",
                "helper", "worker");
    }

    /**
     * Tasks that give one context give their children one message for it (a message is a value:
     * N waiting children keep one, not N), and each child its own task after it.
     */
    @Test
    void childrenGivenOneContextShareItsMessageAndEachGetsItsOwnTask() {
        Registry r = registry();
        register(r, "worker", "Works", ScriptedCompleter.perChat(Step.reply("done")));
        String args = "{\"tasks\":[{\"agent\":\"worker\",\"task\":\"a\",\"context\":\"shared\"},"
                + "{\"agent\":\"worker\",\"task\":\"b\",\"context\":\"shared\"},"
                + "{\"agent\":\"worker\",\"task\":\"c\",\"context\":\"other\"}]}";
        Agent lead = lead(r, ScriptedCompleter.of(Step.toolCalls(new Step.Call("delegate", args)), Step.reply("ok")), 1);

        lead.run("go");

        Map<String, Message> contextOf = new TreeMap<>();
        for (Agent child : spawned) {
            List<Message> asked = child.chat().messages().stream().filter(m -> m.role() == Role.USER).toList();
            assertThat(asked).hasSize(2);
            assertThat(asked.get(0).sender()).isEqualTo("lead");
            contextOf.put(asked.get(1).text(), asked.get(0));
        }
        assertThat(contextOf.keySet()).containsExactly("a", "b", "c");
        assertThat(contextOf.get("a").text()).isEqualTo("shared");
        assertThat(contextOf.get("b")).isSameAs(contextOf.get("a"));
        assertThat(contextOf.get("c").text()).isEqualTo("other");
    }

    /** Arguments that are not a JSON object get the answer any tool's would. */
    @Test
    void argumentsThatAreNotAJsonObjectAreRefusedAsForAnyTool() {
        Registry r = registry();
        register(r, "worker", "Works", ScriptedCompleter.perChat(Step.reply("done")));
        Agent lead = lead(r, ScriptedCompleter.of(Step.toolCalls(
                new Step.Call("delegate", "[{\"agent\":\"worker\",\"task\":\"a\"}]"),
                new Step.Call("delegate", "{\"tasks\":[{\"agent\":\"worker\",\"task\":\"a\"}]} {}")), Step.reply("ok")), 1);

        lead.run("go");

        List<ToolResult> results = lead.chat().get(3).toolResults();
        assertThat(results.get(0)).isEqualTo(ToolResult.error("call_1", "arguments for tool 'delegate' must be a JSON "
                + "object, got array. The arguments you sent: [{\"agent\":\"worker\",\"task\":\"a\"}]"));
        assertThat(results.get(1).isError()).isTrue();
        assertThat(results.get(1).text()).startsWith("arguments for tool 'delegate' are not valid JSON (");
        assertThat(spawned).isEmpty();
    }

    @Test
    void anAgentWithDelegationOffIsNeitherOfferedTheToolsNorToldOfOtherAgents() {
        Registry r = registry();
        register(r, "worker", "Works", ScriptedCompleter.perChat(Step.reply("done")));
        ScriptedCompleter model = ScriptedCompleter.of(Step.delegate("worker", "x"), Step.reply("ok"));
        Agent lead = lead(r, model, 0);

        lead.run("go");

        assertThat(lead.canDelegate()).isFalse();
        assertThat(model.requests().getFirst().toolNames()).isEmpty();
        assertThat(model.requests().getFirst().systemPrompt()).hasValue("You are lead. Leads the work");
        // A model that calls delegate anyway is told why it is not offered.
        assertThat(firstResult(lead)).isEqualTo(ToolResult.error("call_1", "tool 'delegate' is not offered to agent "
                + "'lead': delegation is off for it (its delegation depth limit is 0); do the work yourself with the "
                + "tools you have: none"));
        assertThat(spawned).isEmpty();
    }

    @Test
    void anAgentWithARegistryDelegatesOneLevelDeepByDefault() {
        Registry r = registry();
        ScriptedCompleter workerModel = ScriptedCompleter.perChat(Step.reply("done"));
        register(r, "worker", "Works", workerModel);
        ScriptedCompleter model = ScriptedCompleter.of(Step.delegate("worker", "x"), echoLastResult());
        Agent lead = Agent.builder("lead").description("Leads the work").completer(model).registry(r).build();

        Message answer = lead.run("go");

        assertThat(lead.maxDelegationDepth()).isEqualTo(Agent.DEFAULT_MAX_DELEGATION_DEPTH).isEqualTo(1);
        assertThat(model.requests().getFirst().toolNames()).containsExactly("list_agents", "delegate");
        assertThat(model.requests().getFirst().systemPrompt())
                .hasValue("You are lead. Leads the work\n\n## Available Agents\n\n- **worker**: Works");
        assertThat(answer.text()).isEqualTo("lead saw: [{\"agent\":\"worker\",\"result\":\"done\"}]");
        // The child, at the limit, works alone.
        assertThat(workerModel.requests().getFirst().toolNames()).isEmpty();
        assertThat(workerModel.requests().getFirst().systemPrompt()).hasValue("You are worker. Works");
    }

    @Test
    void anAgentAloneInItsRegistryIsNotOfferedDelegation() {
        Registry r = registry();
        ScriptedCompleter model = ScriptedCompleter.of(Step.reply("ok"));
        r.register("lead", "Leads", () -> Agent.builder("lead").completer(model).build());
        Agent lead = Agent.builder("lead").completer(model).registry(r).build();

        lead.run("go");

        assertThat(model.requests().getFirst().toolNames()).isEmpty();
        assertThat(model.requests().getFirst().systemPrompt()).hasValue("You are lead.");
    }

    @Test
    void theTopAgentsDepthLimitBoundsTheWholeTree() {
        Registry r = registry();
        register(r, "helper", "Helps", ScriptedCompleter.perChat(Step.reply("helped")));
        register(r, "worker", "Works", ScriptedCompleter.perChat(Step.delegate("helper", "assist"),
                Step.reply(chat -> "worker saw: " + chat.last().orElseThrow().toolResults().getFirst().text())),
                b -> b.maxDelegationDepth(5));
        Agent lead = lead(r, ScriptedCompleter.of(Step.delegate("worker", "x"), Step.reply("ok")), 1);

        lead.run("go");

        assertThat(spawned).extracting(Agent::name).containsExactly("worker");
        assertThat(spawned.getFirst().canDelegate()).isFalse();
        // The child calls delegate anyway: it reads why it is not offered, not just that it is unknown.
        assertThat(firstResult(lead).text()).isEqualTo("[{\"agent\":\"worker\",\"result\":\"worker saw: "
                + "tool 'delegate' is not offered to agent 'worker': it runs at delegation depth 1 and the delegation "
                + "depth limit is 1; do the work yourself with the tools you have: none\"}]");
    }

    @Test
    void delegationNestsThroughTheRegistry() {
        Registry r = registry();
        register(r, "worker", "Works", ScriptedCompleter.perChat(Step.reply(chat -> "built " + chat.last().orElseThrow().text())));
        register(r, "manager", "Manages", ScriptedCompleter.perChat(Step.delegate("worker", "part"),
                Step.reply(chat -> "managed: " + chat.last().orElseThrow().toolResults().getFirst().text())),
                b -> b.maxDelegationDepth(3));
        List<AgentEvent> events = Collections.synchronizedList(new ArrayList<>());
        Agent lead = lead(r, ScriptedCompleter.of(Step.delegate("manager", "whole"), echoLastResult()), 2);
        Message answer = lead.run("go", RunContext.builder().listener(events::add).build());

        assertThat(answer.text()).isEqualTo("lead saw: [{\"agent\":\"manager\",\"result\":\"managed: "
                + "[{\\\"agent\\\":\\\"worker\\\",\\\"result\\\":\\\"built part\\\"}]\"}]");
        assertThat(spawned).extracting(Agent::name).containsExactly("manager", "worker");
        assertThat(events).filteredOn(AgentEvent.AgentStarted.class::isInstance).extracting(AgentEvent::source)
                .extracting(AgentEvent.Source::agent, AgentEvent.Source::parent, AgentEvent.Source::depth)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("lead", null, 0),
                        org.assertj.core.groups.Tuple.tuple("manager", "lead", 1),
                        org.assertj.core.groups.Tuple.tuple("worker", "manager", 2));
        List<AgentEvent.Source> starts = events.stream().filter(AgentEvent.AgentStarted.class::isInstance)
                .map(AgentEvent::source).toList();
        assertThat(starts.get(0).parentRunId()).isNull();
        assertThat(starts.get(1).parentRunId()).isEqualTo(starts.get(0).runId());
        assertThat(starts.get(2).parentRunId()).isEqualTo(starts.get(1).runId());
        assertThat(starts).extracting(AgentEvent.Source::runId).doesNotContainNull().doesNotHaveDuplicates();
        assertThat(events).filteredOn(AgentEvent.AgentFinished.class::isInstance).extracting(e -> e.source().agent())
                .containsExactly("worker", "manager", "lead");
    }

    @Test
    void aChildKeepsItsOwnListenerBesideTheInheritedOne() {
        Registry r = registry();
        List<AgentEvent> own = Collections.synchronizedList(new ArrayList<>());
        register(r, "worker", "Works", ScriptedCompleter.perChat(Step.reply("done")), b -> b.listener(own::add));
        List<AgentEvent> inherited = Collections.synchronizedList(new ArrayList<>());
        Agent lead = lead(r, ScriptedCompleter.of(Step.delegate("worker", "x"), Step.reply("ok")), 1);
        lead.run("go", RunContext.builder().listener(inherited::add).build());

        assertThat(own).isNotEmpty().allSatisfy(e -> assertThat(e.source().agent()).isEqualTo("worker"));
        assertThat(inherited).filteredOn(e -> e.source().agent().equals("worker")).hasSameSizeAs(own);
    }

    // ------------------------------------------------------------------ cancellation

    @RepeatedTest(5)
    void cancellingMidDelegationStopsEveryChildAndAnswersEveryCall() throws Exception {
        int n = 4;
        CountDownLatch allInTool = new CountDownLatch(n);
        Registry r = registry();
        register(r, "worker", "Works", ScriptedCompleter.perChat(Step.toolCall("block", "{}"), Step.reply("unreached")),
                b -> b.toolboxes(ToolBox.of(tool("block", (i, c) -> {
                    allInTool.countDown();
                    new CountDownLatch(1).await();
                    return ToolOutput.text("never");
                }))));
        List<AgentEvent> events = Collections.synchronizedList(new ArrayList<>());
        Step.Task[] tasks = new Step.Task[n];
        for (int i = 0; i < n; i++) {
            tasks[i] = new Step.Task("worker", "t" + i, "ctx");
        }
        Agent lead = lead(r, ScriptedCompleter.of(Step.delegate(tasks), Step.reply("unreached")), 1);
        RunContext scope = RunContext.builder().listener(events::add).build();

        Fixtures.Background run = new Fixtures.Background(() -> lead.run("go", scope));
        assertThat(allInTool.await(20, TimeUnit.SECONDS)).isTrue();
        run.interruptAndJoin();

        assertThat(run.error.get()).isInstanceOf(CancellationException.class).hasMessage("agent 'lead' was cancelled");
        assertThat(run.interruptedAfter.get()).isTrue();
        assertThat(firstResult(lead)).isEqualTo(ToolResult.error("call_1", "tool 'delegate' was cancelled before it finished"));
        assertEveryCallAnsweredOnce(lead.chat());
        assertThat(spawned).hasSize(n);
        for (Agent child : spawned) {
            assertEveryCallAnsweredOnce(child.chat());
            assertThat(child.chat().last().orElseThrow().toolResults())
                    .containsExactly(ToolResult.error("call_1", "tool 'block' was cancelled before it finished"));
        }
        List<AgentEvent.AgentFailed> childEnds = events.stream()
                .filter(AgentEvent.AgentFailed.class::isInstance).map(AgentEvent.AgentFailed.class::cast)
                .filter(e -> e.source().agent().equals("worker")).toList();
        assertThat(childEnds).hasSize(n).allMatch(AgentEvent.AgentFailed::cancelled);
    }

    /**
     * Workers whose one tool call names their task; the call of task {@code stuck} blocks until
     * interrupted, the others until {@code release} opens. Each run's context is kept by task.
     */
    private Registry blockingWorkers(java.util.Map<String, RunContext> runs, CountDownLatch inTool,
            CountDownLatch release) {
        Registry r = registry();
        register(r, "worker", "Works", ScriptedCompleter.perChat(
                Step.answer(chat -> Message.of("x", Role.ASSISTANT, new dev.shelly.chats.ToolCall("call_1", "work",
                        "{\"task\":\"" + chat.last().orElseThrow().text() + "\"}"))),
                Step.reply(chat -> "done " + chat.messages().get(1).text())),
                b -> b.toolboxes(ToolBox.of(tool("work", (input, ctx) -> {
                    String task = input.path("task").asString();
                    runs.put(task, RunContext.from(ctx).orElseThrow());
                    inTool.countDown();
                    if (task.equals("stuck")) {
                        new CountDownLatch(1).await();
                    }
                    release.await();
                    return ToolOutput.text("worked");
                }))));
        r.register("lead", "Leads the work", () -> null);
        return r;
    }

    @RepeatedTest(3)
    void cancellingOneChildsRunEndsItsTaskWithAnErrorWhileItsSiblingsFinish() throws Exception {
        java.util.Map<String, RunContext> runs = new java.util.concurrent.ConcurrentHashMap<>();
        CountDownLatch inTool = new CountDownLatch(3);
        CountDownLatch release = new CountDownLatch(1);
        Registry r = blockingWorkers(runs, inTool, release);
        Agent lead = lead(r, ScriptedCompleter.of(Step.delegate(new Step.Task("worker", "a", null),
                new Step.Task("worker", "stuck", null), new Step.Task("worker", "b", null)), echoLastResult()), 1);
        RunContext scope = RunContext.root();

        Fixtures.Background run = new Fixtures.Background(() -> lead.run("go", scope));
        assertThat(inTool.await(20, TimeUnit.SECONDS)).isTrue();
        RunContext stuck = runs.get("stuck");
        assertThat(stuck.cancel()).as("it was running").isTrue();
        assertThat(stuck.cancelled()).isTrue();
        assertThat(runs.get("a").cancelled()).as("a sibling").isFalse();
        release.countDown();
        run.thread.join(TimeUnit.SECONDS.toMillis(20));

        assertThat(run.error.get()).isNull();
        assertThat(run.interruptedAfter.get()).isFalse();
        assertThat(firstResult(lead)).isEqualTo(ToolResult.error("call_1", "[{\"agent\":\"worker\",\"result\":\"done a\"},"
                + "{\"agent\":\"worker\",\"error\":\"agent 'worker' was cancelled\"},"
                + "{\"agent\":\"worker\",\"result\":\"done b\"}]"));
        assertThat(run.reply.get().text()).startsWith("lead saw: ");
        assertEveryCallAnsweredOnce(lead.chat());
        for (Agent child : spawned) {
            assertEveryCallAnsweredOnce(child.chat());
        }
        assertThat(spawned).filteredOn(a -> a.chat().messages().get(1).text().equals("stuck")).singleElement()
                .satisfies(a -> assertThat(a.chat().last().orElseThrow().toolResults())
                        .containsExactly(ToolResult.error("call_1", "tool 'work' was cancelled before it finished")));
        assertThat(stuck.cancel()).as("it ended").isFalse();
    }

    @RepeatedTest(3)
    void cancellingTheOnlyChildLetsTheParentGoOnOnItsOwnThread() throws Exception {
        java.util.Map<String, RunContext> runs = new java.util.concurrent.ConcurrentHashMap<>();
        CountDownLatch inTool = new CountDownLatch(1);
        Registry r = blockingWorkers(runs, inTool, new CountDownLatch(0));
        Agent lead = lead(r, ScriptedCompleter.of(Step.delegate("worker", "stuck"), echoLastResult()), 1);

        Fixtures.Background run = new Fixtures.Background(() -> lead.run("go"));
        assertThat(inTool.await(20, TimeUnit.SECONDS)).isTrue();
        assertThat(runs.get("stuck").cancel()).isTrue();
        run.thread.join(TimeUnit.SECONDS.toMillis(20));

        assertThat(run.error.get()).isNull();
        assertThat(run.interruptedAfter.get()).as("the child ran on the lead's thread; its cancel is not the lead's").isFalse();
        assertThat(run.reply.get().text())
                .isEqualTo("lead saw: [{\"agent\":\"worker\",\"error\":\"agent 'worker' was cancelled\"}]");
        assertEveryCallAnsweredOnce(lead.chat());
    }

    @Test
    void everyRunKnowsItsPathInTheDelegationTree() {
        Registry r = registry();
        register(r, "worker", "Works", ScriptedCompleter.perChat(
                Step.delegate(new Step.Task("helper", "h", null)), Step.reply("worked")), b -> b.maxDelegationDepth(2));
        register(r, "helper", "Helps", ScriptedCompleter.perChat(Step.reply("helped")));
        List<String> paths = Collections.synchronizedList(new ArrayList<>());
        Agent lead = Agent.builder("lead").description("Leads the work").completer(ScriptedCompleter.of(
                        Step.delegate(new Step.Task("worker", "a", null), new Step.Task("worker", "b", null)),
                        Step.reply("done")))
                .registry(r).maxDelegationDepth(2).interceptors(new RunInterceptor() {
                    @Override
                    public Message interceptRun(RunChain chain) {
                        Message reply = chain.proceed();
                        // Asked for after the run, from the run's own context, as a link may.
                        paths.add(chain.agent().name() + " '" + chain.context().path() + "'");
                        return reply;
                    }
                }).build();

        assertThat(lead.run("go").text()).isEqualTo("done");

        assertThat(paths).containsExactlyInAnyOrder("lead ''", "worker 'call_1/0'", "worker 'call_1/1'",
                "helper 'call_1/0/call_1/0'", "helper 'call_1/1/call_1/0'");
    }

    @Test
    void aRunEnteredFromADelegatedChildsContextIsAtTheChildsPath() {
        Registry r = registry();
        List<String> paths = Collections.synchronizedList(new ArrayList<>());
        RunInterceptor watch = new RunInterceptor() {
            @Override
            public Message interceptRun(RunChain chain) {
                paths.add(chain.agent().name() + " '" + chain.context().path() + "'");
                return chain.proceed();
            }
        };
        // The nested agent offers a tool, so its turn reads its path too.
        Agent nested = Agent.builder("nested").completer(ScriptedCompleter.of(Step.toolCall("noop", "{}"),
                Step.reply("nested done"))).toolboxes(ToolBox.of(tool("noop", (i, c) -> ToolOutput.text("ok"))))
                .interceptors(watch).build();
        register(r, "worker", "Works", ScriptedCompleter.perChat(Step.toolCall("ask", "{}"), Step.reply("worked")),
                b -> b.toolboxes(ToolBox.of(tool("ask", (i, ctx) ->
                        ToolOutput.text(nested.run("go", RunContext.from(ctx).orElseThrow()).text())))));
        Agent lead = Agent.builder("lead").description("Leads the work").completer(ScriptedCompleter.of(
                        Step.delegate(new Step.Task("worker", "a", null)), echoLastResult()))
                .registry(r).maxDelegationDepth(1).build();

        assertThat(lead.run("go").text()).isEqualTo("lead saw: [{\"agent\":\"worker\",\"result\":\"worked\"}]");

        assertThat(paths).containsExactly("nested 'call_1/0'");
    }

    @Test
    void cancellingTheTopRunCancelsItAndItsChildren() throws Exception {
        java.util.Map<String, RunContext> runs = new java.util.concurrent.ConcurrentHashMap<>();
        CountDownLatch inTool = new CountDownLatch(2);
        Registry r = blockingWorkers(runs, inTool, new CountDownLatch(1));
        List<RunContext> top = Collections.synchronizedList(new ArrayList<>());
        Agent lead = Agent.builder("lead").description("Leads the work").completer(ScriptedCompleter.of(
                        Step.delegate(new Step.Task("worker", "a", null), new Step.Task("worker", "b", null)),
                        Step.reply("unreached")))
                .registry(r).maxDelegationDepth(1).interceptors(new RunInterceptor() {
                    @Override
                    public Message interceptRun(RunChain chain) {
                        top.add(chain.context());
                        return chain.proceed();
                    }
                }).build();

        Fixtures.Background run = new Fixtures.Background(() -> lead.run("go"));
        assertThat(inTool.await(20, TimeUnit.SECONDS)).isTrue();
        assertThat(top.getFirst().cancel()).isTrue();
        run.thread.join(TimeUnit.SECONDS.toMillis(20));

        assertThat(run.error.get()).isInstanceOf(CancellationException.class).hasMessage("agent 'lead' was cancelled");
        assertThat(runs.values()).allMatch(RunContext::cancelled);
        assertEveryCallAnsweredOnce(lead.chat());
        for (Agent child : spawned) {
            assertEveryCallAnsweredOnce(child.chat());
        }
    }

    @RepeatedTest(3)
    void aTimeoutMidDelegationCancelsTheChildren() {
        Registry r = registry();
        ScriptedCompleter workerModel = ScriptedCompleter.perChat(Step.hang());
        register(r, "worker", "Works", workerModel);
        Agent lead = Agent.builder("lead").completer(ScriptedCompleter.of(
                        Step.delegate(new Step.Task("worker", "a", null), new Step.Task("worker", "b", null)),
                        Step.reply("unreached")))
                .registry(r).maxDelegationDepth(1).timeout(Duration.ofSeconds(1)).build();

        // The limit leaves a loaded machine ample time to start both children before it passes.
        assertThatThrownBy(() -> lead.run("go")).isInstanceOf(AgentTimeoutException.class)
                .hasMessage("agent 'lead' did not finish within 1 s and was stopped");

        assertEveryCallAnsweredOnce(lead.chat());
        assertThat(spawned).hasSize(2);
        for (Agent child : spawned) {
            assertThat(child.chat().last().orElseThrow().role()).isEqualTo(Role.USER);
        }
    }

    @RepeatedTest(2)
    void aThousandChildrenFanOutAndBackInOrder() {
        int n = 1000;
        Registry r = registry();
        register(r, "echo", "Echoes", ScriptedCompleter.perChat(
                Step.reply(chat -> "r" + chat.last().orElseThrow().text()).after(Duration.ofMillis(20))));
        Step.Task[] tasks = new Step.Task[n];
        for (int i = 0; i < n; i++) {
            tasks[i] = new Step.Task("echo", Integer.toString(i), null);
        }
        Agent lead = lead(r, ScriptedCompleter.of(Step.delegate(tasks), Step.reply("ok")), 1);

        lead.run("go");

        String json = firstResult(lead).text();
        assertThat(firstResult(lead).isError()).isFalse();
        int from = 0;
        for (int i = 0; i < n; i++) {
            int at = json.indexOf("{\"agent\":\"echo\",\"result\":\"r" + i + "\"}", from);
            assertThat(at).as("result %d in order", i).isGreaterThanOrEqualTo(from);
            from = at + 1;
        }
    }

    @Test
    void theChildsChatIsItsOwn() {
        Registry r = registry();
        register(r, "worker", "Works", ScriptedCompleter.perChat(Step.reply("done")));
        Chat leadChat = new Chat();
        Agent lead = Agent.builder("lead").completer(ScriptedCompleter.of(Step.delegate("worker", "x"), Step.reply("ok")))
                .registry(r).maxDelegationDepth(1).chat(leadChat).build();

        lead.run("go");

        assertThat(spawned.getFirst().chat()).isNotSameAs(leadChat);
        assertThat(leadChat.messages()).noneMatch(m -> m.sender().equals("worker"));
    }
}
