package dev.shelly.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Every example, run as the jar runs it, against its scripted model: no keys, no network. */
@Timeout(60)
class ScriptedExamplesTest {
    private static final Map<String, String> NO_PROVIDER = Map.of("HOME", "/nowhere");

    private static Runs.Result run(String example, String... prompt) {
        String[] args = new String[prompt.length + 1];
        args[0] = example;
        System.arraycopy(prompt, 0, args, 1, prompt.length);
        Runs.Result r = Runs.run(NO_PROVIDER, args);
        assertThat(r.err()).as("stderr of %s", example).isEmpty();
        assertThat(r.exit()).as("exit code of %s; output:%n%s", example, r.out()).isZero();
        assertThat(r.lines().getFirst()).isEqualTo(ExampleModels.SCRIPTED_BANNER);
        return r;
    }

    @Test
    void tools() {
        Runs.Result r = run("tools");

        assertThat(r.lines()).hasSize(8);
        assertThat(r.lines().subList(0, 3)).containsExactly(
                ExampleModels.SCRIPTED_BANNER,
                "> What's the weather in Paris and in Tokyo?",
                "Let me look up both cities.");
        // The two calls run concurrently: their lines come in either order, each call before its result.
        assertThat(r.lines().subList(3, 7)).containsExactlyInAnyOrder(
                "  → get_weather {\"city\":\"Paris\"}",
                "  → get_weather {\"city\":\"Tokyo\"}",
                "  ← get_weather: 18°C with light rain",
                "  ← get_weather: 24°C and sunny");
        assertThat(r.lines()).containsSubsequence("  → get_weather {\"city\":\"Paris\"}", "  ← get_weather: 18°C with light rain");
        assertThat(r.lines()).containsSubsequence("  → get_weather {\"city\":\"Tokyo\"}", "  ← get_weather: 24°C and sunny");
        assertThat(r.lines().getLast()).isEqualTo(
                "Right now it is 18°C with light rain in Paris and 24°C and sunny in Tokyo.");
    }

    @Test
    void triageAnswersWithARecordWhileHooksGuardTheToolsAndTheRunReportsItsCost() {
        Runs.Result r = run("triage");

        assertThat(r.lines()).as("the refused call is shown as a call, then its refusal").containsSubsequence(
                "  → refund_order {\"order\":\"A-1001\"}",
                "  ← refund_order failed: tool 'refund_order' was not run: refunds need a human's approval; say so in"
                        + " the triage");
        assertThat(r.lines()).contains(
                "  ← lookup_customer: Ann Lee, tenant acme, plan Pro, 2 open orders (A-1001, A-1002)");
        assertThat(r.lines()).as("the admin tool is hidden from the model by the model-call hook")
                .anyMatch(l -> l.contains("(tools offered: lookup_customer, refund_order)"));
        assertThat(r.lines()).containsSubsequence("[triage: billing, priority 2, for billing-team]",
                "[run: 3580 tokens, $0.00996 (scripted model: not billed; what these tokens would cost)]");
    }

    @Test
    void longRunKeepsEveryRequestUnderItsSmallWindowForOverAHundredIterations() {
        Runs.Result r = run("long-run");

        assertThat(r.lines()).containsExactly(
                ExampleModels.SCRIPTED_BANNER,
                "> Read inventory records 1 to 120 with read_record, one at a time, and report their total stock value.",
                "[iteration 20: 3197 of 8000 tokens]",
                "[iteration 40: 5444 of 8000 tokens]",
                "[iteration 41: offloaded 1 large result, 6432 -> 5328 tokens]",
                "[iteration 45: compacted 61 messages, 6006 -> 2657 tokens]",
                "[iteration 60: 4342 of 8000 tokens]",
                "[note to the model: You have called read_record with the same arguments 3 times in a row ({\"number\":60})."
                        + " Its result will not change. Use what you already have, try a different approach, or give your"
                        + " final answer.]",
                "[iteration 75: compacted 62 messages, 6075 -> 2592 tokens]",
                "[iteration 80: 3155 of 8000 tokens]",
                "[iteration 83: offloaded 1 large result, 4368 -> 3265 tokens]",
                "[iteration 100: 5403 of 8000 tokens]",
                "[iteration 106: compacted 61 messages, 6078 -> 2657 tokens]",
                "[iteration 120: 4226 of 8000 tokens]",
                "[iteration 123: offloaded 1 large result, 5436 -> 4330 tokens]",
                "I read all 120 records. Their total stock value is $79820.",
                "[123 model calls; largest request 5965 of 8000 tokens; 3 compactions; the chat holds 251 messages, 4 of them"
                        + " summaries and notes]");
    }

