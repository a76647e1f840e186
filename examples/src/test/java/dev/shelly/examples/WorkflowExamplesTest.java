package dev.shelly.examples;

import static dev.shelly.examples.ChatCompletionsFake.call;
import static dev.shelly.examples.ChatCompletionsFake.text;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;
import mockwebserver3.MockWebServer;
import mockwebserver3.junit5.StartStop;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;

/**
 * The workflow examples (teams, hand-offs, nesting), run as the jar runs them: against their
 * scripted models, and against a fake Chat Completions endpoint to see what goes over the wire.
 */
@Timeout(60)
class WorkflowExamplesTest {
    /** The examples of this class. */
    static final Set<String> WORKFLOWS = Set.of("pipeline", "parallel", "llm-team", "support", "nested");

    private static final Map<String, String> NO_PROVIDER = Map.of("HOME", "/nowhere");

    @StartStop
    private final MockWebServer server = new MockWebServer();

    private static Runs.Result scripted(String example) {
        Runs.Result r = Runs.run(NO_PROVIDER, example);
        assertThat(r.err()).as("stderr of %s", example).isEmpty();
        assertThat(r.exit()).as("exit code of %s; output:%n%s", example, r.out()).isZero();
        assertThat(r.lines().getFirst()).isEqualTo(ExampleModels.SCRIPTED_BANNER);
        return r;
    }

    private Runs.Result overTheWire(ChatCompletionsFake fake, String example) {
        server.setDispatcher(fake);
        return Runs.run(Map.of("OPENAI_BASE_URL", server.url("/v1").toString()), example);
    }

    private static JsonNode json(String text) {
        return ChatCompletionsFake.JSON.readTree(text);
    }

    private static JsonNode bodyOf(ChatCompletionsFake fake, String agent) {
        return fake.bodies().stream().filter(b -> ChatCompletionsFake.systemPrompt(b).startsWith("You are " + agent + "."))
                .findFirst().orElseThrow(() -> new AssertionError("no request of " + agent + " in " + fake.bodies()));
    }

    // ------------------------------------------------------------------ scripted

    @Test
    void pipelineRunsTheResearcherThenTheWriter() {
        Runs.Result r = scripted("pipeline");

        assertThat(r.lines()).containsSubsequence(
                "[pipeline] step 1: researcher",
                "    [researcher] → search_notes {\"query\":\"virtual threads agents waiting\"}",
                "[pipeline] step 2: writer",
                "[pipeline] done");
        assertThat(r.lines()).anyMatch(l -> l.startsWith("  ← researcher: Findings: - AI agents spend most"));
        assertThat(r.lines()).anyMatch(l -> l.startsWith("  ← writer: Java's virtual threads, final since Java 21"));
        assertThat(r.lines().getLast()).startsWith("Java's virtual threads, final since Java 21,")
                .endsWith("every tool call can simply have a thread of its own.");
    }

    @Test
    void parallelResearchRunsBothAnalystsAtOnceAndKeepsTheirOrderForTheWriter() {
        Runs.Result r = scripted("parallel");

        assertThat(r.lines()).containsSubsequence(
                "[parallel-research] step 1: us-analyst + eu-analyst, at the same time",
                "[parallel-research] step 2: writer",
                "[parallel-research] done",
                "Comparison:",
                "- United States: no single federal AI law; executive orders, agency guidance and state laws (such as "
                        + "Colorado's) set the rules.",
                "- European Union: the AI Act sorts systems by risk, bans a few uses outright, and phases in obligations "
                        + "from 2025 to 2027.",
                "[concurrency] at most 2 analysts were at work at the same time");
        assertThat(r.lines()).contains("    [us-analyst] → regional_notes {\"region\":\"United States\"}",
                "    [eu-analyst] → regional_notes {\"region\":\"European Union\"}");
    }

    @Test
    void llmTeamFollowsTheCoordinatorsDecisions() {
        Runs.Result r = scripted("llm-team");

        assertThat(r.lines()).filteredOn(l -> l.startsWith("[smart-team]")).containsExactly(
                "[smart-team] step 1: researcher",
                "[smart-team] step 2: writer",
                "[smart-team] step 3: reviewer",
                "[smart-team] step 4: writer",
                "[smart-team] done");
        assertThat(r.lines()).contains(
                "  ← reviewer: Accurate and clear. One fix: say that virtual threads are final since Java 21.");
        assertThat(r.lines().getLast()).isEqualTo("AI agents spend most of their time waiting on models and tools. "
                + "Java's virtual threads, final since Java 21, make that waiting almost free, so every agent and tool "
                + "call can have a thread of its own.");
    }

