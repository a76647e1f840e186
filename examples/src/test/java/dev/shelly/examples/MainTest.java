package dev.shelly.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.chats.Message;
import dev.shelly.modeladapter.ModelException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The command line: listing, choosing, and failing in one line. */
class MainTest {

    @Test
    void listNamesEveryExampleWithItsDescription() {
        Runs.Result r = Runs.run(Map.of(), "list");

        assertThat(r.exit()).isZero();
        assertThat(r.err()).isEmpty();
        assertThat(r.lines()).containsExactly(
                "tools        one agent with a weather tool: the ReAct loop",
                "delegation   an orchestrator delegates to a researcher and a writer",
                "skills       an agent follows a code-review skill loaded from SKILL.md folders",
                "concurrent   one delegate call runs three analysts at the same time",
                "middleware   timing, timeout, recovery and an output guardrail around an agent",
                "state        a researcher and a writer share findings through a state store",
                "tasks        a planner creates tasks on a board; two workers claim and finish them at the same time",
                "redis-tasks  a planner and two worker processes share one task board on Redis",
                "mcp          an agent uses the tools of an MCP server it starts as a subprocess",
                "chat         a terminal chat over the engine: streamed replies, tools and delegations as they happen",
                "pipeline     a researcher, then a writer: a Team with the sequence coordinator",
                "parallel     two analysts at the same time, then a writer: role round-robin",
                "llm-team     a model decides who acts next: a Team with the LLM coordinator",
                "support      triage hands the customer to flights, then hotels: a Handoff group",
                "nested       a team inside a team, called by an agent as a tool",
                "triage       a ticket triaged into a record; hooks deny a tool and hide others, a run value reaches "
                        + "the tools, the run's cost",
                "long-run     120 tool calls in an 8k-token window: offload, trimming, compaction and a loop check keep "
                        + "every request under it",
                "approval     a tool call waits for approval; a second process resumes the paused session and approves it",
                "coder        a coding agent reads, fixes and tests a small bundled project inside its workspace",
                "console      a team's run tree, cost and approvals in a browser console; approve the post there");
    }

    @Test
    void withoutArgumentsItExplainsItself() {
        Runs.Result r = Runs.run(Map.of());

        assertThat(r.exit()).isZero();
        assertThat(r.out()).contains("usage: java -jar shelly-examples.jar list")
                .contains("java -jar shelly-examples.jar <example> [prompt]")
                .contains("tools        one agent with a weather tool")
                .contains("SHELLY_MODEL");
    }

    @Test
    void anUnknownExampleNamesTheKnownOnes() {
        Runs.Result r = Runs.run(Map.of(), "weather");

        assertThat(r.exit()).isEqualTo(Main.USAGE);
        assertThat(r.out()).isEmpty();
        assertThat(r.errLines()).containsExactly(
                "error: unknown example 'weather'; known examples: tools, delegation, skills, concurrent, middleware, "
                        + "state, tasks, redis-tasks, mcp, chat, pipeline, parallel, llm-team, support, nested, triage, long-run, approval, coder, console");
    }

    @Test
    void anEmptyPromptIsAUsageError() {
        Runs.Result r = Runs.run(Map.of(), "tools", " ");

        assertThat(r.exit()).isEqualTo(Main.USAGE);
        assertThat(r.errLines()).containsExactly(
                "error: the prompt is empty; leave it out to run the example's own task");
    }

    @Test
    void aMissingKeyIsOneLineBeforeAnythingRuns() {
        Runs.Result r = Runs.run(Map.of("SHELLY_PROVIDER", "grok"), "tools");

        assertThat(r.exit()).isEqualTo(Main.USAGE);
        assertThat(r.out()).isEmpty();
        assertThat(r.errLines()).containsExactly("error: SHELLY_PROVIDER is grok but XAI_API_KEY is not set");
    }

    @Test
    void anInvalidBaseUrlIsOneLineBeforeAnythingRuns() {
        Runs.Result r = Runs.run(Map.of("OPENAI_BASE_URL", "localhost:11434"), "tools");

        assertThat(r.exit()).isEqualTo(Main.USAGE);
        assertThat(r.errLines()).containsExactly(
                "error: openai-compatible: base URL 'localhost:11434' is not an http or https URL");
    }

    /** An example whose model fails as a provider would. */
    private static final class Failing implements Example {
        private final RuntimeException failure;

        Failing(RuntimeException failure) {
            this.failure = failure;
        }

        @Override
        public String name() {
            return "failing";
        }

        @Override
        public String description() {
            return "fails";
        }

        @Override
        public String defaultPrompt() {
            return "go";
        }

        @Override
        public Message run(ExampleRun run) {
            run.view().text("partial answer");
            throw failure;
        }
    }

    @Test
    void aFailedRunEndsTheOutputAndGivesOneLineWithoutStackTrace() {
        ModelException overloaded = ModelException.builder(ModelException.Kind.OVERLOADED).provider("anthropic")
                .status(529).providerMessage("Overloaded").build();
        Runs.Result r = Runs.run(List.of(new Failing(overloaded)), Map.of(), "failing");

        assertThat(r.exit()).isEqualTo(Main.FAILED);
        assertThat(r.lines()).containsExactly(ExampleModels.SCRIPTED_BANNER, "> go", "partial answer");
        assertThat(r.errLines()).containsExactly("error: anthropic is overloaded (HTTP 529): Overloaded; try again later");
    }

    @Test
    void shellyDebugAddsTheStackTrace() {
        Runs.Result r = Runs.run(List.of(new Failing(new IllegalStateException("wiring is wrong"))),
                Map.of("SHELLY_DEBUG", "1"), "failing");

        assertThat(r.exit()).isEqualTo(Main.FAILED);
        assertThat(r.errLines().getFirst()).isEqualTo("error: wiring is wrong");
        assertThat(r.err()).contains("java.lang.IllegalStateException: wiring is wrong", "\tat dev.shelly.examples.");
    }

    @Test
    void anUnexpectedFailureNamesItsTypeAndHowToSeeMore() {
        Runs.Result r = Runs.run(List.of(new Failing(new NullPointerException("x is null"))), Map.of(), "failing");

        assertThat(r.errLines()).containsExactly(
                "error: NullPointerException: x is null (set SHELLY_DEBUG=1 for the stack trace)");
    }
}
