package dev.shelly.providers.openai;

import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.chats.Text;
import dev.shelly.chats.Thinking;
import dev.shelly.chats.ToolCall;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.StopReason;
import dev.shelly.modeladapter.Usage;
import dev.shelly.provider.spi.ProviderBuilder;
import dev.shelly.providers.Fixtures;
import dev.shelly.providers.internal.WireSupport;
import java.util.List;

/**
 * The provider contract on OpenAI's Responses API: the same key, base URL and error bodies as
 * Chat Completions, its own request, reply and event stream.
 */
class ResponsesContractTest extends OpenAiChatContractTest {
    static final String REASONING_ID = "rs_6820f383d7c08191846711c5df8233bc0ac5ba57aafcbac7";
    static final String ENCRYPTED = "gAAAAABoISQ24OyVRYbkYfukDqd6vcjbQl-Mpt0Bk8ZsV3d9P6VjgMLfCLqXIqSiV2SBy4ZbBvWL";

    static final String REPLY = """
            {"id":"resp_67ccd2bed1ec8190b14f964abc0542670bb6a6b452d3795b","object":"response","created_at":1741476542,
             "status":"completed","error":null,"incomplete_details":null,"instructions":"You are terse.",
             "max_output_tokens":1024,"model":"gpt-test-2025-08-07",
             "output":[
              {"type":"reasoning","id":"%s","summary":[{"type":"summary_text","text":"Two lookups."}],
               "encrypted_content":"%s"},
              {"type":"message","id":"msg_67ccd2bf17f0819081ff3bb2cf6508e6","status":"completed","role":"assistant",
               "content":[{"type":"output_text","text":"Checking both.","annotations":[]}]},
              {"type":"function_call","id":"fc_12345xyz","call_id":"call_a","name":"get_weather",
               "arguments":"{\\"city\\":\\"Paris\\"}","status":"completed"},
              {"type":"function_call","id":"fc_12345abc","call_id":"call_b","name":"get_time","arguments":"{}",
               "status":"completed"}],
             "parallel_tool_calls":true,"reasoning":{"effort":"medium","summary":null},"store":false,"temperature":0.5,
             "text":{"format":{"type":"text"}},"tool_choice":"auto","top_p":1.0,"truncation":"disabled",
             "usage":{"input_tokens":120,"input_tokens_details":{"cached_tokens":100},"output_tokens":45,
              "output_tokens_details":{"reasoning_tokens":30},"total_tokens":165},
             "user":null,"metadata":{}}
            """.formatted(REASONING_ID, ENCRYPTED);

    private static String event(String type, String fields) {
        return "event: " + type + "\ndata: {\"type\":\"" + type + "\"" + (fields.isEmpty() ? "" : "," + fields) + "}\n\n";
    }

    static final String STREAM = event("response.created", "\"sequence_number\":0,\"response\":{\"id\":"
                    + "\"resp_67ccd2bed1ec8190b14f964abc0542670bb6a6b452d3795b\",\"object\":\"response\","
                    + "\"status\":\"in_progress\",\"model\":\"gpt-test-2025-08-07\",\"output\":[],\"usage\":null}")
            + event("response.output_item.added", "\"sequence_number\":1,\"output_index\":0,\"item\":{\"type\":"
                    + "\"reasoning\",\"id\":\"" + REASONING_ID + "\",\"summary\":[]}")
            + event("response.reasoning_summary_text.delta", "\"sequence_number\":2,\"item_id\":\"" + REASONING_ID
                    + "\",\"output_index\":0,\"summary_index\":0,\"delta\":\"Two \"")
            + event("response.reasoning_summary_text.delta", "\"sequence_number\":3,\"item_id\":\"" + REASONING_ID
                    + "\",\"output_index\":0,\"summary_index\":0,\"delta\":\"lookups.\"")
            + event("response.output_item.done", "\"sequence_number\":4,\"output_index\":0,\"item\":{\"type\":"
                    + "\"reasoning\",\"id\":\"" + REASONING_ID + "\",\"summary\":[{\"type\":\"summary_text\","
                    + "\"text\":\"Two lookups.\"}],\"encrypted_content\":\"" + ENCRYPTED + "\"}")
            + event("response.output_item.added", "\"sequence_number\":5,\"output_index\":1,\"item\":{\"type\":"
                    + "\"message\",\"id\":\"msg_67ccd2bf17f0819081ff3bb2cf6508e6\",\"status\":\"in_progress\","
                    + "\"role\":\"assistant\",\"content\":[]}")
            + event("response.content_part.added", "\"sequence_number\":6,\"item_id\":\"msg_67ccd2bf17f0819081ff3bb2cf6508e6\","
                    + "\"output_index\":1,\"content_index\":0,\"part\":{\"type\":\"output_text\",\"text\":\"\",\"annotations\":[]}")
            + event("response.output_text.delta", "\"sequence_number\":7,\"item_id\":\"msg_67ccd2bf17f0819081ff3bb2cf6508e6\","
                    + "\"output_index\":1,\"content_index\":0,\"delta\":\"Checking \"")
            + event("response.output_text.delta", "\"sequence_number\":8,\"item_id\":\"msg_67ccd2bf17f0819081ff3bb2cf6508e6\","
                    + "\"output_index\":1,\"content_index\":0,\"delta\":\"both.\"")
            + event("response.output_text.done", "\"sequence_number\":9,\"item_id\":\"msg_67ccd2bf17f0819081ff3bb2cf6508e6\","
                    + "\"output_index\":1,\"content_index\":0,\"text\":\"Checking both.\"")
            + event("response.output_item.added", "\"sequence_number\":10,\"output_index\":2,\"item\":{\"type\":"
                    + "\"function_call\",\"id\":\"fc_12345xyz\",\"call_id\":\"call_a\",\"name\":\"get_weather\","
                    + "\"arguments\":\"\",\"status\":\"in_progress\"}")
            + event("response.function_call_arguments.delta", "\"sequence_number\":11,\"item_id\":\"fc_12345xyz\","
                    + "\"output_index\":2,\"delta\":\"{\\\"city\\\":\"")
            + event("response.function_call_arguments.delta", "\"sequence_number\":12,\"item_id\":\"fc_12345xyz\","
                    + "\"output_index\":2,\"delta\":\"\\\"Paris\\\"}\"")
            + event("response.function_call_arguments.done", "\"sequence_number\":13,\"item_id\":\"fc_12345xyz\","
                    + "\"output_index\":2,\"arguments\":\"{\\\"city\\\":\\\"Paris\\\"}\"")
            + event("response.output_item.added", "\"sequence_number\":14,\"output_index\":3,\"item\":{\"type\":"
                    + "\"function_call\",\"id\":\"fc_12345abc\",\"call_id\":\"call_b\",\"name\":\"get_time\","
                    + "\"arguments\":\"\",\"status\":\"in_progress\"}")
            + event("response.function_call_arguments.delta", "\"sequence_number\":15,\"item_id\":\"fc_12345abc\","
                    + "\"output_index\":3,\"delta\":\"{}\"")
            + event("response.completed", "\"sequence_number\":16,\"response\":"
                    + WireSupport.JSON.readTree(REPLY).toString());

