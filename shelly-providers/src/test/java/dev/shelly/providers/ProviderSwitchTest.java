package dev.shelly.providers;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.chats.ToolResult;
import dev.shelly.modeladapter.ModelOptions.Reasoning;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.provider.spi.WireFormat;
import dev.shelly.providers.anthropic.AnthropicCompleter;
import dev.shelly.providers.gemini.GeminiCompleter;
import dev.shelly.providers.grok.GrokCompleter;
import dev.shelly.providers.openai.OpenAiCompleter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A conversation with reasoning and a tool call, answered by one provider and continued by
 * another, for every ordered pair of Anthropic, OpenAI Chat Completions, OpenAI Responses, Gemini
 * and Grok: the next request is exactly what its API takes, with the first provider's signatures,
 * encrypted reasoning and thought signatures left out, and kept when the conversation goes back.
 */
class ProviderSwitchTest {
    private static final String ANTHROPIC_SIGNATURE = "EqQBCkgIARABGAIiQanthropic";
    private static final String ANTHROPIC_REDACTED = "EmwKAhgBEgy3va3pzixredacted";
    private static final String ENCRYPTED = "gAAAAABoISQ24encrypted";
    private static final String GEMINI_SIGNATURE = "CiQBVKhc7geminisignature";

    /** Each provider's reply: reasoning (with its own opaque state), a sentence and one tool call. */
    private static final Map<String, String> REPLIES = new LinkedHashMap<>();

    static {
        REPLIES.put("anthropic", """
                {"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[
                  {"type":"thinking","thinking":"Look up Paris.","signature":"%s"},
                  {"type":"redacted_thinking","data":"%s"},
                  {"type":"text","text":"Checking."},
                  {"type":"tool_use","id":"call_1","name":"get_weather","input":{"city":"Paris"}}],
                 "stop_reason":"tool_use","usage":{"input_tokens":50,"output_tokens":20}}
                """.formatted(ANTHROPIC_SIGNATURE, ANTHROPIC_REDACTED));
        String chat = """
                {"id":"chatcmpl-1","object":"chat.completion","model":"%s","choices":[{"index":0,"message":{
                  "role":"assistant","content":"Checking.","reasoning_content":"Look up Paris.",
                  "tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather",
                    "arguments":"{\\"city\\":\\"Paris\\"}"}}]},"finish_reason":"tool_calls"}],
                 "usage":{"prompt_tokens":50,"completion_tokens":20,"total_tokens":70}}
                """;
        REPLIES.put("openai-chat", chat.formatted("gpt-5"));
        REPLIES.put("openai-responses", """
                {"id":"resp_1","object":"response","status":"completed","model":"gpt-5","output":[
                  {"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"Look up Paris."}],
                   "encrypted_content":"%s"},
                  {"type":"message","id":"msg_1","status":"completed","role":"assistant",
                   "content":[{"type":"output_text","text":"Checking.","annotations":[]}]},
                  {"type":"function_call","id":"fc_1","call_id":"call_1","name":"get_weather",
                   "arguments":"{\\"city\\":\\"Paris\\"}","status":"completed"}],
                 "usage":{"input_tokens":50,"output_tokens":20,"total_tokens":70}}
                """.formatted(ENCRYPTED));
        REPLIES.put("gemini", """
                {"candidates":[{"content":{"role":"model","parts":[
                  {"text":"Look up Paris.","thought":true},
                  {"text":"Checking."},
                  {"functionCall":{"id":"call_1","name":"get_weather","args":{"city":"Paris"}},
                   "thoughtSignature":"%s"}]},"finishReason":"STOP"}],
                 "usageMetadata":{"promptTokenCount":50,"candidatesTokenCount":20,"totalTokenCount":70},
                 "modelVersion":"gemini-2.5-flash","responseId":"r1"}
                """.formatted(GEMINI_SIGNATURE));
        REPLIES.put("grok", chat.formatted("grok-4"));
    }

    private static final String WEATHER_CHAT = "{\"type\":\"function\",\"function\":{\"name\":\"get_weather\","
            + "\"description\":\"Get the current weather\",\"parameters\":{\"type\":\"object\",\"properties\":"
            + "{\"city\":{\"type\":\"string\"}},\"required\":[\"city\"]}}}";