    @Test
    void supportPassesTheCustomerFromDeskToDesk() {
        Runs.Result r = scripted("support");

        assertThat(r.lines()).containsExactly(
                ExampleModels.SCRIPTED_BANNER,
                "> Please move my flight on booking BK-1042 to March 7, and my hotel stay to match.",
                "[support] triage:",
                "I'll pass you to our flights desk first.",
                "  → transfer_to_flights",
                "  ← transfer_to_flights: Transferred the conversation to 'flights'; flights answers next.",
                "[support] handoff 1: triage → flights",
                "[support] flights:",
                "  → change_flight {\"booking\":\"BK-1042\",\"date\":\"March 7\"}",
                "  ← change_flight: BK-1042: flight LH1172 Frankfurt → Lisbon moved to March 7, 09:40",
                "Your flight now leaves on March 7 at 09:40. Hotels will move your stay.",
                "  → transfer_to_hotels",
                "  ← transfer_to_hotels: Transferred the conversation to 'hotels'; hotels answers next.",
                "[support] handoff 2: flights → hotels",
                "[support] hotels:",
                "  → change_hotel {\"booking\":\"BK-1042\",\"checkIn\":\"March 7\"}",
                "  ← change_hotel: BK-1042: Hotel Avenida, Lisbon, 3 nights from March 7",
                "All done: you fly to Lisbon on March 7 at 09:40, and Hotel Avenida expects you that evening for 3 "
                        + "nights.");
    }

    @Test
    void nestedTeamsAnswerThroughTheTool() {
        Runs.Result r = scripted("nested");

        assertThat(r.lines()).containsSubsequence(
                "I'll ask the research department.",
                "  → research_department {\"task\":\"Write a short report on Java's virtual threads: where they came "
                        + "from and why they suit AI agents.\"}",
                "  [department] step 1: research-team",
                "    [research-team] step 1: history-researcher + performance-researcher, at the same time",
                "    [research-team] step 2: synthesizer",
                "    [research-team] done",
                "  [department] step 2: writer",
                "  [department] done");
        assertThat(r.lines()).contains(
                "        [history-researcher] → search_notes {\"query\":\"Java 21 JEP preview final\"}",
                "        [performance-researcher] → search_notes {\"query\":\"blocks carrier waiting agents\"}");
        assertThat(r.lines()).anyMatch(l -> l.startsWith("      ← synthesizer: Findings: - Virtual threads became a "
                + "final feature in Java 21"));
        assertThat(r.lines()).anyMatch(l -> l.startsWith("    ← research-team: Findings:"));
        assertThat(r.lines()).anyMatch(l -> l.startsWith("  ← research_department: Report: Java's virtual threads"));
        assertThat(r.lines().getLast()).startsWith("Report: Java's virtual threads arrived as a preview in Java 19")
                .endsWith("can simply have a virtual thread of its own.");
    }

    // ------------------------------------------------------------------ over the wire

