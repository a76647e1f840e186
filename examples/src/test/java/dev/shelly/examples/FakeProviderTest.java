package dev.shelly.examples;

import static dev.shelly.examples.ChatCompletionsFake.call;
import static dev.shelly.examples.ChatCompletionsFake.text;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import mockwebserver3.SocketEffect;
import mockwebserver3.junit5.StartStop;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;

/**
 * The examples against a fake OpenAI Chat Completions endpoint that records what the program
 * sends: the exact requests, what the program prints, and its exit code.
 */
@Timeout(60)
class FakeProviderTest {
    @StartStop
    private final MockWebServer server = new MockWebServer();

    private Map<String, String> local() {
        return Map.of("OPENAI_BASE_URL", server.url("/v1").toString());
    }

    private static JsonNode json(String text) {
        return ChatCompletionsFake.JSON.readTree(text);
    }

    private static final String WEATHER_TOOLS = """
            [{"type":"function","function":{"name":"get_weather","description":"Get the current weather for a city (demo data)",
              "parameters":{"type":"object","properties":{"city":{"type":"string","description":"the city, e.g. Paris"}},
                            "required":["city"],"additionalProperties":false}}}]""";

    private static final String WEATHER_SYSTEM = "You are weather-bot. A helpful weather assistant\\n\\n## Instructions"
            + "\\n\\nAnswer weather questions. Use get_weather for each city you are asked about.";

    @Test
    void toolsSendsExactlyTheChatAndTheToolAndStreamsTheAnswer() {
        ChatCompletionsFake fake = new ChatCompletionsFake(body -> ChatCompletionsFake.hasToolResults(body)
                ? text("It is 18°C with light rain in Paris.")
                : call("get_weather", "{\"city\":\"Paris\"}"));
        server.setDispatcher(fake);

        Runs.Result r = Runs.run(local(), "tools", "What's the weather in Paris?");

        assertThat(r.err()).isEmpty();
        assertThat(r.exit()).isZero();
        assertThat(r.lines()).containsExactly(
                "[model: openai-compatible llama3.2 at " + server.url("/v1") + "]",
                "> What's the weather in Paris?",
                "  → get_weather {\"city\":\"Paris\"}",
                "  ← get_weather: 18°C with light rain",
                "It is 18°C with light rain in Paris.",
                "[usage: 200 input and 20 output tokens in 2 model calls]");
        List<JsonNode> sent = fake.bodies();
        assertThat(sent).hasSize(2);
        assertThat(sent.get(0)).isEqualTo(json("""
                {"model":"llama3.2",
                 "messages":[{"role":"system","content":"%s"},
                             {"role":"user","content":"What's the weather in Paris?"}],
                 "tools":%s,
                 "stream":true,"stream_options":{"include_usage":true}}""".formatted(WEATHER_SYSTEM, WEATHER_TOOLS)));
        assertThat(sent.get(1)).isEqualTo(json("""
                {"model":"llama3.2",
                 "messages":[{"role":"system","content":"%s"},
                             {"role":"user","content":"What's the weather in Paris?"},
                             {"role":"assistant","content":null,"tool_calls":[{"id":"call_chatcmpl-1_0","type":"function",
                                 "function":{"name":"get_weather","arguments":"{\\"city\\":\\"Paris\\"}"}}]},
                             {"role":"tool","tool_call_id":"call_chatcmpl-1_0","content":"18°C with light rain"}],
                 "tools":%s,
                 "stream":true,"stream_options":{"include_usage":true}}""".formatted(WEATHER_SYSTEM, WEATHER_TOOLS)));
    }

