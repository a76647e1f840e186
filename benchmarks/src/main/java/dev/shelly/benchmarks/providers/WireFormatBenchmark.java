package dev.shelly.benchmarks.providers;

import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.chats.Text;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolDefinition;
import dev.shelly.chats.ToolResult;
import dev.shelly.modeladapter.ModelOptions;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.provider.spi.WireFormat;
import dev.shelly.providers.anthropic.AnthropicCompleter;
import dev.shelly.providers.openai.OpenAiCompleter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Translating a 50-message chat to a provider's request body, and parsing a provider's reply,
 * against the baselines of serialising the same JSON tree, and parsing the same reply into a
 * tree, with Jackson directly. Grok and OpenAI-compatible servers use the OpenAI format.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class WireFormatBenchmark {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** The provider whose wire format is measured. */
    @Param({"anthropic", "openai"})
    public String provider;

    private WireFormat format;
    private ModelRequest request;
    private List<ToolDefinition> tools;
    private JsonNode requestTree;
    private byte[] reply;

    /** Builds the chat, the format, the request tree and the reply once. */
    @Setup
    public void setUp() {
        tools = List.of(
                new ToolDefinition("read_file", "Read a file of the workspace",
                        "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"}},\"required\":[\"path\"]}"),
                new ToolDefinition("search", "Search the workspace for a pattern",
                        "{\"type\":\"object\",\"properties\":{\"pattern\":{\"type\":\"string\"},"
                                + "\"limit\":{\"type\":\"integer\",\"minimum\":1}},\"required\":[\"pattern\"]}"),
                new ToolDefinition("write_file", "Write a file of the workspace",
                        "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},"
                                + "\"content\":{\"type\":\"string\"}},\"required\":[\"path\",\"content\"]}"));
        Chat chat = fiftyMessages();
        request = new ModelRequest(chat.messages(), tools, ModelOptions.NONE, chat.id());
        format = switch (provider) {
            case "anthropic" -> AnthropicCompleter.builder().model("claude-sonnet-4-5").maxTokens(4096).wireFormat();
            case "openai" -> OpenAiCompleter.builder().model("gpt-4o").maxTokens(4096).wireFormat();
            default -> throw new IllegalArgumentException("unknown provider " + provider);
        };
        requestTree = JSON.readTree(format.request(request, false));
        reply = (provider.equals("anthropic") ? ANTHROPIC_REPLY : OPENAI_REPLY).getBytes(StandardCharsets.UTF_8);
        format.reply(reply, request); // fail early if the fixture is wrong
    }

    static Chat fiftyMessages() {
        List<Message> messages = new ArrayList<>();
        messages.add(Message.system("You are a careful coding assistant. Read before you write; keep changes small. "
                .repeat(4)));
        for (int i = 0; messages.size() < 49; i++) {
            messages.add(Message.user("Step " + i + ": please look at src/module" + i
                    + "/Main.java and tell me what the method handle() does, and whether it closes its resources. "));
            messages.add(Message.of("bot", Role.ASSISTANT,
                    new Text("I will read the file and search for its callers before answering, step " + i + "."),
                    new ToolCall("call_" + i + "_a", "read_file", "{\"path\":\"src/module" + i + "/Main.java\"}"),
                    new ToolCall("call_" + i + "_b", "search", "{\"pattern\":\"handle\\\\(\",\"limit\":20}")));
            messages.add(Message.of("tools", Role.TOOL,
                    ToolResult.of("call_" + i + "_a", ("public final class Main {\n  void handle() {\n"
                            + "    try (var in = open()) { process(in); }\n  }\n}\n").repeat(3)),
                    i % 5 == 0 ? ToolResult.error("call_" + i + "_b", "search failed: pattern too broad")
                            : ToolResult.of("call_" + i + "_b", "src/module" + i + "/Caller.java:12: main.handle();")));
        }
        messages.add(Message.user("Thanks. Now summarise what you found in three sentences."));
        return new Chat(messages);
    }

    /** Our translation of the request to a request body. */
    @Benchmark
    public byte[] translateRequest() {
        return format.request(request, false);
    }

    /** Baseline: Jackson serialising the same request as a ready-made tree. */
    @Benchmark
    public byte[] serialiseTreeBaseline() {
        return JSON.writeValueAsBytes(requestTree);
    }

    /** Our parsing of a reply into a response. */
    @Benchmark
    public ModelResponse parseReply() {
        return format.reply(reply, request);
    }

    /** Baseline: Jackson parsing the same reply into a tree. */
    @Benchmark
    public JsonNode parseTreeBaseline() {
        return JSON.readTree(reply);
    }

    static final String ANTHROPIC_REPLY = """
            {"id":"msg_01XFDUDYJgAACzvnptvVoYEL","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929",
             "content":[
              {"type":"thinking","thinking":"The user wants a summary; I should check one more caller first.","signature":"EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"},
              {"type":"text","text":"The method handle() opens a resource with try-with-resources, so it is always closed. Let me confirm the callers."},
              {"type":"tool_use","id":"toolu_01A09q90qw90lq917835lq9","name":"read_file","input":{"path":"src/module3/Caller.java"}},
              {"type":"tool_use","id":"toolu_01A09q90qw90lq917835lq8","name":"search","input":{"pattern":"open\\\\(","limit":5}}],
             "stop_reason":"tool_use","stop_sequence":null,
             "usage":{"input_tokens":2095,"output_tokens":503,"cache_creation_input_tokens":0,"cache_read_input_tokens":1800}}
            """;

    static final String OPENAI_REPLY = """
            {"id":"chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT","object":"chat.completion","created":1741569952,
             "model":"gpt-4o-2024-08-06","choices":[{"index":0,"message":{"role":"assistant",
              "content":"The method handle() opens a resource with try-with-resources, so it is always closed. Let me confirm the callers.",
              "refusal":null,"tool_calls":[
               {"id":"call_DdmO9pD3xa9XTPNJ32zg2hcA","type":"function","function":{"name":"read_file","arguments":"{\\"path\\":\\"src/module3/Caller.java\\"}"}},
               {"id":"call_DdmO9pD3xa9XTPNJ32zg2hcB","type":"function","function":{"name":"search","arguments":"{\\"pattern\\":\\"open\\\\\\\\(\\",\\"limit\\":5}"}}],
              "annotations":[]},"logprobs":null,"finish_reason":"tool_calls"}],
             "usage":{"prompt_tokens":2095,"completion_tokens":503,"total_tokens":2598,
              "prompt_tokens_details":{"cached_tokens":1800,"audio_tokens":0},
              "completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}},
             "service_tier":"default","system_fingerprint":"fp_fc9f1d7035"}
            """;
}
