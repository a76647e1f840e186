package dev.shelly.agent.context;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.agent.Agent;
import dev.shelly.agent.AgentEvent;
import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.chats.Text;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.TokenEstimator;
import dev.shelly.modeladapter.Usage;
import dev.shelly.testing.logs.LogCapture;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolOutput;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ContextPolicyTest {
    private static final String PAGE_SCHEMA = "{\"type\":\"object\",\"properties\":{\"page\":{\"type\":\"integer\"}}}";

    /** A tool whose every result is {@code chars} characters long. */
    static ToolBox fetch(int chars) {
        return ToolBox.of(Tool.of("fetch", "Fetch a page", PAGE_SCHEMA, (input, ctx) -> {
            String head = "page " + input.path("page").asInt() + ": ";
            return ToolOutput.text(head + "x".repeat(Math.max(0, chars - head.length())));
        }));
    }

    /** Calls fetch with page n for the first {@code pages} calls, then answers. */
    static Model fetching(int pages) {
        return new Model(n -> n <= pages ? Model.call("call_" + n, "fetch", "{\"page\":" + n + "}") : Model.answer("done"));
    }

    // ------------------------------------------------------------------ compaction

    @Test
    void compactionSummarisesTheOlderPartAndTheModelContinuesFromPromptSummaryAndRecentTurns() {
        Model model = fetching(12);
        List<AgentEvent> events = new CopyOnWriteArrayList<>();
        Agent agent = Agent.builder("worker").completer(model).toolboxes(fetch(400)).maxIterations(50)
                .listener(events::add)
                .contextPolicy(ContextPolicy.builder().window(600).strategies(ContextStrategy.compaction(0.6, 0.25, null, null)).build())
                .build();

        agent.run("go");

        Chat chat = agent.chat();
        // The first compaction: the summariser read the user's request, exactly.
        assertThat(model.summaries).isNotEmpty();
        ModelRequest first = model.summaries.getFirst();
        assertThat(first.messages()).containsExactly(Message.system(Compaction.DEFAULT_INSTRUCTIONS),
                Message.user("Messages to summarise:\n\n[user] go\n[worker calls fetch] {\"page\":1}\n"
                        + "[result of fetch] page 1: " + "x".repeat(392) + "\n[worker calls fetch] {\"page\":2}\n"
                        + "[result of fetch] page 2: " + "x".repeat(392) + "\n[worker calls fetch] {\"page\":3}\n"
                        + "[result of fetch] page 3: " + "x".repeat(392) + "\n"));
        // Every later summary builds on the one before.
        for (int i = 1; i < model.summaries.size(); i++) {
            assertThat(model.summaries.get(i).messages().get(1).text()).startsWith("Previous summary:\n\nsummary " + i
                    + "\n\nMessages to add to it:\n\n");
        }
        // Every request the model answered after a compaction is exactly: prompt, the latest summary,
        // then the chat from where the summary says the view resumes, other summaries left out.
        List<Message> all = chat.messages();
        int checked = 0;
        for (ModelRequest request : model.calls) {
            Message second = request.messages().get(1);
            if (!second.sender().equals(ContextPolicy.SENDER)) {
                continue;
            }
            int summaryIndex = all.indexOf(second);
            int from = ((Number) second.metadata().get(ContextPolicy.FROM)).intValue();
            List<Message> expected = new ArrayList<>();
            expected.add(all.getFirst());
            expected.add(second);
            for (int i = from; i < all.size() && expected.size() < request.messages().size(); i++) {
                if (i != summaryIndex && !all.get(i).sender().equals(ContextPolicy.SENDER)) {
                    expected.add(all.get(i));
                }
            }
            assertThat(request.messages()).isEqualTo(expected);
            assertThat(second.metadata()).containsEntry(ContextPolicy.KIND, ContextPolicy.SUMMARY)
                    .containsEntry(ContextPolicy.AGENT, "worker").containsEntry(ContextPolicy.STRATEGY, "compaction");
            assertThat(second.text()).startsWith(ContextPolicy.SUMMARY_HEADING + "summary ");
            checked++;
        }
        assertThat(checked).isGreaterThan(5);
        // Nothing lost: the chat holds every request, call and result, in order, plus the summaries.
        List<Message> conversation = new ArrayList<>();
        for (Message m : all) {
            if (!m.sender().equals(ContextPolicy.SENDER)) {
                conversation.add(m);
            }
        }
        assertThat(conversation).hasSize(2 + 12 * 2 + 1);
        assertThat(conversation.get(1)).isEqualTo(Message.user("go"));
        for (int n = 1; n <= 12; n++) {
            assertThat(conversation.get(2 * n).toolCalls()).containsExactly(new ToolCall("call_" + n, "fetch",
                    "{\"page\":" + n + "}"));
            assertThat(conversation.get(2 * n + 1).toolResults().getFirst().text()).startsWith("page " + n + ": ");
        }
        assertThat(all.stream().filter(m -> m.sender().equals(ContextPolicy.SENDER)).count())
                .isEqualTo(model.summaries.size());
        // Events: each compaction reports tokens before and after, before that call's measure and start.
        List<AgentEvent.ContextCompacted> compacted = new ArrayList<>();
        for (int i = 0; i < events.size(); i++) {
            if (events.get(i) instanceof AgentEvent.ContextCompacted c) {
                compacted.add(c);
                assertThat(c.tokensAfter()).isLessThan(c.tokensBefore());
                assertThat(c.tokensBefore()).isGreaterThan((long) (0.6 * 600));
                assertThat(events.get(i - 1)).isInstanceOfSatisfying(AgentEvent.MessageAdded.class,
                        m -> assertThat(m.message().sender()).isEqualTo(ContextPolicy.SENDER));
                assertThat(events.get(i + 1)).isInstanceOfSatisfying(AgentEvent.ContextMeasured.class,
                        m -> assertThat(m.tokens()).isEqualTo(c.tokensAfter()));
                assertThat(events.get(i + 2)).isInstanceOf(AgentEvent.CompletionStarted.class);
            }
        }
        assertThat(compacted).hasSize(model.summaries.size());
        // The context stayed under the window at every call.
        for (AgentEvent e : events) {
            if (e instanceof AgentEvent.ContextMeasured m) {
                assertThat(m.tokens()).isLessThan(600);
                assertThat(m.window()).isEqualTo(600);
            }
        }
    }

    @Test
    void aResumedChatContinuesFromTheCompactedView() {
        assertResumesFromTheCompactedView(true);
    }

    @Test
    void anAgentWithoutAPolicyStillResumesFromTheSummaryInItsChat() {
        assertResumesFromTheCompactedView(false);
    }

    /**
     * Compacts a run, then resumes its chat in a new agent (with the same policy, or none): the
     * first request is the prompt, the latest summary and the chat from where it resumes.
     */
    private static void assertResumesFromTheCompactedView(boolean withPolicy) {
        ContextPolicy policy = ContextPolicy.builder().window(600).strategies(ContextStrategy.compaction(0.6)).build();
        Agent before = Agent.builder("worker").completer(fetching(8)).toolboxes(fetch(400)).contextPolicy(policy).build();
        before.run("go");
        List<Message> saved = before.chat().messages();
        Message latest = null;
        for (Message m : saved) {
            if (m.sender().equals(ContextPolicy.SENDER)) {
                latest = m;
            }
        }
        assertThat(latest).isNotNull();

        Model model = new Model(n -> Model.answer("resumed"));
        Agent.Builder resumed = Agent.builder("worker").completer(model).toolboxes(fetch(400)).chat(new Chat(saved));
        Agent after = (withPolicy ? resumed.contextPolicy(policy) : resumed).build();
        after.run("and now?");

        int from = ((Number) latest.metadata().get(ContextPolicy.FROM)).intValue();
        List<Message> expected = new ArrayList<>();
        expected.add(saved.getFirst());
        expected.add(latest);
        for (int i = from; i < saved.size(); i++) {
            if (!saved.get(i).sender().equals(ContextPolicy.SENDER)) {
                expected.add(saved.get(i));
            }
        }
        expected.add(Message.user("and now?"));
        assertThat(model.calls.getFirst().messages()).isEqualTo(expected);
        assertThat(after.chat().messages().subList(0, saved.size())).isEqualTo(saved);
    }

    @Test
    void compactionNeverPartsAToolCallFromItsResult() {
        // Turns of several calls each, results of many sizes: every request stays valid (Model checks).
        AtomicInteger id = new AtomicInteger();
        Model model = new Model(n -> n > 30 ? Model.answer("done") : Message.of("model", Role.ASSISTANT,
                new ToolCall("c" + id.incrementAndGet(), "fetch", "{\"page\":" + n + "}"),
                new ToolCall("c" + id.incrementAndGet(), "fetch", "{\"page\":" + (n * 7 % 13) + "}")));
        Agent agent = Agent.builder("worker").completer(model).toolboxes(fetch(300)).maxIterations(40)
                .contextPolicy(ContextPolicy.builder().window(900).strategies(ContextStrategy.compaction(0.5)).build()).build();

        agent.run("go");

        assertThat(model.calls).hasSize(31);
        assertThat(model.summaries).hasSizeGreaterThan(3);
    }

    @Test
    void theSummaryIsWrittenByTheCompletionsOwnModelWhenGiven() {
        Model summarizer = new Model(n -> Model.answer("unused"));
        Model model = fetching(6);
        Agent agent = Agent.builder("worker").completer(model).toolboxes(fetch(400))
                .contextPolicy(ContextPolicy.builder().window(600)
                        .strategies(ContextStrategy.compaction(0.6, 0.3, summarizer, null)).build()).build();

        agent.run("go");

        assertThat(model.summaries).isEmpty();
        assertThat(summarizer.summaries).isNotEmpty();
    }

    // ------------------------------------------------------------------ sliding window

    @Test
    void aSlidingWindowWithoutSummariesKeepsTheLastTurnsExactly() {
        Model model = fetching(5);
        Agent agent = Agent.builder("worker").completer(model).toolboxes(fetch(20))
                .contextPolicy(ContextPolicy.builder().strategies(ContextStrategy.slidingWindow(2, 1, false, null, null))
                        .build()).build();

        agent.run("go");

        // Call 4 sees turns 2 and 3 only: the window slid once 3 turns had gathered.
        List<Message> chat = agent.chat().messages();
        Message dropped = chat.get(8);
        assertThat(dropped.text()).isEqualTo(ContextPolicy.SUMMARY_HEADING + SlidingWindow.DROPPED);
        assertThat(dropped.metadata()).containsEntry(ContextPolicy.FROM, 4).containsEntry(ContextPolicy.STRATEGY,
                "sliding_window");
        assertThat(model.calls.get(3).messages()).containsExactly(chat.get(0), dropped, chat.get(4), chat.get(5), chat.get(6),
                chat.get(7));
        assertThat(model.summaries).isEmpty();
    }

    // ------------------------------------------------------------------ trimming, masking, offload

    @Test
    void oldToolResultsAreTrimmedInTheViewOnlyAndTheNewestStayWhole() {
        Model model = fetching(3);
        List<AgentEvent> events = new CopyOnWriteArrayList<>();
        Agent agent = Agent.builder("worker").completer(model).toolboxes(fetch(300)).listener(events::add)
                .contextPolicy(ContextPolicy.builder().strategies(ContextStrategy.trimToolResults(1, 10)).build()).build();

        agent.run("go");

        List<Message> sent = model.calls.get(3).messages();
        assertThat(sent.get(3).parts()).containsExactly(ToolResult.of("call_1", "page 1: xx\n[290 more characters of this "
                + "old tool result were cut to save context]"));
        assertThat(sent.get(5).parts()).containsExactly(ToolResult.of("call_2", ToolResultTrimming.cut("page 2: " + "x".repeat(292), 10)));
        assertThat(sent.get(7).parts()).containsExactly(ToolResult.of("call_3", "page 3: " + "x".repeat(292)));
        assertThat(agent.chat().get(3).toolResults().getFirst().text()).isEqualTo("page 1: " + "x".repeat(292));
        List<AgentEvent.ContextTrimmed> trimmed = events.stream().filter(AgentEvent.ContextTrimmed.class::isInstance)
                .map(AgentEvent.ContextTrimmed.class::cast).toList();
        assertThat(trimmed).extracting(AgentEvent.ContextTrimmed::iteration, AgentEvent.ContextTrimmed::results)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(3, 1), org.assertj.core.groups.Tuple.tuple(4, 1));
        assertThat(trimmed).allSatisfy(t -> assertThat(t.tokensAfter()).isLessThan(t.tokensBefore()));
    }

    @Test
    void everyRequestOfALongTrimmedRunIsWhatReadingTheWholeViewWouldGive() {
        // Trimming picks up where it stopped in the previous call; compactions and loop notes
        // force views to be built again. Each request is checked against the chat: every tool
        // message with three or more after it is cut, the newest three are whole.
        Model model = new Model(n -> n > 60 ? Model.answer("done")
                : Model.call("call_" + n, "fetch", "{\"page\":" + (n % 9 == 0 ? 1 : n) + "}"));
        Agent agent = Agent.builder("worker").completer(model).toolboxes(fetch(120)).maxIterations(70)
                .contextPolicy(ContextPolicy.builder().window(1_500)
                        .strategies(ContextStrategy.trimToolResults(3, 10), ContextStrategy.compaction(0.5), ContextStrategy.loopDetection(2))
                        .build())
                .build();

        agent.run("go");

        assertThat(model.calls).hasSize(61);
        assertThat(model.summaries).hasSizeGreaterThan(1);
        java.util.Map<String, String> whole = new java.util.HashMap<>();
        for (Message m : agent.chat().messages()) {
            for (ToolResult r : m.toolResults()) {
                whole.put(r.toolCallId(), r.text());
            }
        }
        int checked = 0;
        for (ModelRequest request : model.calls) {
            List<Message> sent = request.messages();
            int after = 0;
            for (int i = sent.size() - 1; i >= 0; i--) {
                if (sent.get(i).role() != Role.TOOL) {
                    continue;
                }
                ToolResult r = sent.get(i).toolResults().getFirst();
                String full = whole.get(r.toolCallId());
                assertThat(r.text()).as("result of %s in request %d", r.toolCallId(), model.calls.indexOf(request) + 1)
                        .isEqualTo(after >= 3 ? ToolResultTrimming.cut(full, 10) : full);
                after++;
                checked++;
            }
        }
        assertThat(checked).isGreaterThan(200);
    }

    /** Records what each call's view carried over and how large it left the view. */
    private record Carried(List<int[]> seen) implements ContextStrategy {
        @Override
        public String name() {
            return "carried";
        }

        @Override
        public void apply(ContextView view) {
            seen.add(new int[] {view.iteration(), view.carriedOver(), view.size()});
        }
    }

    @Test
    void eachViewCarriesOverThePreviousCallsUntilACompactionRebuildsIt() {
        List<int[]> seen = new ArrayList<>();
        Model model = fetching(20);
        List<AgentEvent> events = new CopyOnWriteArrayList<>();
        Agent agent = Agent.builder("worker").completer(model).toolboxes(fetch(300)).listener(events::add)
                .contextPolicy(ContextPolicy.builder().window(1_500)
                        .strategies(ContextStrategy.compaction(0.6), new Carried(seen)).build())
                .build();

        agent.run("go");

        List<Integer> compactedAt = events.stream().filter(AgentEvent.ContextCompacted.class::isInstance)
                .map(e -> ((AgentEvent.ContextCompacted) e).iteration()).toList();
        assertThat(compactedAt).isNotEmpty();
        assertThat(seen.getFirst()[1]).isZero();
        for (int i = 1; i < seen.size(); i++) {
            int[] previous = seen.get(i - 1);
            int[] now = seen.get(i);
            int expected = compactedAt.contains(previous[0]) || compactedAt.contains(now[0]) ? 0 : previous[2];
            assertThat(now[1]).as("carried over at call %d", now[0]).isEqualTo(expected);
        }
        // A new run starts from the chat.
        seen.clear();
        agent.run("again");
        assertThat(seen.getFirst()[1]).isZero();
    }

    /** Replaces each old result by its length: what it reads must be the chat's result, not another's rewrite. */
    private record Lengths(int keepRecent) implements ContextStrategy {
        @Override
        public String name() {
            return "lengths";
        }

        @Override
        public void apply(ContextView view) {
            ToolResults.rewriteOld(view, this, keepRecent, r -> ToolResults.withText(r, "had " + r.text().length() + " characters"));
        }
    }

    @Test
    void eachStrategyReadsTheChatsResultWhateverALaterStrategyRewroteInEarlierCalls() {
        Model model = fetching(4);
        Agent agent = Agent.builder("worker").completer(model).toolboxes(fetch(300))
                .contextPolicy(ContextPolicy.builder().strategies(new Lengths(2), ContextStrategy.trimToolResults(1, 10)).build()).build();

        agent.run("go");

        // Call 3 trimmed result 1 first; call 4 measures it whole, then trims the measure.
        assertThat(model.calls.get(2).messages().get(3).parts()).containsExactly(
                ToolResult.of("call_1", ToolResultTrimming.cut("page 1: " + "x".repeat(292), 10)));
        List<Message> sent = model.calls.get(3).messages();
        assertThat(sent.get(3).parts()).containsExactly(ToolResult.of("call_1", ToolResultTrimming.cut("had 300 characters", 10)));
        assertThat(sent.get(5).parts()).containsExactly(ToolResult.of("call_2", ToolResultTrimming.cut("page 2: " + "x".repeat(292), 10)));
        assertThat(sent.get(7).parts()).containsExactly(ToolResult.of("call_3", "page 3: " + "x".repeat(292)));
        List<Message> last = model.calls.get(4).messages();
        assertThat(last.get(5).parts()).containsExactly(ToolResult.of("call_2", ToolResultTrimming.cut("had 300 characters", 10)));
    }

    @Test
    void oldObservationsAreMaskedWhileTheReasoningStays() {
        Model model = new Model(n -> n <= 2 ? Message.of("model", Role.ASSISTANT, new Text("Let me look at page " + n + "."),
                new ToolCall("call_" + n, "fetch", "{\"page\":" + n + "}")) : Model.answer("done"));
        Agent agent = Agent.builder("worker").completer(model).toolboxes(fetch(30))
                .contextPolicy(ContextPolicy.builder().strategies(ContextStrategy.maskObservations(1)).build()).build();

        agent.run("go");

        List<Message> sent = model.calls.get(2).messages();
        assertThat(sent.get(2).text()).isEqualTo("Let me look at page 1.");
        assertThat(sent.get(3).parts()).containsExactly(ToolResult.of("call_1", ObservationMasking.DEFAULT_PLACEHOLDER));
        assertThat(sent.get(5).toolResults().getFirst().text()).startsWith("page 2: ");
    }

    @Test
    void largeResultsAreOffloadedAndRecalledPageByPage(@TempDir Path dir) throws Exception {
        List<String> keys = new ArrayList<>();
        Model model = new Model(n -> switch (n) {
            case 1 -> Model.call("call_1", "fetch", "{\"page\":1}");
            case 2 -> Model.call("call_2", "recall", "{\"key\":\"" + keys.getFirst() + "\",\"page\":2}");
            default -> Model.answer("done");
        }) {
            @Override
            public dev.shelly.modeladapter.ModelResponse complete(ModelRequest request) {
                Message last = request.messages().getLast();
                if (last.role() == Role.TOOL && keys.isEmpty()) {
                    String preview = last.toolResults().getFirst().text();
                    keys.add(preview.substring(preview.indexOf("stored as '") + 11, preview.indexOf("': read")));
                }
                return super.complete(request);
            }
        };
        Agent agent = Agent.builder("worker").completer(model).toolboxes(fetch(2_500))
                .contextPolicy(ContextPolicy.builder().strategies(ContextStrategy.offload(1_000, 20, 800, dir)).build()).build();

        agent.run("go");

        String full = "page 1: " + "x".repeat(2_492);
        String key = keys.getFirst();
        assertThat(key).isEqualTo("call_1-" + Integer.toHexString(full.hashCode()));
        assertThat(model.calls.get(1).messages().get(3).parts()).containsExactly(ToolResult.of("call_1",
                full.substring(0, 20) + "\n[2500 characters in all; the whole result is stored as '" + key
                        + "': read it with recall(key=\"" + key + "\", page=1..4), 800 characters a page]"));
        assertThat(model.calls.get(0).tools()).extracting(d -> d.name()).containsExactly("fetch", "recall");
        assertThat(Files.readString(dir.resolve(key + ".txt"))).isEqualTo(full);
        assertThat(agent.chat().get(5).toolResults().getFirst()).isEqualTo(ToolResult.of("call_2",
                "[page 2 of 4 of '" + key + "']\n" + full.substring(800, 1_600)));
        assertThat(agent.chat().get(3).toolResults().getFirst().text()).isEqualTo(full);
    }

    // ------------------------------------------------------------------ notes

    @Test
    void aRepeatedCallGetsANoteTheModelReads() {
        Model model = new Model(n -> n <= 4 ? Model.call("call_" + n, "fetch", n % 2 == 0 ? "{\"page\": 7}" : "{\"page\":7}")
                : Model.answer("done"));
        Agent agent = Agent.builder("worker").completer(model).toolboxes(fetch(10))
                .contextPolicy(ContextPolicy.builder().strategies(ContextStrategy.loopDetection(3)).build()).build();

        agent.run("go");

        Message note = model.calls.get(3).messages().getLast();
        assertThat(note.sender()).isEqualTo(ContextPolicy.SENDER);
        assertThat(note.role()).isEqualTo(Role.USER);
        assertThat(note.text()).isEqualTo("You have called fetch with the same arguments 3 times in a row ({\"page\":7}). "
                + "Its result will not change. Use what you already have, try a different approach, or give your final answer.");
        assertThat(note.metadata()).containsEntry(ContextPolicy.KIND, ContextPolicy.NOTE)
                .containsEntry(ContextPolicy.STRATEGY, "loop_detection");
        assertThat(model.calls.get(4).messages().getLast().role()).isEqualTo(Role.TOOL);
        assertThat(agent.chat().messages().stream().filter(m -> m.sender().equals(ContextPolicy.SENDER))).hasSize(1);
    }

    @Test
    void failuresInARowAskTheModelToReflect() {
        Model model = new Model(n -> n <= 3 ? Model.call("call_" + n, "broken", "{}") : Model.answer("done"));
        ToolBox broken = ToolBox.of(Tool.of("broken", "Always fails", "{\"type\":\"object\"}", (in, ctx) -> {
            throw new IllegalStateException("disk full");
        }));
        Agent agent = Agent.builder("worker").completer(model).toolboxes(broken)
                .contextPolicy(ContextPolicy.builder().strategies(ContextStrategy.failureReflection(3)).build()).build();

        agent.run("go");

        assertThat(model.calls.get(2).messages().getLast().role()).isEqualTo(Role.TOOL);
        assertThat(model.calls.get(3).messages().getLast()).satisfies(m -> {
            assertThat(m.text()).isEqualTo("The last 3 tool calls failed. Stop and reflect before your next call: what do "
                    + "the errors say, which assumption was wrong, and what will you do differently?");
            assertThat(m.metadata()).containsEntry(ContextPolicy.STRATEGY, "failure_reflection");
        });
    }

    // ------------------------------------------------------------------ budgets

    @Test
    void aTokenBudgetWarnsTheModelThenStopsTheRun() {
        Model model = new Model(n -> Model.call("call_" + n, "fetch", "{\"page\":" + n + "}"), Usage.of(400, 10), null);
        List<AgentEvent> events = new CopyOnWriteArrayList<>();
        Agent agent = Agent.builder("worker").completer(model).toolboxes(fetch(10)).listener(events::add)
                .contextPolicy(ContextPolicy.builder().strategies(ContextStrategy.budget(1_000, null, 0.5)).build()).build();

        assertThatThrownBy(() -> agent.run("go")).isInstanceOfSatisfying(BudgetExceededException.class, e -> {
            assertThat(e.getMessage()).isEqualTo("agent 'worker' ran out of its tokens budget: used 1230 of 1000 tokens");
            assertThat(e.budget()).isEqualTo("tokens");
        });

        assertThat(model.calls).hasSize(3);
        assertThat(model.calls.get(2).messages().getLast().text()).isEqualTo("Budget: this run has used 820 of its 1000 "
                + "tokens. Finish now: wrap up and give your final answer in your next reply.");
        List<AgentEvent.BudgetWarning> warnings = events.stream().filter(AgentEvent.BudgetWarning.class::isInstance)
                .map(AgentEvent.BudgetWarning.class::cast).toList();
        assertThat(warnings).hasSize(1);
        assertThat(warnings.getFirst()).satisfies(w -> {
            assertThat(w.iteration()).isEqualTo(3);
            assertThat(w.used()).isEqualTo(820);
            assertThat(w.limit()).isEqualTo(1_000);
            assertThat(w.tokensAfter()).isGreaterThan(w.tokensBefore());
        });
        // Every call in the chat has its result.
        Model.checkValid(agent.chat().messages());
    }

    @Test
    void aTimeBudgetAlreadySpentStopsBeforeTheFirstCall() {
        Model model = new Model(n -> Model.answer("never"));
        Agent agent = Agent.builder("worker").completer(model)
                .contextPolicy(ContextPolicy.builder().strategies(ContextStrategy.timeBudget(Duration.ofNanos(1))).build()).build();

        assertThatThrownBy(() -> agent.run("go")).isInstanceOf(BudgetExceededException.class)
                .hasMessageStartingWith("agent 'worker' ran out of its time budget: used ");
        assertThat(model.calls).isEmpty();
    }

    // ------------------------------------------------------------------ tool scope

    @Test
    void scopedOutToolsAreNotOfferedAndACallToOneIsRefused() {
        AtomicInteger ran = new AtomicInteger();
        ToolBox tools = ToolBox.of(
                Tool.of("read_file", "Read", "{\"type\":\"object\"}", (in, ctx) -> ToolOutput.text("content")),
                Tool.of("delete_file", "Delete", "{\"type\":\"object\"}", (in, ctx) -> {
                    ran.incrementAndGet();
                    return ToolOutput.text("deleted");
                }));
        Model model = new Model(n -> n == 1 ? Model.call("call_1", "delete_file", "{}") : Model.answer("done"));
        Agent agent = Agent.builder("worker").completer(model).toolboxes(tools)
                .contextPolicy(ContextPolicy.builder().strategies(ContextStrategy.denyTools("delete_*")).build()).build();

        agent.run("go");

        assertThat(model.calls.getFirst().tools()).extracting(d -> d.name()).containsExactly("read_file");
        assertThat(ran).hasValue(0);
        assertThat(agent.chat().get(3).toolResults().getFirst().isError()).isTrue();
    }

    // ------------------------------------------------------------------ accounting

    @Test
    void theContextIsTheReportedCountOfTheLastCallPlusTheEstimateOfWhatWasAppended() {
        Model model = new Model(n -> n == 1 ? Model.call("call_1", "fetch", "{\"page\":1}") : Model.answer("done"),
                Usage.of(1_000, 20), "gpt-4o-mini-2024-07-18");
        List<AgentEvent> events = new CopyOnWriteArrayList<>();
        Agent agent = Agent.builder("worker").completer(model).toolboxes(fetch(100)).listener(events::add)
                .contextPolicy(ContextPolicy.builder().strategies(ContextStrategy.trimToolResults(5, 1_000)).build()).build();

        agent.run("go");

        TokenEstimator estimate = TokenEstimator.heuristic();
        List<AgentEvent.ContextMeasured> measured = events.stream().filter(AgentEvent.ContextMeasured.class::isInstance)
                .map(AgentEvent.ContextMeasured.class::cast).toList();
        assertThat(measured.get(0).tokens()).isEqualTo(estimate.request(model.calls.get(0)));
        assertThat(measured.get(0).window()).isZero();
        List<Message> chat = agent.chat().messages();
        assertThat(measured.get(1).tokens()).isEqualTo(1_000 + estimate.message(chat.get(2)) + estimate.message(chat.get(3)));
        assertThat(measured.get(1).window()).isEqualTo(128_000);
    }

    @ParameterizedTest(name = "input tokens reported: {0}")
    @ValueSource(longs = {0, 1, 150})
    void aServerThatUnderReportsTheContextCannotStopCompaction(long reportedInput) {
        Model model = new Model(n -> n <= 12 ? Model.call("call_" + n, "fetch", "{\"page\":" + n + "}") : Model.answer("done"),
                Usage.of(reportedInput, 10), "local-model");
        List<AgentEvent> events = new CopyOnWriteArrayList<>();
        Agent agent = Agent.builder("worker").completer(model).toolboxes(fetch(400)).maxIterations(50)
                .listener(events::add)
                .contextPolicy(ContextPolicy.builder().window(600).strategies(ContextStrategy.compaction(0.6)).build()).build();
        List<LogCapture.Line> lines;
        try (LogCapture logs = LogCapture.start()) {
            agent.run("go");
            lines = logs.lines();
        }

        assertThat(model.summaries).as("compaction ran").isNotEmpty();
        TokenEstimator estimate = TokenEstimator.heuristic();
        for (ModelRequest request : model.calls) {
            assertThat(estimate.request(request)).as("every request the model got").isLessThan(600);
        }
        for (AgentEvent e : events) {
            if (e instanceof AgentEvent.ContextMeasured m) {
                assertThat(m.tokens()).isLessThan(600);
            }
        }
        List<String> distrust = lines.stream().map(LogCapture.Line::message)
                .filter(m -> m.contains("counting the context by the estimate")).toList();
        assertThat(distrust).as("logged once").hasSize(1);
        assertThat(distrust.getFirst()).startsWith("agent 'worker': the completer reported "
                + (reportedInput > 0 ? String.valueOf(reportedInput) : "no") + " input tokens for a request estimated at ");
        assertThat(lines.stream().filter(l -> l.message().equals(distrust.getFirst())).findFirst().orElseThrow().level())
                .isEqualTo(org.slf4j.event.Level.DEBUG);
    }

    // ------------------------------------------------------------------ validation

    @Test
    void badSettingsAreRefusedNamingTheField() {
        assertThatThrownBy(() -> ContextStrategy.compaction(1.5, 0.3, null, null))
                .hasMessage("Compaction threshold must be above 0 and at most 1, was 1.5");
        assertThatThrownBy(() -> ContextStrategy.compaction(0.5, 0.6, null, null))
                .hasMessage("Compaction keep_recent must be above 0 and below threshold (0.5), was 0.6");
        assertThatThrownBy(() -> ContextStrategy.slidingWindow(0, 1, true, null, "x")).hasMessage("SlidingWindow keep_turns must be at least 1, was 0");
        assertThatThrownBy(() -> ContextStrategy.trimToolResults(-1, 10)).hasMessage("ToolResultTrimming keep_recent must not be negative, was -1");
        assertThatThrownBy(() -> ContextStrategy.offload(1_000, 10, 1_000, null))
                .hasMessage("Offload page_chars must be at least 1 and below min_chars (1000), was 1000");
        assertThatThrownBy(() -> ContextStrategy.loopDetection(1)).hasMessage("LoopDetection repeats must be at least 2, was 1");
        assertThatThrownBy(() -> ContextStrategy.failureReflection(0)).hasMessage("FailureReflection failures must be at least 1, was 0");
        assertThatThrownBy(() -> ContextStrategy.budget(0, null, 0.8)).hasMessage("Budget needs max_tokens or max_time");
        assertThatThrownBy(() -> ContextStrategy.budget(10, null, 1)).hasMessage("Budget warn_at must be above 0 and below 1, was 1.0");
        assertThatThrownBy(() -> ContextStrategy.denyTools("*")).hasMessage("ToolScope deny[0] must be a tool name or a prefix ending in "
                + "'*' (deny '*' would offer nothing), was '*'");
        assertThatThrownBy(() -> ContextPolicy.builder().window(0)).hasMessage("ContextPolicy window must be at least 1 token, was 0");
        ToolBox clash = ToolBox.of(Tool.of("recall", "Mine", "{\"type\":\"object\"}", (in, ctx) -> ToolOutput.text("")));
        assertThatThrownBy(() -> Agent.builder("a").completer(r -> null).toolboxes(clash)
                .contextPolicy(ContextPolicy.builder().strategies(ContextStrategy.offload(1_000)).build()).build())
                .hasMessage("toolbox 1 of agent 'a' holds a tool named 'recall', which the context strategy 'offload' offers; "
                        + "rename the tool");
    }
}