    private static String chat(String model) {
        return """
                {"model":"%s","messages":[
                  {"role":"system","content":"Be brief."},
                  {"role":"user","content":"Weather in Paris?"},
                  {"role":"assistant","content":"Checking.","tool_calls":[
                    {"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\\"city\\":\\"Paris\\"}"}}]},
                  {"role":"tool","tool_call_id":"call_1","content":"14°C and sunny"}],
                 "tools":[%s]}
                """.formatted(model, WEATHER_CHAT);
    }

    /**
     * The request each API gets after another provider's turn: the same conversation, every
     * opaque piece of the other provider gone. Anthropic, asked to think, does not think in a
     * request whose tool calls another provider made (it refuses those without a thinking block);
     * Gemini gets the documented stand-in signature on the call of the turn in progress.
     */
    private static final Map<String, String> AFTER_A_SWITCH = Map.of(
            "anthropic", """
                    {"model":"claude-sonnet-4-5","max_tokens":4096,"system":"Be brief.","messages":[
                      {"role":"user","content":[{"type":"text","text":"Weather in Paris?"}]},
                      {"role":"assistant","content":[{"type":"text","text":"Checking."},
                        {"type":"tool_use","id":"call_1","name":"get_weather","input":{"city":"Paris"}}]},
                      {"role":"user","content":[{"type":"tool_result","tool_use_id":"call_1","content":"14°C and sunny"}]}],
                     "tools":[{"name":"get_weather","description":"Get the current weather","input_schema":
                       {"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}]}
                    """,
            "openai-chat", chat("gpt-5"),
            "grok", chat("grok-4"),
            "openai-responses", """
                    {"model":"gpt-5","instructions":"Be brief.","input":[
                      {"role":"user","content":"Weather in Paris?"},
                      {"role":"assistant","content":"Checking."},
                      {"type":"function_call","call_id":"call_1","name":"get_weather","arguments":"{\\"city\\":\\"Paris\\"}"},
                      {"type":"function_call_output","call_id":"call_1","output":"14°C and sunny"}],
                     "tools":[{"type":"function","name":"get_weather","description":"Get the current weather","parameters":
                       {"type":"object","properties":{"city":{"type":"string"}},"required":["city"]},"strict":false}],
                     "store":false,"include":["reasoning.encrypted_content"]}
                    """,
            "gemini", """
                    {"systemInstruction":{"parts":[{"text":"Be brief."}]},"contents":[
                      {"role":"user","parts":[{"text":"Weather in Paris?"}]},
                      {"role":"model","parts":[{"text":"Checking."},
                        {"functionCall":{"id":"call_1","name":"get_weather","args":{"city":"Paris"}},
                         "thoughtSignature":"skip_thought_signature_validator"}]},
                      {"role":"user","parts":[{"functionResponse":{"id":"call_1","name":"get_weather",
                        "response":{"output":"14°C and sunny"}}}]}],
                     "tools":[{"functionDeclarations":[{"name":"get_weather","description":"Get the current weather",
                       "parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}]}]}
                    """);

    private static WireFormat format(String api) {
        return switch (api) {
            case "anthropic" -> AnthropicCompleter.builder().model("claude-sonnet-4-5").maxTokens(4096)
                    .reasoning(Reasoning.budget(2048)).wireFormat();
            case "openai-chat" -> OpenAiCompleter.builder().model("gpt-5").wireFormat();
            case "openai-responses" -> OpenAiCompleter.builder().api(OpenAiCompleter.Api.RESPONSES).model("gpt-5").wireFormat();
            case "gemini" -> GeminiCompleter.builder().model("gemini-2.5-flash").wireFormat();
            case "grok" -> GrokCompleter.builder().model("grok-4").wireFormat();
            default -> throw new IllegalArgumentException(api);
        };
    }

    static List<String[]> pairs() {
        List<String[]> pairs = new ArrayList<>();
        for (String from : REPLIES.keySet()) {
            for (String to : REPLIES.keySet()) {
                if (!from.equals(to)) {
                    pairs.add(new String[] {from, to});
                }
            }
        }
        return pairs;
    }