    @Test
    void theCoderWorkspaceIsRemovedAtTheEndUnlessAskedToKeepIt() throws Exception {
        Runs.Result kept = Runs.run(Map.of("HOME", "/nowhere", "SHELLY_KEEP_FILES", "1"), "coder");
        assertThat(kept.exit()).isZero();
        String last = kept.lines().getLast();
        Matcher m = Pattern.compile("\\[files kept in (.+shelly-coder-\\d+)]").matcher(last);
        assertThat(m.matches()).as("the last line names the kept folder: %s", last).isTrue();
        Path folder = Path.of(m.group(1));
        assertThat(folder.resolve("Calc.java")).as("the fixed project is still there").content().contains("return a + b;");

        ExampleRun run = new ExampleRun("", ExampleModels.select(NO_PROVIDER),
                new ConsoleView(new PrintStream(OutputStream.nullOutputStream())));
        Path scratch = run.workFolder("shelly-coder-");
        Files.writeString(Files.createDirectories(scratch.resolve("sub")).resolve("f.txt"), "x");
        run.cleanUp();
        assertThat(scratch).as("removed by default, with what is inside").doesNotExist();
        try (Stream<Path> walk = Files.walk(folder)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
        assertThat(run("coder").lines()).noneMatch(l -> l.startsWith("[files kept in"));
    }

    @Test
    void coderReadsFixesAndTestsTheSampleProjectInsideItsWorkspace() {
        Runs.Result r = run("coder");

        assertThat(r.lines()).containsSubsequence(
                "[workspace: a copy of the sample project; commands allowed: java]",
                "  → fs_list",
                "  ← fs_list: Calc.java (760 bytes) README.md (88 bytes)",
                "  → run_command {\"program\":\"java\",\"args\":[\"Calc.java\"]}",
                "  ← run_command failed: exit code 1 FAIL add(2, 3): got -1, want 5 1 check(s) failed",
                "  → fs_read {\"path\":\"Calc.java\",\"start_line\":5,\"end_line\":7}",
                "  ← fs_read: 5 static int add(int a, int b) { 6 return a - b; 7 }",
                "  → fs_edit {\"path\":\"Calc.java\",\"old_text\":\"return a - b;\",\"new_text\":\"return a + b;\"}",
                "  ← fs_edit: edited Calc.java: replaced 1 occurrence at line 6",
                "  → run_command {\"program\":\"java\",\"args\":[\"Calc.java\"]}",
                "  ← run_command: exit code 0 all checks passed",
                "Fixed add in Calc.java: it subtracted instead of adding; all checks pass now.");
    }

    @Test
    void thePromptOnTheCommandLineReplacesTheDefaultTask() {
        Runs.Result r = run("tools", "How", "warm", "is", "Oslo?");

        assertThat(r.lines().get(1)).isEqualTo("> How warm is Oslo?");
    }

    @Test
    void delegation() {
        Runs.Result r = run("delegation");

        assertThat(r.lines()).containsSubsequence(
                "  → list_agents",
                "  → delegate researcher: Find the key facts about Java virtual threads and why they suit AI agents.",
                "    [researcher] → search_notes {\"query\":\"virtual threads agents waiting\"}",
                "  → delegate writer: Write a three-sentence summary of Java virtual threads for developers.");
        assertThat(r.lines()).anyMatch(l -> l.matches("    \\[writer] done in \\d+\\.\\d s"));
        assertThat(r.lines()).anyMatch(l -> l.startsWith("  ← list_agents: [{\"name\":\"researcher\""));
        assertThat(r.lines()).anyMatch(l -> l.startsWith("  ← researcher: Findings: - AI agents spend most"));
        assertThat(r.lines().getLast()).startsWith("Java's virtual threads, final since Java 21,")
                .endsWith("every tool call can simply have a thread of its own.");
    }

    @Test
    void skillsAreUnpackedLoadedFollowedAndCleanedUp() {
        Runs.Result r = run("skills");

        assertThat(r.lines().subList(1, 8)).allMatch(l -> l.startsWith("> "));
        assertThat(r.lines()).containsSubsequence(
                "This is a code review; I'll follow my code-review skill.",
                "  → load_skill {\"name\":\"code-review\"}",
                "  → read_skill_file {\"skill\":\"code-review\",\"file\":\"checklist.md\"}",
                "request changes",
                "- Inputs: the int sum overflows for large values; add them up in a long.");
        assertThat(r.lines()).anyMatch(l -> l.startsWith("  ← load_skill: # Code review 1. Read `checklist.md`"));
        assertThat(r.lines()).anyMatch(l -> l.startsWith("  ← read_skill_file: # Review checklist - Inputs:"));
        Matcher unpacked = Pattern.compile("\\[skills] code-review, commit-message \\(unpacked from the jar into (.+)\\)")
                .matcher(r.out());
        assertThat(unpacked.find()).as("the skills line in%n%s", r.out()).isTrue();
        assertThat(Files.exists(Path.of(unpacked.group(1)))).as("the temporary skills folder is deleted").isFalse();
    }

    @Test
    void concurrentAnalystsWorkAtTheSameTime() {
        Runs.Result r = run("concurrent");

        assertThat(r.lines()).containsSubsequence(
                "  → delegate analyst: Summarise how AI regulation is developing in the United States.",
                "  → delegate analyst: Summarise how AI regulation is developing in the European Union.",
                "  → delegate analyst: Summarise how AI regulation is developing in China.");
        assertThat(r.lines()).filteredOn(l -> l.startsWith("    [analyst] → regional_notes")).hasSize(3);
        assertThat(r.lines()).filteredOn(l -> l.startsWith("    [analyst] done in")).hasSize(3);
        assertThat(r.lines()).containsSubsequence(
                "Comparison:",
                "- United States: no single federal AI law; executive orders, agency guidance and state laws (such as "
                        + "Colorado's) set the rules.",
                "- European Union: the AI Act sorts systems by risk, bans a few uses outright, and phases in obligations "
                        + "from 2025 to 2027.",
                "- China: targeted rules for recommendation algorithms, deep synthesis and generative AI services, with "
                        + "registration and content duties.",
                "[concurrency] at most 3 analysts were at work at the same time");
    }

    @Test
    void middlewareTimesTheRunAndTheGuardrailGetsASecondAnswer() {
        Runs.Result r = run("middleware");

        assertThat(r.lines()).containsSubsequence(
                "[timing] assistant starts",
                "  → lookup_customer {\"id\":\"C-1042\"}",
                "Hi Ada, thanks for your patience. Your export ticket is open. (Note: CONFIDENTIAL credit limit under review.)",
                "[guardrail] the answer above was rejected: it reveals information marked CONFIDENTIAL; asking once more",
                "Hi Ada, thanks for your patience: we are looking into the slow exports on your Pro plan and will update "
                        + "your ticket as soon as they are fixed.");
        assertThat(r.lines().getLast()).matches("\\[timing] assistant answered in \\d+\\.\\d s");
    }

    @Test
    void tasksArePlannedThenClaimedAndFinishedByTwoWorkersEachExactlyOnce() {
        Runs.Result r = run("tasks");

        // The planner's four tool calls run concurrently, so the ids come in any order.
        assertThat(r.lines()).filteredOn(l -> l.startsWith("Created task-")).singleElement()
                .satisfies(l -> assertThat(l).contains("task-1", "task-2", "task-3", "task-4"));
        assertThat(r.lines().stream().filter(l -> l.equals("  → tasks_claim")).count())
                .as("four claims that got a task and one empty claim per worker").isEqualTo(6);
        assertThat(r.lines()).filteredOn(l -> l.startsWith("  → tasks_update ")).hasSize(4);
        assertThat(r.lines()).filteredOn(l -> l.startsWith("  ← tasks_claim failed: no pending task to claim"))
                .hasSize(2);
        List<String> board = r.lines().stream().filter(l -> l.startsWith("[board] task-")).sorted().toList();
        assertThat(board).hasSize(4).allMatch(l -> l.matches("\\[board] task-\\d completed by worker-[12]: .+"));
        assertThat(r.lines().getLast()).isEqualTo("[board] 4 of 4 tasks completed");
    }

    @Test
    @Timeout(180)
    void redisTasksShareOneBoardBetweenThePlannerAndTwoWorkerProcesses() {
        Runs.Result r = run("redis-tasks");

        assertThat(r.lines()).anyMatch(l -> l.startsWith("[redis] started redis-server on port ")
                || l.startsWith("Created task-"));
        List<String> finished = r.lines().stream().filter(l -> l.startsWith("[worker p")).toList();
        assertThat(finished).hasSize(4).allMatch(l -> l.matches("\\[worker (p[12])] \\1-w[12] finished .+"));
        assertThat(r.lines()).filteredOn(l -> l.startsWith("[board] task-")).hasSize(4)
                .allMatch(l -> l.matches("\\[board] task-\\d completed by p[12]-w[12]: .+"));
        assertThat(r.lines().getLast()).isEqualTo("[board] 4 of 4 tasks completed");
    }

    @Test
    void stateTravelsThroughTheStore() {
        Runs.Result r = run("state");

        assertThat(r.lines()).containsSubsequence(
                "  → delegate researcher: Research Java virtual threads and store your findings under 'findings'.",
                "    [researcher] ← project_state_set: ok",
                "  ← researcher: Stored 3 findings under 'findings'.",
                "  → delegate writer: Write a short article from the findings in the store; store it under 'article'.",
                "    [writer] → project_state_get {\"key\":\"findings\"}",
                "    [writer] ← project_state_set: ok");
        List<String> tail = r.lines().subList(r.lines().size() - 3, r.lines().size());
        assertThat(tail.get(0)).startsWith("Java virtual threads in brief. Virtual threads are lightweight threads");
        assertThat(tail.get(1)).startsWith("[state] article = \"Java virtual threads in brief.");
        assertThat(tail.get(2)).startsWith("[state] findings = [\"Virtual threads are lightweight threads");
    }

    @Test
    void mcpToolsComeFromASubprocessThatIsGoneAfterwards() {
        Runs.Result r = run("mcp");

        Matcher started = Pattern.compile("\\[mcp] started shelly-demo-files 1\\.0\\.0 as process (\\d+); its tools: "
                + "list_files, read_file").matcher(r.out());
        assertThat(started.find()).as("the server line in%n%s", r.out()).isTrue();
        assertThat(r.lines()).containsSubsequence(
                "  → list_files",
                "  ← list_files: meeting-notes.md roadmap.md shopping.txt",
                "These files mention a deadline:",
                "- meeting-notes.md: \"Ship the 0.2 release; deadline: 14 March.\"",
                "- roadmap.md: \"0.3: sessions over HTTP; the design is due by the end of April (a hard deadline).\"");
        assertThat(r.lines()).filteredOn(l -> l.startsWith("  → read_file ")).hasSize(3);
        long pid = Long.parseLong(started.group(1));
        assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive)).as("the MCP server process").isEmpty();
    }

    @Test
    void approvalPausesForTheWriteAndASecondProcessApprovesIt() {
        Runs.Result r = run("approval");

        assertThat(r.err()).isEmpty();
        assertThat(r.exit()).isZero();
        assertThat(r.lines()).containsSubsequence(
                "> Note that I need to buy oat milk.",
                "[paused: call_2 — clerk wants to run write_note {\"text\":\"buy oat milk\"}]");
        assertThat(r.lines()).anySatisfy(l -> assertThat(l).matches(
                "\\[session \\d{8}-\\d{6}-[a-z2-7]{26} saved with the waiting call; this process lets it go]"));
        assertThat(r.lines()).anySatisfy(l -> assertThat(l).matches("\\[second process] resumed session \\S+; call_2 waits: "
                + "clerk wants to run write_note \\{\"text\":\"buy oat milk\"}"));
        assertThat(r.lines()).containsSubsequence("[second process] approved call_2",
                "[second process] Done. Before: no notes yet; now saved: buy oat milk",
                "[notes.txt] buy oat milk");
        assertThat(r.lines()).filteredOn(l -> l.startsWith("[notes.txt]")).hasSize(1);
        assertThat(r.lines()).as("the prompt is shown once").filteredOn(l -> l.startsWith("> ")).hasSize(1);
    }
}