    @Test
    void pipelineOverTheWireGivesTheWriterTheFindingsAsAUserMessage() {
        ChatCompletionsFake fake = new ChatCompletionsFake(body -> {
            if (ChatCompletionsFake.systemPrompt(body).startsWith("You are researcher.")) {
                return ChatCompletionsFake.hasToolResults(body) ? text("Findings: waiting is cheap.")
                        : call("search_notes", "{\"query\":\"virtual threads\"}");
            }
            return text("Virtual threads make waiting cheap.");
        });

        Runs.Result r = overTheWire(fake, "pipeline");

        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.lines()).containsSubsequence("  ← researcher: Findings: waiting is cheap.",
                "  ← writer: Virtual threads make waiting cheap.", "Virtual threads make waiting cheap.",
                "[usage: 300 input and 30 output tokens in 3 model calls]");
        JsonNode writer = bodyOf(fake, "writer");
        assertThat(writer.get("messages")).hasSize(3);
        assertThat(writer.at("/messages/1")).isEqualTo(json("{\"role\":\"user\",\"content\":"
                + ChatCompletionsFake.JSON.writeValueAsString(new PipelineExample().defaultPrompt()) + "}"));
        assertThat(writer.at("/messages/2")).isEqualTo(json("{\"role\":\"user\",\"content\":\"Findings: waiting is cheap.\"}"));
        assertThat(writer.has("tools")).isFalse();
    }

    @Test
    void theLlmCoordinatorSendsItsPromptAndTheConversationWithoutTools() {
        ChatCompletionsFake fake = new ChatCompletionsFake(body -> {
            String system = ChatCompletionsFake.systemPrompt(body);
            if (system.startsWith("You are a team coordinator.")) {
                return text(body.toString().contains("[writer]") ? "{\"members\": [], \"done\": true}"
                        : "{\"members\": [\"writer\"], \"done\": false}");
            }
            return text("A draft.");
        });

        Runs.Result r = overTheWire(fake, "llm-team");

        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.lines()).containsSubsequence("[smart-team] step 1: writer", "  ← writer: A draft.",
                "[smart-team] done", "A draft.");
        JsonNode first = fake.bodies().getFirst();
        assertThat(first.has("tools")).isFalse();
        assertThat(first.at("/messages/0/content").asString()).isEqualTo("""
                You are a team coordinator. Based on the conversation, decide which team member(s) should act next.

                Team members:
                - "researcher" (role: research) — Searches the research notes for information
                - "writer" (role: write) — Writes and revises short texts from the findings
                - "reviewer" (role: review) — Checks a draft for accuracy and clarity

                Respond with ONLY a JSON object (no markdown, no explanation):
                {"members": ["researcher"], "done": false}

                Name several members to have them work at the same time. When the work is complete, respond:
                {"members": [], "done": true}""");
        assertThat(first.at("/messages/1/content").asString()).isEqualTo("Recent conversation:\n[user] "
                + new LlmTeamExample().defaultPrompt() + "\n\nWho should act next?");
    }

    @Test
    void aCoordinatorModelThatCannotAnswerInJsonFailsTheRunInOneLine() {
        ChatCompletionsFake fake = new ChatCompletionsFake(body -> text("The researcher should start."));

        Runs.Result r = overTheWire(fake, "llm-team");

        assertThat(r.exit()).isEqualTo(Main.FAILED);
        assertThat(r.errLines()).hasSize(1);
        assertThat(r.errLines().getFirst()).startsWith("error: the LLM coordinator of team 'smart-team' gave no valid "
                + "answer at step 0, after a retry: the answer is not valid JSON (").endsWith(
                "; its answer was 'The researcher should start.'");
        assertThat(fake.bodies()).hasSize(2);
        assertThat(fake.bodies().get(1).at("/messages/3/content").asString())
                .startsWith("Your answer was not valid: the answer is not valid JSON (");
        assertThat(fake.bodies()).as("every step asks for the decision as structured output")
                .allSatisfy(body -> {
                    assertThat(body.at("/response_format/type").asString()).isEqualTo("json_schema");
                    assertThat(body.at("/response_format/json_schema/name").asString()).isEqualTo("Decision");
                    assertThat(body.at("/response_format/json_schema/strict").asBoolean()).isTrue();
                    assertThat(body.at("/response_format/json_schema/schema/required").toString())
                            .isEqualTo("[\"members\",\"done\"]");
                    assertThat(body.at("/response_format/json_schema/schema/properties/members/items/enum").toString())
                            .isEqualTo("[\"researcher\",\"writer\",\"reviewer\"]");
                });
    }

    @Test
    void supportOverTheWireGivesEachDeskItsOwnPromptOverTheSharedConversation() {
        ChatCompletionsFake fake = new ChatCompletionsFake(body -> ChatCompletionsFake.systemPrompt(body)
                .startsWith("You are triage.") ? call("transfer_to_flights", "{}") : text("Your flight is moved."));

        Runs.Result r = overTheWire(fake, "support");

        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.lines()).containsSubsequence("[support] triage:", "  → transfer_to_flights",
                "[support] handoff 1: triage → flights", "[support] flights:", "Your flight is moved.");
        JsonNode triage = bodyOf(fake, "triage");
        assertThat(ChatCompletionsFake.toolNames(triage)).containsExactly("transfer_to_flights", "transfer_to_hotels");
        JsonNode flights = bodyOf(fake, "flights");
        assertThat(ChatCompletionsFake.systemPrompt(flights)).startsWith("You are flights. Changes flight bookings");
        List<String> roles = flights.get("messages").valueStream().map(m -> m.get("role").asString()).toList();
        assertThat(roles).containsExactly("system", "system", "user", "assistant", "tool");
        assertThat(flights.at("/messages/1/content").asString())
                .isEqualTo("You work at the support desk of a travel agency. Be brief and friendly.");
        assertThat(flights.at("/messages/3/tool_calls/0/function/name").asString()).isEqualTo("transfer_to_flights");
        assertThat(flights.at("/messages/4/content").asString())
                .isEqualTo("Transferred the conversation to 'flights'; flights answers next.");
        assertThat(ChatCompletionsFake.toolNames(flights))
                .containsExactly("transfer_to_triage", "transfer_to_hotels", "change_flight");
    }
}