    private static String body(String from, String to) {
        ModelRequest first = ModelRequest.of(List.of(Message.system("Be brief."), Message.user("Weather in Paris?")),
                List.of(Fixtures.WEATHER));
        ModelResponse reply = format(from).reply(REPLIES.get(from).getBytes(StandardCharsets.UTF_8), first);
        ModelRequest next = ModelRequest.of(List.of(Message.system("Be brief."), Message.user("Weather in Paris?"),
                reply.message(), Message.of("tools", Role.TOOL, ToolResult.of("call_1", "14°C and sunny"))),
                List.of(Fixtures.WEATHER));
        return new String(format(to).request(next, false), StandardCharsets.UTF_8);
    }

    @ParameterizedTest(name = "{0} then {1}")
    @MethodSource("pairs")
    void theNextProviderGetsAValidRequestWithoutTheOthersOpaqueState(String from, String to) {
        String sent = body(from, to);
        Fixtures.assertJson(sent, AFTER_A_SWITCH.get(to));
        assertThat(sent).doesNotContain(ANTHROPIC_SIGNATURE, ANTHROPIC_REDACTED, ENCRYPTED, GEMINI_SIGNATURE);
    }

    @Test
    void eachProviderStillGetsItsOwnStateBack() {
        assertThat(body("anthropic", "anthropic")).contains("\"thinking\":{\"type\":\"enabled\",\"budget_tokens\":2048}",
                "{\"type\":\"thinking\",\"thinking\":\"Look up Paris.\",\"signature\":\"" + ANTHROPIC_SIGNATURE + "\"}",
                "{\"type\":\"redacted_thinking\",\"data\":\"" + ANTHROPIC_REDACTED + "\"}");
        assertThat(body("openai-responses", "openai-responses")).contains("\"encrypted_content\":\"" + ENCRYPTED + "\"");
        assertThat(body("gemini", "gemini")).contains("\"thoughtSignature\":\"" + GEMINI_SIGNATURE + "\"")
                .doesNotContain("skip_thought_signature_validator");
    }

    @Test
    void aConversationThatComesBackKeepsTheFirstProvidersSignaturesWhereTheyWere() {
        ModelRequest first = ModelRequest.of(List.of(Message.user("Weather in Paris?")), List.of(Fixtures.WEATHER));
        Message claude = format("anthropic").reply(REPLIES.get("anthropic").getBytes(StandardCharsets.UTF_8), first).message();
        Message gpt = format("openai-responses").reply(REPLIES.get("openai-responses").replace("call_1", "call_2")
                .getBytes(StandardCharsets.UTF_8), first).message();
        ModelRequest back = ModelRequest.of(List.of(Message.user("Weather in Paris?"), claude,
                Message.of("tools", Role.TOOL, ToolResult.of("call_1", "14°C")), gpt,
                Message.of("tools", Role.TOOL, ToolResult.of("call_2", "15°C"))), List.of(Fixtures.WEATHER));

        String sent = new String(format("anthropic").request(back, false), StandardCharsets.UTF_8);

        assertThat(sent).contains("\"signature\":\"" + ANTHROPIC_SIGNATURE + "\"", ANTHROPIC_REDACTED)
                .doesNotContain(ENCRYPTED, "\"thinking\":{\"type\":\"enabled\"");
    }

    @Test
    void idsAnotherApiWouldRefuseAreMappedTheSameForACallAndItsResult() {
        String odd = "functions.get_weather:0 (a long id from a server that does not care about length)";
        ModelRequest request = ModelRequest.of(List.of(Message.user("Weather?"),
                Message.of("bot", Role.ASSISTANT, new dev.shelly.chats.ToolCall(odd, "get_weather", "{}")),
                Message.of("tools", Role.TOOL, ToolResult.of(odd, "sunny"))), List.of(Fixtures.WEATHER));
        for (String api : List.of("anthropic", "openai-chat", "openai-responses")) {
            String sent = new String(format(api).request(request, false), StandardCharsets.UTF_8);
            assertThat(sent).as(api).doesNotContain(odd);
            java.util.regex.Matcher ids = java.util.regex.Pattern.compile("\"(?:id|tool_use_id|tool_call_id|call_id)\":"
                    + "\"(call_[0-9a-f]+)\"").matcher(sent);
            List<String> found = ids.results().map(m -> m.group(1)).toList();
            assertThat(found).as(api).hasSize(2).allMatch(id -> id.equals(found.getFirst()) && id.length() <= 40);
        }
    }
}