    @Test
    void aServerThatAnswersWholeRepliesToStreamRequestsWorksToo() {
        ChatCompletionsFake fake = new ChatCompletionsFake(body -> ChatCompletionsFake.hasToolResults(body)
                ? text("It is 18°C with light rain in Paris.")
                : call("get_weather", "{\"city\":\"Paris\"}"), true);
        server.setDispatcher(fake);

        Runs.Result r = Runs.run(local(), "tools", "What's the weather in Paris?");

        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.lines()).containsSubsequence(
                "  → get_weather {\"city\":\"Paris\"}",
                "  ← get_weather: 18°C with light rain",
                "It is 18°C with light rain in Paris.",
                "[usage: 200 input and 20 output tokens in 2 model calls]");
        assertThat(fake.bodies()).hasSize(2).allMatch(b -> b.path("stream").asBoolean());
    }

    @Test
    void openAiGetsTheKeyAsBearerAndTheModelFromShellyModel() throws Exception {
        server.setDispatcher(new ChatCompletionsFake(body -> text("Sunny.")));
        Map<String, String> env = Map.of("OPENAI_API_KEY", "sk-test-0123456789", "OPENAI_BASE_URL",
                server.url("/v1").toString(), "SHELLY_MODEL", "gpt-test");

        Runs.Result r = Runs.run(env, "tools");

        assertThat(r.exit()).isZero();
        assertThat(r.lines().getFirst()).isEqualTo("[model: openai gpt-test at " + server.url("/v1") + "]");
        assertThat(r.out()).doesNotContain("sk-test");
        RecordedRequest request = server.takeRequest();
        assertThat(request.getHeaders().get("Authorization")).isEqualTo("Bearer sk-test-0123456789");
        assertThat(json(request.getBody().utf8()).get("model").asString()).isEqualTo("gpt-test");
    }

    @Test
    void azureOpenAiIsChosenWhenItsVariablesAreSetAndGetsItsKeyHeaderAtTheDeploymentPath() throws Exception {
        server.setDispatcher(new ChatCompletionsFake(body -> text("Sunny.")));
        Map<String, String> env = Map.of("AZURE_OPENAI_API_KEY", "azure-key-0123456789", "AZURE_OPENAI_ENDPOINT",
                server.url("/").toString(), "OPENAI_API_VERSION", "2024-10-21", "AZURE_OPENAI_DEPLOYMENT", "gpt-4o-prod",
                "ANTHROPIC_API_KEY", "sk-ant-unused");

        Runs.Result r = Runs.run(env, "tools");

        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.lines().getFirst()).isEqualTo("[model: azure-openai gpt-4o-prod at " + server.url("/")
                + "; fallback: anthropic claude-sonnet-4-5 at https://api.anthropic.com]");
        assertThat(r.out() + r.err()).doesNotContain("azure-key-0123456789");
        RecordedRequest request = server.takeRequest();
        assertThat(request.getUrl().encodedPath()).isEqualTo("/openai/deployments/gpt-4o-prod/chat/completions");
        assertThat(request.getUrl().queryParameter("api-version")).isEqualTo("2024-10-21");
        assertThat(request.getHeaders().get("api-key")).isEqualTo("azure-key-0123456789");
        assertThat(request.getHeaders().get("Authorization")).isNull();
        assertThat(json(request.getBody().utf8()).get("model").asString()).isEqualTo("gpt-4o-prod");
    }

    @Test
    void anExampleFinishesOnTheFallbackWhenThePrimaryRefusesItsKey() throws Exception {
        try (MockWebServer anthropic = new MockWebServer()) {
            anthropic.start();
            anthropic.setDispatcher(new Dispatcher() {
                @Override
                public MockResponse dispatch(RecordedRequest request) {
                    return new MockResponse.Builder().code(401).addHeader("Content-Type", "application/json")
                            .body("{\"type\":\"error\",\"error\":{\"type\":\"authentication_error\","
                                    + "\"message\":\"invalid x-api-key\"}}").build();
                }
            });
            server.setDispatcher(new ChatCompletionsFake(body -> text("Sunny.")));
            Map<String, String> env = Map.of("ANTHROPIC_API_KEY", "sk-ant-revoked-0123456789", "ANTHROPIC_BASE_URL",
                    anthropic.url("/").toString(), "OPENAI_API_KEY", "sk-openai-0123456789", "OPENAI_BASE_URL",
                    server.url("/v1").toString());

            Runs.Result r = Runs.run(env, "tools");

            assertThat(r.exit()).as(r.err()).isZero();
            assertThat(r.lines().getFirst()).isEqualTo("[model: anthropic claude-sonnet-4-5 at " + anthropic.url("/")
                    + "; fallback: openai gpt-4o-mini at " + server.url("/v1") + "]");
            assertThat(r.lines()).contains("  … anthropic: authentication (HTTP 401): invalid x-api-key; continuing on openai");
            assertThat(r.out()).contains("Sunny.").doesNotContain("sk-ant-revoked", "sk-openai-0123456789");
            assertThat(r.err()).doesNotContain("sk-ant-revoked", "sk-openai-0123456789");
            assertThat(server.takeRequest().getHeaders().get("Authorization")).isEqualTo("Bearer sk-openai-0123456789");
        }
    }

    @Test
    void anthropicGetsItsKeyHeaderAndTheSystemPromptApart() throws Exception {
        server.enqueue(new MockResponse.Builder().addHeader("Content-Type", "application/json")
                .body("{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\","
                        + "\"content\":[{\"type\":\"text\",\"text\":\"Sunny everywhere.\"}],\"stop_reason\":\"end_turn\","
                        + "\"usage\":{\"input_tokens\":50,\"output_tokens\":3}}")
                .build());
        Map<String, String> env = Map.of("ANTHROPIC_API_KEY", "sk-ant-test-42", "ANTHROPIC_BASE_URL",
                server.url("/").toString(), "OPENAI_API_KEY", "sk-openai-unused");

        Runs.Result r = Runs.run(env, "tools");

        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.lines().getFirst()).isEqualTo("[model: anthropic claude-sonnet-4-5 at " + server.url("/")
                + "; fallback: openai gpt-4o-mini at https://api.openai.com/v1]");
        assertThat(r.lines()).endsWith("Sunny everywhere.", "[usage: 50 input and 3 output tokens in 1 model call]");
        assertThat(r.out()).doesNotContain("sk-ant");
        RecordedRequest request = server.takeRequest();
        assertThat(request.getUrl().encodedPath()).isEqualTo("/v1/messages");
        assertThat(request.getHeaders().get("x-api-key")).isEqualTo("sk-ant-test-42");
        JsonNode body = json(request.getBody().utf8());
        assertThat(body.get("model").asString()).isEqualTo("claude-sonnet-4-5");
        assertThat(body.at("/system/0/text").asString()).startsWith("You are weather-bot.");
        assertThat(body.at("/system/0/cache_control").toString()).as("agents cache their prompt by default")
                .isEqualTo("{\"type\":\"ephemeral\"}");
        assertThat(body.get("messages")).isEqualTo(json("[{\"role\":\"user\",\"content\":[{\"type\":\"text\","
                + "\"text\":\"What's the weather in Paris and in Tokyo?\",\"cache_control\":{\"type\":\"ephemeral\"}}]}]"));
        assertThat(body.at("/tools/0/name").asString()).isEqualTo("get_weather");
    }

    @Test
    void everyExampleSendsItsAgentAndToolsAndEndsCleanlyWhenTheModelJustAnswers() {
        Map<String, List<String>> expected = Map.ofEntries(
                Map.entry("tools", List.of("weather-bot", "get_weather")),
                Map.entry("delegation", List.of("orchestrator", "list_agents", "delegate")),
                Map.entry("skills", List.of("tech-lead", "read_skill_file", "load_skill")),
                Map.entry("concurrent", List.of("lead", "list_agents", "delegate")),
                Map.entry("middleware", List.of("assistant", "lookup_customer")),
                Map.entry("state", List.of("coordinator", "list_agents", "delegate")),
                Map.entry("mcp", List.of("file-agent", "list_files", "read_file")),
                Map.entry("chat", List.of("assistant", "list_agents", "delegate")),
                Map.entry("long-run", List.of("surveyor", "read_record", "recall")),
                Map.entry("approval", List.of("clerk", "read_notes", "write_note")),
                Map.entry("coder", List.of("coder", "fs_read", "fs_write", "fs_edit", "fs_patch", "fs_list", "fs_stat", "fs_move",
                        "fs_copy", "fs_delete", "fs_mkdir", "search_files", "run_command", "git_status", "git_diff",
                        "git_log", "git_add", "git_commit")));
        for (Example example : Examples.all()) {
            if (WorkflowExamplesTest.WORKFLOWS.contains(example.name())) {
                continue;   // a call per member, or a coordinator that needs JSON: WorkflowExamplesTest covers them
            }
            if (example.name().equals("tasks") || example.name().equals("redis-tasks")) {
                continue;   // a planner and workers, a call each: tasksOverTheWire covers them
            }
            if (example.name().equals("triage")) {
                continue;   // answers in JSON: triageOverTheWire covers it
            }
            if (example.name().equals("console")) {
                continue;   // serves its console until interrupted: ConsoleExampleTest covers it
            }
            ChatCompletionsFake fake = new ChatCompletionsFake(body -> text("Done."));
            server.setDispatcher(fake);

            Runs.Result r = Runs.run(local(), example.name());

            assertThat(r.exit()).as("%s exit code; stderr: %s", example.name(), r.err()).isZero();
            assertThat(r.err()).as(example.name()).isEmpty();
            assertThat(r.lines()).as(example.name()).contains("Done.")
                    .endsWith("[usage: 100 input and 10 output tokens in 1 model call]");
            List<String> agentAndTools = expected.get(example.name());
            assertThat(fake.bodies()).as(example.name()).hasSize(1);
            JsonNode body = fake.bodies().getFirst();
            assertThat(ChatCompletionsFake.systemPrompt(body)).as(example.name())
                    .startsWith("You are " + agentAndTools.getFirst() + ".");
            assertThat(body.at("/messages/1")).as(example.name())
                    .isEqualTo(ChatCompletionsFake.JSON.createObjectNode().put("role", "user").put("content", example.defaultPrompt()));
            assertThat(ChatCompletionsFake.toolNames(body)).as(example.name())
                    .isEqualTo(agentAndTools.subList(1, agentAndTools.size()));
        }
    }

    @Test
    void delegationOverTheWireGivesTheChildItsContextAndTask() {
        ChatCompletionsFake fake = new ChatCompletionsFake(body -> {
            boolean orchestrator = ChatCompletionsFake.systemPrompt(body).startsWith("You are orchestrator.");
            boolean answered = ChatCompletionsFake.hasToolResults(body);
            if (orchestrator) {
                return answered ? text("Summary: virtual threads make waiting cheap.")
                        : call("delegate", "{\"tasks\":[{\"agent\":\"researcher\",\"task\":\"Find facts on virtual threads\","
                                + "\"context\":\"It is for a summary.\"}]}");
            }
            return answered ? text("Virtual threads make waiting cheap.")
                    : call("search_notes", "{\"query\":\"virtual threads\"}");
        });
        server.setDispatcher(fake);

        Runs.Result r = Runs.run(local(), "delegation");

        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.lines()).containsSubsequence(
                "  → delegate researcher: Find facts on virtual threads",
                "    [researcher] → search_notes {\"query\":\"virtual threads\"}",
                "  ← researcher: Virtual threads make waiting cheap.",
                "Summary: virtual threads make waiting cheap.");
        JsonNode child = fake.bodies().get(1);
        assertThat(ChatCompletionsFake.systemPrompt(child)).startsWith("You are researcher. Searches the research notes");
        assertThat(child.at("/messages/1")).isEqualTo(json("{\"role\":\"user\",\"content\":\"It is for a summary.\"}"));
        assertThat(child.at("/messages/2")).isEqualTo(json("{\"role\":\"user\",\"content\":\"Find facts on virtual threads\"}"));
        assertThat(ChatCompletionsFake.toolNames(child)).first().isEqualTo("search_notes");
        assertThat(fake.bodies().getLast().at("/messages/3/content").asString())
                .isEqualTo("[{\"agent\":\"researcher\",\"result\":\"Virtual threads make waiting cheap.\"}]");
    }

    @Test
    void triageOverTheWireAsksForTheRecordsSchemaWithoutTheHiddenToolsAndCorrectsOnce() {
        ChatCompletionsFake fake = new ChatCompletionsFake(body -> body.get("messages").size() == 2
                ? text("{\"category\":\"billing\",\"priority\":2}")
                : text("{\"category\":\"billing\",\"priority\":2,\"assignee\":null,\"summary\":\"Charged twice.\"}"));
        server.setDispatcher(fake);

        Runs.Result r = Runs.run(local(), "triage");

        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.lines()).contains("[triage: billing, priority 2]");
        assertThat(r.lines()).anyMatch(l -> l.startsWith("[run: 220 tokens, $"));
        assertThat(fake.bodies()).hasSize(2);
        JsonNode first = fake.bodies().getFirst();
        assertThat(first.at("/response_format/type").asString()).isEqualTo("json_schema");
        assertThat(first.at("/response_format/json_schema/name").asString()).isEqualTo("Triage");
        assertThat(first.at("/response_format/json_schema/strict").asBoolean()).isTrue();
        assertThat(first.at("/response_format/json_schema/schema/properties/assignee/type").toString())
                .isEqualTo("[\"string\",\"null\"]");
        assertThat(ChatCompletionsFake.toolNames(first)).as("the model-call hook hides admin_reset_password")
                .containsExactly("lookup_customer", "refund_order");
        JsonNode second = fake.bodies().get(1);
        assertThat(second.at("/messages/3/content").asString()).isEqualTo("Your answer does not match the required "
                + "JSON schema: $.assignee is required; $.summary is required. Answer again with only a JSON object "
                + "that matches the schema.");
    }

    @Test
    void tasksOverTheWireArePlannedClaimedAndCompletedThroughTheTaskTools() {
        ChatCompletionsFake fake = new ChatCompletionsFake(body -> {
            JsonNode messages = body.get("messages");
            JsonNode last = messages.get(messages.size() - 1);
            boolean answered = last.path("role").asString().equals("tool");
            if (ChatCompletionsFake.systemPrompt(body).startsWith("You are planner.")) {
                return answered ? text("Planned.")
                        : call("tasks_create", "{\"title\":\"Write the notes\",\"description\":\"Two lines.\"}");
            }
            String result = answered ? last.path("content").asString() : "";
            if (!answered || result.contains("\"status\":\"completed\"")) {
                return call("tasks_claim", "{}");
            }
            if (result.contains("\"status\":\"in_progress\"")) {
                return call("tasks_update", "{\"id\":\"" + json(result).path("id").asString()
                        + "\",\"status\":\"completed\",\"result\":\"The notes.\"}");
            }
            return text("Nothing left.");
        });
        server.setDispatcher(fake);

        Runs.Result r = Runs.run(local(), "tasks");

        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.err()).isEmpty();
        assertThat(r.lines()).contains("  → tasks_create {\"title\":\"Write the notes\",\"description\":\"Two lines.\"}",
                "  → tasks_update {\"id\":\"task-1\",\"status\":\"completed\",\"result\":\"The notes.\"}");
        assertThat(r.lines()).anyMatch(l -> l.matches("\\[board] task-1 completed by worker-[12]: Write the notes"));
        assertThat(r.lines()).contains("[board] 1 of 1 tasks completed");
        assertThat(fake.bodies()).filteredOn(b -> ChatCompletionsFake.toolNames(b).contains("tasks_claim"))
                .as("every agent is offered the board's tools").hasSize(fake.bodies().size());
    }

    @Test
    void coderOverTheWireFixesTheSampleAndAnEscapeAttemptComesBackAsAnErrorTheModelReads() {
        ChatCompletionsFake fake = new ChatCompletionsFake(body -> {
            JsonNode messages = body.get("messages");
            int results = 0;
            for (JsonNode m : messages) {
                results += m.path("role").asString().equals("tool") ? 1 : 0;
            }
            return switch (results) {
                case 0 -> call("fs_read", "{\"path\":\"../../etc/passwd\"}");
                case 1 -> call("run_command", "{\"program\":\"sh\",\"args\":[\"-c\",\"cat /etc/passwd\"]}");
                case 2 -> call("fs_edit", "{\"path\":\"Calc.java\",\"old_text\":\"return a - b;\",\"new_text\":\"return a + b;\"}");
                case 3 -> call("run_command", "{\"program\":\"java\",\"args\":[\"Calc.java\"]}");
                default -> text("Fixed.");
            };
        });
        server.setDispatcher(fake);

        Runs.Result r = Runs.run(local(), "coder");

        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.lines()).containsSubsequence(
                "  ← fs_read failed: path '../../etc/passwd' holds '..'; paths stay inside the workspace",
                "  ← run_command failed: program 'sh' runs a shell or another program, and no shell is allowed",
                "  ← fs_edit: edited Calc.java: replaced 1 occurrence at line 6",
                "  ← run_command: exit code 0 all checks passed",
                "Fixed.");
        JsonNode last = fake.bodies().getLast().get("messages");
        assertThat(last.get(last.size() - 1).path("content").asString()).isEqualTo("exit code 0\nall checks passed\n");
    }

    @Test
    void aCallOfAnUnknownToolIsAnsweredAndTheRunGoesOn() {
        ChatCompletionsFake fake = new ChatCompletionsFake(body -> ChatCompletionsFake.hasToolResults(body)
                ? text("Sorry, I cannot do that.") : call("delete_everything", "{}"));
        server.setDispatcher(fake);

        Runs.Result r = Runs.run(local(), "tools");

        assertThat(r.exit()).isZero();
        assertThat(r.lines()).containsSubsequence("  → delete_everything",
                "  ← delete_everything failed: unknown tool 'delete_everything'; available tools: get_weather",
                "Sorry, I cannot do that.");
    }

    @Test
    void aRejectedKeyIsOneLineOnStderr() {
        server.enqueue(new MockResponse.Builder().code(401).addHeader("Content-Type", "application/json")
                .body("{\"error\":{\"message\":\"Incorrect API key provided.\",\"type\":\"invalid_request_error\","
                        + "\"code\":\"invalid_api_key\"}}")
                .build());
        Map<String, String> env = Map.of("OPENAI_API_KEY", "sk-wrong", "OPENAI_BASE_URL", server.url("/v1").toString());

        Runs.Result r = Runs.run(env, "tools");

        assertThat(r.exit()).isEqualTo(Main.FAILED);
        assertThat(r.errLines()).containsExactly(
                "error: openai rejected the API key (HTTP 401): Incorrect API key provided.; check OPENAI_API_KEY");
    }

    @Test
    void aModelTheServerDoesNotHaveIsOneLineOnStderr() {
        server.enqueue(new MockResponse.Builder().code(404).addHeader("Content-Type", "application/json")
                .body("{\"error\":{\"message\":\"model \\\"llama3.2\\\" not found, try pulling it first\","
                        + "\"type\":\"api_error\"}}")
                .build());

        Runs.Result r = Runs.run(local(), "tools");

        assertThat(r.exit()).isEqualTo(Main.FAILED);
        assertThat(r.errLines()).containsExactly("error: openai-compatible has no model llama3.2 at " + server.url("/v1")
                + " (HTTP 404): model \"llama3.2\" not found, try pulling it first; set SHELLY_MODEL to a model it serves");
    }

    @Test
    void anUnreachableServerIsOneLineOnStderrAfterTheRetriesShowInTheOutput() throws IOException {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        String url = "http://127.0.0.1:" + port + "/v1";

        Runs.Result r = Runs.run(Map.of("OPENAI_BASE_URL", url), "tools");

        assertThat(r.exit()).isEqualTo(Main.FAILED);
        assertThat(r.errLines()).hasSize(1);
        assertThat(r.errLines().getFirst()).startsWith("error: cannot reach openai-compatible at " + url + ": ")
                .endsWith("; is the server running?");
        assertThat(r.lines()).filteredOn(l -> l.startsWith("  … openai-compatible: network: ")).hasSize(2);
    }

    @Test
    void aStreamTheServerCutsIsReportedAsCutNotAsUnreachable() {
        String start = "data: {\"id\":\"c\",\"model\":\"m\",\"choices\":[{\"index\":0,"
                + "\"delta\":{\"role\":\"assistant\",\"content\":\"Sun\"}}]}\n\n";
        server.setDispatcher(new Dispatcher() {
            @Override
            public MockResponse dispatch(RecordedRequest request) {
                return new MockResponse.Builder().addHeader("Content-Type", "text/event-stream").body(start)
                        .setHeader("Content-Length", 10_000)
                        .onResponseEnd(new SocketEffect.CloseSocket(true, false, false)).build();
            }
        });

        Runs.Result r = Runs.run(local(), "tools");

        assertThat(r.exit()).isEqualTo(Main.FAILED);
        assertThat(r.errLines()).hasSize(1);
        assertThat(r.errLines().getFirst()).startsWith("error: openai-compatible at " + server.url("/v1")
                + " (HTTP 200): the server closed the stream before the reply was complete").endsWith("; try again")
                .doesNotContain("cannot reach");
    }

    @Test
    void aRateLimitIsRetriedAndShown() {
        AtomicInteger calls = new AtomicInteger();
        ChatCompletionsFake fake = new ChatCompletionsFake(body -> text("Sunny."));
        server.setDispatcher(new Dispatcher() {
            @Override
            public MockResponse dispatch(RecordedRequest request) throws InterruptedException {
                if (calls.incrementAndGet() == 1) {
                    return new MockResponse.Builder().code(429).addHeader("retry-after-ms", "20")
                            .addHeader("Content-Type", "application/json")
                            .body("{\"error\":{\"message\":\"Slow down.\"}}").build();
                }
                return fake.dispatch(request);
            }
        });
        Map<String, String> env = new HashMap<>(local());

        Runs.Result r = Runs.run(env, "tools");

        assertThat(r.exit()).isZero();
        assertThat(r.err()).isEmpty();
        assertThat(r.lines()).contains(
                "  … openai-compatible: rate limited (HTTP 429): Slow down. (retry after 20 ms); retrying in 0.0 s (attempt 2 of 3)",
                "Sunny.");
    }
}
