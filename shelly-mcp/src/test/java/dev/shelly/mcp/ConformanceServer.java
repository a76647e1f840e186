package dev.shelly.mcp;

import dev.shelly.chats.Image;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolContext;
import dev.shelly.tools.ToolOutput;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.json.JsonMapper;

/**
 * The server the conformance suite's server scenarios expect (its "everything server"), made
 * with {@link McpToolServer}'s public API only. {@link #main} serves it on a port for running the
 * suite by hand: {@code npx @modelcontextprotocol/conformance server --url http://localhost:PORT/mcp}.
 */
final class ConformanceServer {
    static final String IMAGE = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
    static final String AUDIO = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";
    private static final String EMPTY = "{\"type\":\"object\",\"properties\":{}}";
    private static final Duration ASK = Duration.ofSeconds(20);
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private ConformanceServer() {}

    static McpToolServer build() {
        ToolBox box = new ToolBox();
        box.register(
                Tool.of("test_simple_text", "Tests simple text content response", EMPTY,
                        (in, ctx) -> ToolOutput.text("This is a simple text response for testing.")),
                Tool.of("test_image_content", "Tests image content response", EMPTY,
                        (in, ctx) -> ToolOutput.of(Image.ofBase64(IMAGE, "image/png"))),
                Tool.of("test_audio_content", "Tests audio content response", EMPTY,
                        (in, ctx) -> reply(ctx, List.of(new McpBlock.Audio(AUDIO, "audio/wav")))),
                Tool.of("test_embedded_resource", "Tests embedded resource content response", EMPTY,
                        (in, ctx) -> reply(ctx, List.of(new McpBlock.Embedded(McpResource.Contents.text(
                                "test://embedded-resource", "text/plain", "This is an embedded resource content."))))),
                Tool.of("test_multiple_content_types", "Tests response with multiple content types (text, image, resource)",
                        EMPTY, (in, ctx) -> reply(ctx, List.of(new McpBlock.Text("Multiple content types test:"),
                                new McpBlock.Image(IMAGE, "image/png"),
                                new McpBlock.Embedded(McpResource.Contents.text("test://mixed-content-resource",
                                        "application/json", "{\"test\":\"data\",\"value\":123}"))))),
                Tool.of("test_tool_with_logging", "Tests tool that emits log messages during execution", EMPTY, (in, ctx) -> {
                    McpServerCall call = McpServerCall.of(ctx).orElseThrow();
                    call.log(McpServerCall.Level.INFO, null, "Tool execution started");
                    call.log(McpServerCall.Level.INFO, null, "Tool processing data");
                    call.log(McpServerCall.Level.INFO, null, "Tool execution completed");
                    return ToolOutput.text("Tool with logging executed successfully");
                }),
                Tool.of("test_tool_with_progress", "Tests tool that reports progress notifications", EMPTY, (in, ctx) -> {
                    McpServerCall call = McpServerCall.of(ctx).orElseThrow();
                    for (int step : new int[] {0, 50, 100}) {
                        call.progress(step, 100.0, "Completed step " + step + " of 100");
                    }
                    return ToolOutput.text("progress reported");
                }),
                Tool.of("test_reconnection", "Closes its event stream mid-call; the client resumes it (SEP-1699)", EMPTY,
                        (in, ctx) -> {
                            McpServerCall.of(ctx).orElseThrow().closeStream();
                            Thread.sleep(100);
                            return ToolOutput.text("Reconnection test completed successfully. If you received this,"
                                    + " the client properly reconnected after stream closure.");
                        }),
                Tool.of("test_error_handling", "Tests error response handling", EMPTY, (in, ctx) -> {
                    throw new IllegalStateException("This tool intentionally returns an error for testing");
                }),
                Tool.of("test_sampling", "Tests server-initiated sampling (LLM completion request)",
                        "{\"type\":\"object\",\"properties\":{\"prompt\":{\"type\":\"string\"}},\"required\":[\"prompt\"]}",
                        (in, ctx) -> {
                            McpToolClient.Sampling.Reply sampled = McpServerCall.of(ctx).orElseThrow().sample(null,
                                    List.of(McpPrompt.Message.user(new McpBlock.Text(in.get("prompt").asString()))), 100, ASK);
                            return ToolOutput.text("LLM response: " + sampled.text());
                        }),
                Tool.of("test_elicitation", "Tests server-initiated elicitation (user input request)",
                        "{\"type\":\"object\",\"properties\":{\"message\":{\"type\":\"string\"}},\"required\":[\"message\"]}",
                        (in, ctx) -> elicit(ctx, in.get("message").asString(), Map.of("type", "object",
                                "properties", Map.of("response", Map.of("type", "string", "description", "User's response")),
                                "required", List.of("response")), "User response")),
                Tool.of("test_elicitation_sep1034_defaults", "Tests elicitation with default values per SEP-1034", EMPTY,
                        (in, ctx) -> elicit(ctx, "Please review and update the form fields with defaults", schema("""
                                {"type":"object","properties":{
                                 "name":{"type":"string","description":"User name","default":"John Doe"},
                                 "age":{"type":"integer","description":"User age","default":30},
                                 "score":{"type":"number","description":"User score","default":95.5},
                                 "status":{"type":"string","description":"User status","enum":["active","inactive","pending"],
                                           "default":"active"},
                                 "verified":{"type":"boolean","description":"Verification status","default":true}},
                                 "required":[]}"""), "Elicitation completed")),
                Tool.of("test_elicitation_sep1330_enums", "Tests elicitation with enum schema improvements per SEP-1330", EMPTY,
                        (in, ctx) -> elicit(ctx, "Please select options from the enum fields", schema("""
                                {"type":"object","properties":{
                                 "untitledSingle":{"type":"string","description":"Select one option",
                                                   "enum":["option1","option2","option3"]},
                                 "titledSingle":{"type":"string","description":"Select one option with titles","oneOf":[
                                   {"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"},
                                   {"const":"value3","title":"Third Option"}]},
                                 "legacyEnum":{"type":"string","description":"Select one option (legacy)",
                                   "enum":["opt1","opt2","opt3"],"enumNames":["Option One","Option Two","Option Three"]},
                                 "untitledMulti":{"type":"array","description":"Select multiple options","minItems":1,
                                   "maxItems":3,"items":{"type":"string","enum":["option1","option2","option3"]}},
                                 "titledMulti":{"type":"array","description":"Select multiple options with titles",
                                   "minItems":1,"maxItems":3,"items":{"anyOf":[{"const":"value1","title":"First Choice"},
                                   {"const":"value2","title":"Second Choice"},{"const":"value3","title":"Third Choice"}]}}},
                                 "required":[]}"""), "Elicitation completed")),
                Tool.of("json_schema_2020_12_tool", "Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)", """
                        {"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",
                         "$defs":{"address":{"type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},
                         "properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"}},
                         "additionalProperties":false}""",
                        (in, ctx) -> ToolOutput.text("JSON Schema 2020-12 tool called with: " + in)));
        return McpToolServer.builder(box).serverInfo("shelly-conformance-server", "1.0.0")
                .resource(new McpResource("test://static-text", "static-text", "Static Text Resource",
                        "A static text resource for testing", "text/plain", (uri, vars) -> List.of(McpResource.Contents.text(
                                uri, "text/plain", "This is the content of the static text resource."))))
                .resource(new McpResource("test://static-binary", "static-binary", "Static Binary Resource",
                        "A static binary resource (image) for testing", "image/png",
                        (uri, vars) -> List.of(McpResource.Contents.blob(uri, "image/png", IMAGE))))
                .resource(new McpResource("test://template/{id}/data", "template", "Resource Template",
                        "A resource template with parameter substitution", "application/json",
                        (uri, vars) -> List.of(McpResource.Contents.text(uri, "application/json",
                                "{\"id\":\"" + vars.get("id") + "\",\"templateTest\":true,\"data\":\"Data for ID: "
                                        + vars.get("id") + "\"}"))))
                .resource(new McpResource("test://watched-resource", "watched-resource", "Watched Resource",
                        "A resource that changes", "text/plain",
                        (uri, vars) -> List.of(McpResource.Contents.text(uri, "text/plain", "Watched resource content"))))
                .prompt(new McpPrompt("test_simple_prompt", "Simple Test Prompt", "A simple prompt without arguments",
                        List.of(), args -> List.of(McpPrompt.Message.user(
                                new McpBlock.Text("This is a simple prompt for testing.")))))
                .prompt(new McpPrompt("test_prompt_with_arguments", "Prompt With Arguments", "A prompt with required arguments",
                        List.of(new McpPrompt.Argument("arg1", "First test argument", true),
                                new McpPrompt.Argument("arg2", "Second test argument", true)),
                        args -> List.of(McpPrompt.Message.user(new McpBlock.Text("Prompt with arguments: arg1='"
                                + args.get("arg1") + "', arg2='" + args.get("arg2") + "'")))))
                .prompt(new McpPrompt("test_prompt_with_embedded_resource", "Prompt With Embedded Resource",
                        "A prompt that includes an embedded resource",
                        List.of(new McpPrompt.Argument("resourceUri", "URI of the resource to embed", true)),
                        args -> List.of(
                                McpPrompt.Message.user(new McpBlock.Embedded(McpResource.Contents.text(args.get("resourceUri"),
                                        "text/plain", "Embedded resource content for testing."))),
                                McpPrompt.Message.user(new McpBlock.Text("Please process the embedded resource above.")))))
                .prompt(new McpPrompt("test_prompt_with_image", "Prompt With Image", "A prompt that includes image content",
                        List.of(), args -> List.of(McpPrompt.Message.user(new McpBlock.Image(IMAGE, "image/png")),
                                McpPrompt.Message.user(new McpBlock.Text("Please analyze the image above.")))))
                .completion("test_prompt_with_arguments", (argument, value) -> List.of(value + "-one", value + "-two")
                        .stream().filter(v -> argument.equals("arg1")).toList())
                .build();
    }

    private static ToolOutput reply(ToolContext ctx, List<McpBlock> blocks) {
        McpServerCall.of(ctx).orElseThrow().reply(blocks, null);
        return ToolOutput.text("(sent as MCP content)");
    }

    private static ToolOutput elicit(ToolContext ctx, String message, Map<String, Object> schema, String heading)
            throws InterruptedException {
        McpElicitation.Answer answer = McpServerCall.of(ctx).orElseThrow().elicit(message, schema, ASK);
        return ToolOutput.text(heading + ": action=" + answer.action().name().toLowerCase(java.util.Locale.ROOT)
                + ", content=" + JSON.writeValueAsString(answer.content()));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> schema(String json) {
        return JSON.readValue(json, LinkedHashMap.class);
    }

    public static void main(String[] args) throws InterruptedException {
        McpToolServer server = build().startHttp(args.length == 0 ? 3001 : Integer.parseInt(args[0]));
        System.err.println("conformance server at " + server.url().orElseThrow());
        server.awaitTermination();
    }
}
