package dev.shelly.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import dev.shelly.mcp.McpElicitation;
import dev.shelly.mcp.McpServerCall;
import dev.shelly.mcp.McpToolServer;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolOutput;
import mockwebserver3.MockWebServer;
import mockwebserver3.junit5.StartStop;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/** The terminal chat over the engine: scripted, from standard input, and from a project's .shelly folder. */
@Timeout(60)
class ChatExampleTest {
    @StartStop
    private final MockWebServer server = new MockWebServer();

    private static Runs.Result chat(Path start, Map<String, String> env, String input, String... prompt) {
        String[] args = new String[prompt.length + 1];
        args[0] = "chat";
        System.arraycopy(prompt, 0, args, 1, prompt.length);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
                PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            exit = Main.run(List.of(new ChatExample(start)), args, env, new BufferedReader(new StringReader(input)), o, e);
        }
        return new Runs.Result(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void withoutInputItAsksItsOwnQuestionAndShowsTheDelegation(@TempDir Path tmp) {
        Runs.Result r = chat(tmp, Map.of(), "");
        assertThat(r.err()).isEmpty();
        assertThat(r.exit()).isZero();
        assertThat(r.lines()).startsWith(ExampleModels.SCRIPTED_BANNER,
                "> What are virtual threads, and why do they suit AI agents?");
        assertThat(r.lines()).containsSubsequence(
                "  → delegate researcher: Find what the notes say about virtual threads and AI agents.",
                "    [researcher] → search_notes {\"query\":\"virtual threads agents\"}",
                "Here is what the research notes say:");
        assertThat(r.out()).doesNotContain("saved");
    }

    @Test
    void eachLineOfInputIsATurnOfOneSession(@TempDir Path tmp) {
        Runs.Result r = chat(tmp, Map.of(), "Tell me about virtual threads\n\nthanks!\n/exit\nnever read\n");
        assertThat(r.exit()).isZero();
        assertThat(r.lines()).containsSubsequence(
                "> Tell me about virtual threads",
                "Here is what the research notes say:",
                "> thanks!",
                "(scripted) You said: thanks!. Set a provider key to talk to a real model.");
        assertThat(r.out()).doesNotContain("never read");
    }

    @Test
    void aPromptOnTheCommandLineIsOneTurn(@TempDir Path tmp) {
        Runs.Result r = chat(tmp, Map.of(), "ignored\n", "What", "are", "virtual", "threads?");
        assertThat(r.exit()).isZero();
        assertThat(r.lines().get(1)).isEqualTo("> What are virtual threads?");
        assertThat(r.out()).doesNotContain("ignored");
    }

    @Test
    void inAProjectTheEngineComesFromShellyConfigAndTheSessionIsSaved(@TempDir Path tmp) throws Exception {
        ChatCompletionsFake fake = new ChatCompletionsFake(body -> ChatCompletionsFake.text("Hello from the project."));
        server.setDispatcher(fake);
        Path shelly = Files.createDirectories(tmp.resolve("project/.shelly"));
        Files.writeString(shelly.resolve("config.yaml"), """
                providers:
                  - name: local
                    kind: openai-compatible
                    base_url: %s
                    model: tiny
                agents:
                  - name: helper
                    description: Helps with the project
                """.formatted(server.url("/v1")));
        Files.writeString(shelly.resolve("about.md"), "This project sells tea.");
        Path src = Files.createDirectories(tmp.resolve("project/src"));

        Runs.Result r = chat(src, Map.of(), "hi\n");

        assertThat(r.err()).isEmpty();
        assertThat(r.exit()).isZero();
        assertThat(r.lines()).contains("[engine: " + shelly.resolve("config.yaml").toAbsolutePath() + "]", "> hi",
                "Hello from the project.");
        assertThat(r.lines()).anySatisfy(l -> assertThat(l).matches("\\[session \\d{8}-\\d{6}-[a-z2-7]{26} saved; the engine can resume it]"));
        try (var files = Files.list(shelly.resolve("sessions"))) {
            assertThat(files.filter(f -> f.getFileName().toString().endsWith(".json")).toList()).hasSize(1);
        }
        JsonNode body = fake.bodies().getFirst();
        assertThat(body.get("model").asString()).isEqualTo("tiny");
        assertThat(ChatCompletionsFake.systemPrompt(body)).isEqualTo(
                "You are helper. Helps with the project\n\n## Project Context\n\n### about.md\n\nThis project sells tea.");
    }

    @Test
    void aToolTheConfigMarksAskWaitsForYesNoOrAlways(@TempDir Path tmp) throws Exception {
        ChatCompletionsFake fake = new ChatCompletionsFake(body -> body.get("messages").get(body.get("messages").size() - 1)
                .get("role").asString().equals("tool")
                ? ChatCompletionsFake.text("Stored.")
                : ChatCompletionsFake.call("shared_state_set", "{\"key\":\"k\",\"value\":\"v\"}"));
        server.setDispatcher(fake);
        Path shelly = Files.createDirectories(tmp.resolve("project/.shelly"));
        Files.writeString(shelly.resolve("config.yaml"), """
                providers:
                  - name: local
                    kind: openai-compatible
                    base_url: %s
                    model: tiny
                agents:
                  - name: helper
                    toolboxes: [state]
                    approval:
                      ask: [shared_state_set]
                """.formatted(server.url("/v1")));

        Runs.Result r = chat(tmp.resolve("project"), Map.of(), "remember k\nn\nagain\na\nonce more\n");

        assertThat(r.err()).isEmpty();
        assertThat(r.exit()).isZero();
        String ask = "[helper wants to run shared_state_set {\"key\":\"k\",\"value\":\"v\"}] allow? y = yes, a = always, n = no";
        assertThat(r.lines()).containsSubsequence("> remember k", ask, "Stored.", "> again", ask, "Stored.",
                "> once more", "Stored.");
        assertThat(r.lines()).filteredOn(ask::equals).hasSize(2);
        List<JsonNode> bodies = fake.bodies();
        assertThat(bodies.get(1).get("messages").get(3).get("content").asString())
                .isEqualTo("tool 'shared_state_set' was not run: the user said no");
        assertThat(bodies.get(3).get("messages").get(7).get("content").asString()).doesNotContain("was not run");
    }

    @Test
    void anMcpServersQuestionIsAnsweredWithTheNextLineAndAskedAgainWhenTheAnswerDoesNotFit(@TempDir Path tmp)
            throws Exception {
        ToolBox restaurant = ToolBox.of(Tool.of("book_table", "Books a table", "{\"type\":\"object\"}", (in, ctx) -> {
            McpElicitation.Answer answer = McpServerCall.of(ctx).orElseThrow().elicit("How many people?", Map.of("type", "object",
                    "properties", Map.of("party", Map.of("type", "integer")), "required", List.of("party")), Duration.ofSeconds(30));
            return ToolOutput.text(answer.action() == McpElicitation.Action.ACCEPT
                    ? "booked for " + answer.content().get("party") : "not booked: " + answer.action());
        }));
        ChatCompletionsFake fake = new ChatCompletionsFake(body -> body.get("messages").get(body.get("messages").size() - 1)
                .get("role").asString().equals("tool")
                ? ChatCompletionsFake.text("Done: " + body.get("messages").get(body.get("messages").size() - 1).get("content").asString())
                : ChatCompletionsFake.call("book_table", "{}"));
        server.setDispatcher(fake);
        try (McpToolServer mcp = McpToolServer.builder(restaurant).serverInfo("restaurant", "1").build().startHttp(0)) {
            Path shelly = Files.createDirectories(tmp.resolve("project/.shelly"));
            Files.writeString(shelly.resolve("config.yaml"), """
                    providers:
                      - name: local
                        kind: openai-compatible
                        base_url: %s
                        model: tiny
                    mcp_servers:
                      - name: restaurant
                        url: %s
                        elicitation: true
                    agents:
                      - name: helper
                        toolboxes: [restaurant]
                    """.formatted(server.url("/v1"), mcp.url().orElseThrow()));

            Runs.Result r = chat(tmp.resolve("project"), Map.of(), "book a table\nlots\n4\n");

            assertThat(r.err()).isEmpty();
            assertThat(r.exit()).isZero();
            assertThat(r.lines()).containsSubsequence("> book a table",
                    "[helper asks] MCP server 'restaurant' asks: How many people? (a whole number)",
                    "[helper asks] That answer does not fit: party must be an integer, was lots.",
                    "MCP server 'restaurant' asks: How many people? (a whole number)",
                    "Done: booked for 4");
        }
    }

    @Test
    void aFailedTurnIsOneLineOnStandardErrorOfTheProgram(@TempDir Path tmp) throws Exception {
        // llama-server's answer to a request longer than its context, to every request.
        server.enqueue(new mockwebserver3.MockResponse.Builder().code(400).addHeader("Content-Type", "application/json")
                .body(ChatCompletionsFake.LLAMA_OVERFLOW).build());
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                System.getProperty("java.class.path"), Main.class.getName(), "chat", "hello")
                .directory(tmp.toFile()).redirectOutput(ProcessBuilder.Redirect.DISCARD);
        pb.environment().keySet().removeIf(k -> k.endsWith("_API_KEY") || k.endsWith("_BASE_URL") || k.startsWith("SHELLY_"));
        pb.environment().put("OPENAI_BASE_URL", server.url("/v1").toString());
        Process p = pb.start();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).isEqualTo(Main.FAILED);

        assertThat(err.lines().toList()).singleElement().asString().startsWith("error: the conversation is too long for "
                + "llama3.2 (2574 tokens; its context window: 2048 tokens) (HTTP 400): request (2574 tokens) exceeds the "
                + "available context size (2048 tokens), try increasing it; agent 'assistant' has no context policy");
    }
}