    static final ModelResponse EXPECTED = new ModelResponse(new Message("openai", Role.ASSISTANT, List.of(
            Thinking.of("Two lookups.", REASONING_ID + ":" + ENCRYPTED).withOrigin("openai-responses:openai"),
            new Text("Checking both."),
            new ToolCall("call_a", "get_weather", "{\"city\":\"Paris\"}"),
            new ToolCall("call_b", "get_time", "{}"))),
            new Usage(20, 45, 100, 0, 30), StopReason.TOOL_USE, "completed", "gpt-test-2025-08-07",
            "resp_67ccd2bed1ec8190b14f964abc0542670bb6a6b452d3795b", "openai");

    @Override
    protected ProviderBuilder<?> newBuilder() {
        return OpenAiCompleter.builder().api(OpenAiCompleter.Api.RESPONSES);
    }

    @Override
    protected String expectedPath(boolean stream) {
        return "/v1/responses";
    }

    @Override
    protected String conversationRequest() {
        return """
                {"model":"gpt-test","instructions":"You are terse.",
                 "input":[
                  {"role":"user","content":[
                    {"type":"input_text","text":"What is in this picture?"},
                    {"type":"input_image","image_url":"data:image/png;base64,%s"}]},
                  {"role":"assistant","content":"Let me check."},
                  {"type":"function_call","call_id":"call_1","name":"get_weather","arguments":"{\\"city\\":\\"Paris\\"}"},
                  {"type":"function_call","call_id":"call_2","name":"get_time","arguments":"{\\"city\\":\\"Paris\\"}"},
                  {"type":"function_call_output","call_id":"call_1","output":"14°C and sunny"},
                  {"type":"function_call_output","call_id":"call_2","output":"time service unavailable"},
                  {"role":"user","content":[
                    {"type":"input_text","text":"And this one?"},
                    {"type":"input_image","image_url":"https://example.com/cat.jpg"}]}],
                 "tools":[
                  {"type":"function","name":"get_weather","description":"Get the current weather",
                   "parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]},"strict":false},
                  {"type":"function","name":"get_time","description":"Get the local time",
                   "parameters":{"type":"object","properties":{"city":{"type":"string"}}},"strict":false}],
                 "max_output_tokens":1024,"temperature":0.5,"store":false,"include":["reasoning.encrypted_content"]}
                """.formatted(Fixtures.PNG_BASE64);
    }

    @Override
    protected String streamFields() {
        return "{\"stream\":true}";
    }

    @Override
    protected String reply() {
        return REPLY;
    }

    @Override
    protected String streamedReply() {
        return STREAM;
    }

    @Override
    protected ModelResponse expectedReply() {
        return EXPECTED;
    }

    @Override
    protected String streamOf(String text) {
        String message = "{\"type\":\"message\",\"id\":\"msg_1\",\"status\":\"completed\",\"role\":\"assistant\","
                + "\"content\":[{\"type\":\"output_text\",\"text\":\"" + text + "\",\"annotations\":[]}]}";
        return event("response.created", "\"response\":{\"id\":\"resp_1\",\"status\":\"in_progress\",\"model\":\"m\","
                        + "\"output\":[]}")
                + event("response.output_item.added", "\"output_index\":0,\"item\":{\"type\":\"message\",\"id\":\"msg_1\","
                        + "\"status\":\"in_progress\",\"role\":\"assistant\",\"content\":[]}")
                + event("response.output_text.delta", "\"item_id\":\"msg_1\",\"output_index\":0,\"content_index\":0,"
                        + "\"delta\":\"" + text + "\"")
                + event("response.output_item.done", "\"output_index\":0,\"item\":" + message)
                + event("response.completed", "\"response\":{\"id\":\"resp_1\",\"object\":\"response\",\"status\":"
                        + "\"completed\",\"model\":\"m\",\"output\":[" + message + "],\"usage\":{\"input_tokens\":3,"
                        + "\"output_tokens\":1,\"total_tokens\":4}}");
    }

    @Override
    protected String errorEvent(String message) {
        return event("error", "\"code\":\"server_error\",\"message\":\"" + message + "\",\"param\":null");
    }
}
