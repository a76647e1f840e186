package dev.shelly.examples;

import static dev.shelly.examples.ChatCompletionsFake.call;
import static dev.shelly.examples.ChatCompletionsFake.text;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import mockwebserver3.MockWebServer;
import mockwebserver3.junit5.StartStop;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;

/** The examples with {@code GEMINI_API_KEY} set: they choose Gemini and speak its wire format. */
@Timeout(60)
class GeminiExamplesTest {
    private static final String KEY = "gemini-test-key-0123456789";

    @StartStop
    private final MockWebServer server = new MockWebServer();

    private Map<String, String> env() {
        return Map.of("GEMINI_API_KEY", KEY, "GEMINI_BASE_URL", server.url("/").toString());
    }

    @Test
    void toolsCallsAFunctionAndSendsItsResultBackUnderTheFunctionsName() {
        GeminiFake fake = new GeminiFake("gemini-2.5-flash", KEY, body -> body.path("contents").size() > 1
                ? text("It is 18°C with light rain in Paris.")
                : call("get_weather", "{\"city\":\"Paris\"}"));
        server.setDispatcher(fake);

        Runs.Result r = Runs.run(env(), "tools", "What's the weather in Paris?");

        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).doesNotContain(KEY);
        assertThat(r.lines()).containsExactly(
                "[model: gemini gemini-2.5-flash at " + server.url("/") + "]",
                "> What's the weather in Paris?",
                "  → get_weather {\"city\":\"Paris\"}",
                "  ← get_weather: 18°C with light rain",
                "It is 18°C with light rain in Paris.",
                "[usage: 200 input and 20 output tokens in 2 model calls]");
        assertThat(fake.paths()).containsOnly("/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse");
        JsonNode second = fake.bodies().get(1);
        assertThat(second.path("contents").get(1)).isEqualTo(ChatCompletionsFake.JSON.readTree("""
                {"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris"}}}]}"""));
        assertThat(second.path("contents").get(2)).isEqualTo(ChatCompletionsFake.JSON.readTree("""
                {"role":"user","parts":[{"functionResponse":{"name":"get_weather",
                  "response":{"output":"18°C with light rain"}}}]}"""));
    }

    @Test
    void everyExampleRunsOnGeminiWithItsAgentAndTools() {
        Map<String, List<String>> expected = Map.of(
                "tools", List.of("weather-bot", "get_weather"),
                "delegation", List.of("orchestrator", "list_agents", "delegate"),
                "skills", List.of("tech-lead", "read_skill_file", "load_skill"),
                "concurrent", List.of("lead", "list_agents", "delegate"),
                "middleware", List.of("assistant", "lookup_customer"),
                "state", List.of("coordinator", "list_agents", "delegate"),
                "mcp", List.of("file-agent", "list_files", "read_file"),
                "chat", List.of("assistant", "list_agents", "delegate"));
        for (Example example : Examples.all()) {
            if (!expected.containsKey(example.name())) {
                continue;   // workflows, tasks and triage need scripted answers: the Chat Completions fakes cover them
            }
            GeminiFake fake = new GeminiFake("gemini-2.5-flash", KEY, body -> text("Done."));
            server.setDispatcher(fake);

            Runs.Result r = Runs.run(env(), example.name());

            assertThat(r.exit()).as("%s exit code; stderr: %s", example.name(), r.err()).isZero();
            assertThat(r.err()).as(example.name()).isEmpty();
            assertThat(r.lines().getFirst()).isEqualTo("[model: gemini gemini-2.5-flash at " + server.url("/") + "]");
            assertThat(r.lines()).as(example.name()).contains("Done.")
                    .endsWith("[usage: 100 input and 10 output tokens in 1 model call]");
            List<String> agentAndTools = expected.get(example.name());
            JsonNode body = fake.bodies().getFirst();
            assertThat(GeminiFake.systemInstruction(body)).as(example.name())
                    .startsWith("You are " + agentAndTools.getFirst() + ".");
            assertThat(body.at("/contents/0/parts/0/text").asString()).as(example.name()).isEqualTo(example.defaultPrompt());
            assertThat(GeminiFake.functionNames(body)).as(example.name())
                    .isEqualTo(agentAndTools.subList(1, agentAndTools.size()));
        }
    }
}
