package dev.shelly.providers.openai;

import static dev.shelly.providers.internal.WireSupport.count;
import static dev.shelly.providers.internal.WireSupport.invalid;
import static dev.shelly.providers.internal.WireSupport.text;

import dev.shelly.chats.Image;
import dev.shelly.chats.Message;
import dev.shelly.chats.Part;
import dev.shelly.chats.Role;
import dev.shelly.chats.Text;
import dev.shelly.chats.Thinking;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolDefinition;
import dev.shelly.chats.ToolResult;
import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.ModelException.Kind;
import dev.shelly.modeladapter.ModelOptions;
import dev.shelly.modeladapter.ModelOptions.Reasoning;
import dev.shelly.modeladapter.ModelOptions.ToolChoice;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.ResponseFormat;
import dev.shelly.modeladapter.StopReason;
import dev.shelly.modeladapter.StreamListener;
import dev.shelly.modeladapter.Usage;
import dev.shelly.provider.spi.ErrorResponse;
import dev.shelly.provider.spi.StreamDecoder;
import dev.shelly.provider.spi.WireFormat;
import dev.shelly.providers.internal.JsonObjectMemo;
import dev.shelly.providers.internal.WireSupport;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JsonGenerator;
import tools.jackson.databind.JsonNode;

/** OpenAI's Chat Completions API on the wire, as OpenAI, xAI and compatible servers speak it. */
final class ChatCompletionsFormat implements WireFormat {
    /** The origin of the reasoning text these servers return; it has no signature and is never sent back. */
    static final String ORIGIN = "openai-chat";
    /** OpenAI refuses a tool call id longer than 40 characters. */
    private static final int MAX_ID = 40;

    private static final Logger LOG = LoggerFactory.getLogger(ChatCompletionsFormat.class);

    /** Error codes and types that mean the account is out of quota, credit or spend: never retried. */
    private static final Set<String> QUOTA_CODES = Set.of("insufficient_quota", "credit_balance_exhausted",
            "organization_spend_limit_exceeded", "project_spend_limit_exceeded", "organization_usage_limit_exceeded",
            "billing_hard_limit_reached", "billing_not_active");

    private final String provider;
    private final String model;
    private final String maxTokensField;
    private final ModelOptions defaults;
    private final int maxStop;
    private final boolean checkRanges;
    private final JsonObjectMemo memo = new JsonObjectMemo();
    private volatile int lastSize = 4096;

    ChatCompletionsFormat(String provider, String model, String maxTokensField, ModelOptions defaults, int maxStop,
            boolean checkRanges) {
        this.provider = provider;
        this.model = model;
        this.maxTokensField = maxTokensField;
        this.defaults = defaults;
        this.maxStop = maxStop;
        this.checkRanges = checkRanges;
    }

    @Override
    public String provider() {
        return provider;
    }

    @Override
    public String model() {
        return model;
    }

    @Override
    public String path() {
        return "chat/completions";
    }

    // ---- request ------------------------------------------------------------------------

    @Override
    public byte[] request(ModelRequest request, boolean stream) {
        List<Message> messages = request.messages();
        List<ToolDefinition> tools = request.tools();
        ModelOptions options = request.options().orElse(defaults);
        check(options);
        byte[] body = WireSupport.write(lastSize, gen -> {
            gen.writeStartObject();
            gen.writeStringProperty("model", model);
            gen.writeName("messages");
            gen.writeStartArray();
            for (Message m : messages) {
                writeMessage(gen, m);
            }
            gen.writeEndArray();
            if (!tools.isEmpty()) {
                gen.writeName("tools");
                gen.writeStartArray();
                for (ToolDefinition t : tools) {
                    gen.writeStartObject();
                    gen.writeStringProperty("type", "function");
                    gen.writeName("function");
                    gen.writeStartObject();
                    WireSupport.writeToolFields(gen, t, "parameters", memo);
                    gen.writeEndObject();
                    gen.writeEndObject();
                }
                gen.writeEndArray();
                writeToolChoice(gen, options.toolChoice());
            }
            if (options.responseFormat() instanceof ResponseFormat.JsonSchema f) {
                gen.writeName("response_format");
                gen.writeStartObject();
                gen.writeStringProperty("type", "json_schema");
                gen.writeName("json_schema");
                gen.writeStartObject();
                gen.writeStringProperty("name", f.name());
                gen.writeName("schema");
                gen.writeRawValue(f.schema().strip());
                gen.writeBooleanProperty("strict", f.strict());
                gen.writeEndObject();
                gen.writeEndObject();
            }
            if (options.maxTokens() != null) {
                gen.writeNumberProperty(maxTokensField, options.maxTokens());
            }
            if (options.temperature() != null) {
                gen.writeName("temperature");
                gen.writeNumber(options.temperature());
            }
            if (options.topP() != null) {
                gen.writeName("top_p");
                gen.writeNumber(options.topP());
            }
            if (options.stop() != null && !options.stop().isEmpty()) {
                gen.writeName("stop");
                gen.writeStartArray();
                for (String stop : options.stop()) {
                    gen.writeString(stop);
                }
                gen.writeEndArray();
            }
            if (options.reasoning() instanceof Reasoning.Effort e) {
                gen.writeStringProperty("reasoning_effort", e.level());
            }
            if (stream) {
                gen.writeBooleanProperty("stream", true);
                gen.writeName("stream_options");
                gen.writeStartObject();
                gen.writeBooleanProperty("include_usage", true);
                gen.writeEndObject();
            }
            gen.writeEndObject();
        });
        lastSize = body.length;
        return body;
    }

    /** Refuses, before any HTTP, what this provider cannot take (plan: one rule, exact messages). */
    private void check(ModelOptions options) {
        if (options.reasoning() instanceof Reasoning.Budget b) {
            throw WireSupport.refusal(provider, "Reasoning.budget(" + b.tokens() + ") is not supported: this provider "
                    + "takes a reasoning effort, Reasoning.effort(\"low\"|\"medium\"|\"high\")");
        }
        if (maxStop > 0 && options.stop() != null && options.stop().size() > maxStop) {
            throw WireSupport.refusal(provider, "at most " + maxStop + " stop sequences, got " + options.stop().size());
        }
        WireSupport.checkOpenAiOptions(provider, options, checkRanges, memo);
    }

    private static void writeToolChoice(JsonGenerator gen, ToolChoice choice) {
        switch (choice) {
            case null -> { }
            case ToolChoice.Auto a -> gen.writeStringProperty("tool_choice", "auto");
            case ToolChoice.None n -> gen.writeStringProperty("tool_choice", "none");
            case ToolChoice.Required r -> gen.writeStringProperty("tool_choice", "required");
            case ToolChoice.Named n -> {
                gen.writeName("tool_choice");
                gen.writeStartObject();
                gen.writeStringProperty("type", "function");
                gen.writeName("function");
                gen.writeStartObject();
                gen.writeStringProperty("name", n.name());
                gen.writeEndObject();
                gen.writeEndObject();
            }
        }
    }

    private void writeMessage(JsonGenerator gen, Message m) {
        switch (m.role()) {
            case SYSTEM -> {
                gen.writeStartObject();
                gen.writeStringProperty("role", "system");
                gen.writeStringProperty("content", m.text());
                gen.writeEndObject();
            }
            case ASSISTANT -> writeAssistant(gen, m);
            case USER, TOOL -> {
                List<Image> resultImages = new ArrayList<>();
                for (Part p : m.parts()) {
                    if (p instanceof ToolResult r) {
                        writeToolResult(gen, r, resultImages);
                    }
                }
                List<Part> content = new ArrayList<>(m.parts().size() + resultImages.size());
                for (Part p : m.parts()) {
                    if ((p instanceof Text t && !t.text().isEmpty()) || (p instanceof Image && m.role() == Role.USER)) {
                        content.add(p);
                    } else if (!(p instanceof ToolResult)) {
                        LOG.debug("{}: not sending a {} part in a {} message", provider, p.kind(), m.role());
                    }
                }
                // A tool message carries text only: the images of tool results follow as a user message.
                content.addAll(resultImages);
                if (!content.isEmpty()) {
                    writeUser(gen, content);
                }
            }
        }
    }

    private static void writeUser(JsonGenerator gen, List<Part> content) {
        gen.writeStartObject();
        gen.writeStringProperty("role", "user");
        if (content.size() == 1 && content.getFirst() instanceof Text t) {
            gen.writeStringProperty("content", t.text());
        } else {
            gen.writeName("content");
            gen.writeStartArray();
            for (Part p : content) {
                gen.writeStartObject();
                if (p instanceof Text t) {
                    gen.writeStringProperty("type", "text");
                    gen.writeStringProperty("text", t.text());
                } else if (p instanceof Image i) {
                    gen.writeStringProperty("type", "image_url");
                    gen.writeName("image_url");
                    gen.writeStartObject();
                    gen.writeStringProperty("url", WireSupport.imageUrl(i));
                    gen.writeEndObject();
                }
                gen.writeEndObject();
            }
            gen.writeEndArray();
        }
        gen.writeEndObject();
    }

    private void writeAssistant(JsonGenerator gen, Message m) {
        String text = m.text();
        List<ToolCall> calls = m.toolCalls();
        if (text.isEmpty() && calls.isEmpty()) {
            LOG.debug("{}: not sending an assistant message with neither text nor tool calls", provider);
            return;
        }
        gen.writeStartObject();
        gen.writeStringProperty("role", "assistant");
        if (text.isEmpty()) {
            gen.writeNullProperty("content");
        } else {
            gen.writeStringProperty("content", text);
        }
        if (!calls.isEmpty()) {
            gen.writeName("tool_calls");
            gen.writeStartArray();
            for (ToolCall c : calls) {
                gen.writeStartObject();
                gen.writeStringProperty("id", WireSupport.wireId(c.id(), MAX_ID));
                gen.writeStringProperty("type", "function");
                gen.writeName("function");
                gen.writeStartObject();
                gen.writeStringProperty("name", c.name());
                gen.writeStringProperty("arguments", sendableArguments(c));
                gen.writeEndObject();
                gen.writeEndObject();
            }
            gen.writeEndArray();
        }
        gen.writeEndObject();
    }

    /**
     * The call's arguments as the server accepts them back: the model's text when it is one JSON
     * object, else {@code {}}. Strict servers (llama.cpp's server, vLLM) parse the arguments of
     * every assistant message and refuse the whole request when they cannot, which would leave the
     * conversation stuck for good; the model still sees what it wrote in the error result the tool
     * box gives the call.
     */
    private String sendableArguments(ToolCall call) {
        if (memo.isJsonObject(call.arguments())) {
            return call.arguments();
        }
        LOG.debug("{}: tool call {} has arguments that are not a JSON object; sending {{}}", provider, call.id());
        return "{}";
    }

    private static void writeToolResult(JsonGenerator gen, ToolResult r, List<Image> images) {
        gen.writeStartObject();
        gen.writeStringProperty("role", "tool");
        gen.writeStringProperty("tool_call_id", WireSupport.wireId(r.toolCallId(), MAX_ID));
        gen.writeStringProperty("content", r.text());
        gen.writeEndObject();
        for (Part p : r.content()) {
            if (p instanceof Image i) {
                images.add(i);
            }
        }
    }

    // ---- reply --------------------------------------------------------------------------

    @Override
    public ModelResponse reply(byte[] body, ModelRequest request) {
        JsonNode root = WireSupport.parseObject(provider, body, "the reply");
        if (root.hasNonNull("error")) {
            throw inStreamError(root);
        }
        JsonNode choices = root.get("choices");
        if (choices == null || !choices.isArray() || choices.isEmpty()) {
            throw invalid(provider, "the reply has no choices", null);
        }
        JsonNode choice = choices.get(0);
        JsonNode message = choice.path("message");
        List<Part> parts = new ArrayList<>();
        String reasoning = reasoning(message);
        if (reasoning != null && !reasoning.isEmpty()) {
            parts.add(Thinking.of(reasoning, null).withOrigin(ORIGIN));
        }
        String refusal = text(message, "refusal");
        String text = content(message.get("content")) + (refusal == null ? "" : refusal);
        if (!text.isEmpty()) {
            parts.add(new Text(text));
        }
        JsonNode calls = message.get("tool_calls");
        if (calls != null && calls.isArray()) {
            for (int i = 0; i < calls.size(); i++) {
                JsonNode call = calls.get(i);
                JsonNode function = call.path("function");
                ToolCall c = toolCall(i, text(call, "id"), text(function, "name"), arguments(function.get("arguments")));
                if (c != null) {
                    parts.add(c);
                }
            }
        }
        String finish = text(choice, "finish_reason");
        return WireSupport.reply(provider, parts, text(root, "model"), text(root, "id"),
                stopReason(finish, refusal != null && !refusal.isEmpty(), hasToolCalls(parts)), finish,
                usage(root.get("usage")));
    }

    /** The reasoning text: {@code reasoning_content} (xAI, DeepSeek, llama.cpp) or {@code reasoning} (vLLM). */
    static String reasoning(JsonNode node) {
        String r = text(node, "reasoning_content");
        return r != null ? r : text(node, "reasoning");
    }

    /** Message content: a string, or (some servers) an array of text parts. */
    private static String content(JsonNode content) {
        if (content == null || content.isNull()) {
            return "";
        }
        if (content.isString()) {
            return content.stringValue();
        }
        StringBuilder sb = new StringBuilder();
        if (content.isArray()) {
            for (JsonNode part : content) {
                String t = text(part, "text");
                if (t != null) {
                    sb.append(t);
                }
            }
        }
        return sb.toString();
    }

    /** Arguments as the model wrote them: a JSON string (OpenAI), or an object (some servers). */
    static String arguments(JsonNode arguments) {
        if (arguments == null || arguments.isNull()) {
            return "";
        }
        return arguments.isString() ? arguments.stringValue() : WireSupport.compact(arguments);
    }

    /**
     * A tool call from the reply, with a made-up id when the server sent none (some local
     * servers do), or null (logged) when it names no tool.
     */
    ToolCall toolCall(int position, String id, String name, String arguments) {
        if (name == null || name.isBlank()) {
            LOG.warn("{}: dropping tool call {} of the reply: it names no tool", provider, position);
            return null;
        }
        return new ToolCall(id == null || id.isBlank() ? "call_" + position : id, name, arguments);
    }

    static boolean hasToolCalls(List<Part> parts) {
        for (Part p : parts) {
            if (p instanceof ToolCall) {
                return true;
            }
        }
        return false;
    }

    static StopReason stopReason(String finish, boolean refused, boolean toolCalls) {
        if (refused) {
            return StopReason.REFUSAL;
        }
        if (toolCalls && (finish == null || finish.equals("stop"))) {
            return StopReason.TOOL_USE; // some servers say "stop" although the reply calls tools
        }
        if (finish == null) {
            return null;
        }
        return switch (finish) {
            case "stop" -> StopReason.END_TURN;
            case "length" -> StopReason.MAX_TOKENS;
            case "tool_calls", "function_call" -> StopReason.TOOL_USE;
            case "content_filter" -> StopReason.CONTENT_FILTER;
            default -> StopReason.OTHER;
        };
    }

    /**
     * Usage in neutral terms. Cached prompt tokens are part of {@code prompt_tokens}; reasoning
     * tokens are part of {@code completion_tokens} at OpenAI but counted apart at xAI, where
     * {@code total_tokens} shows them: output is what the total holds beyond the prompt.
     */
    static Usage usage(JsonNode usage) {
        if (usage == null || !usage.isObject()) {
            return null;
        }
        long prompt = orZero(count(usage, "prompt_tokens"));
        long completion = orZero(count(usage, "completion_tokens"));
        Long total = count(usage, "total_tokens");
        long cached = orZero(count(usage.path("prompt_tokens_details"), "cached_tokens"));
        long output = total != null && total > prompt + completion ? total - prompt : completion;
        long reasoning = orZero(count(usage.path("completion_tokens_details"), "reasoning_tokens"));
        return new Usage(Math.max(0, prompt - cached), output, Math.min(cached, prompt), 0, Math.min(reasoning, output));
    }

    private static long orZero(Long v) {
        return v == null ? 0 : v;
    }

    // ---- streaming ----------------------------------------------------------------------

    @Override
    public StreamDecoder decoder(ModelRequest request, StreamListener listener) {
        return new ChatCompletionsStreamDecoder(this, listener);
    }

    // ---- errors -------------------------------------------------------------------------

    /** The fields of an error body in any of the shapes servers send. */
    private record ErrorFields(String message, String type, String code) {}

    private static ErrorFields fields(JsonNode root) {
        if (root == null || !root.isObject()) {
            return new ErrorFields(null, null, null);
        }
        JsonNode error = root.get("error");
        if (error != null && error.isObject()) { // OpenAI: {"error": {"message", "type", "code", "param"}}
            return new ErrorFields(text(error, "message"), text(error, "type"), code(error.get("code")));
        }
        if (error != null && error.isString()) { // xAI: {"code": "...", "error": "..."}
            return new ErrorFields(error.stringValue(), null, code(root.get("code")));
        }
        // vLLM before 0.16: {"object": "error", "message", "type", "code"}; others: {"message"}
        return new ErrorFields(text(root, "message"), text(root, "type"), code(root.get("code")));
    }

    private static String code(JsonNode code) {
        return code == null || code.isNull() ? null : code.isString() ? code.stringValue() : code.asString();
    }

    @Override
    public ModelException error(ErrorResponse response) {
        return openAiError(response);
    }

    /**
     * An OpenAI-style error response as a failure: the same body shapes serve Chat Completions
     * and the Responses API.
     */
    static ModelException openAiError(ErrorResponse response) {
        ErrorFields f = fields(WireSupport.tryParse(response.body()));
        Kind kind = kind(f, response.status());
        return response.toException(kind, f.message() != null ? f.message() : response.bodyExcerpt(),
                response.header("x-request-id").orElse(null)).build();
    }

    /** An error object in a stream or in a body that came with HTTP 200. */
    ModelException inStreamError(JsonNode root) {
        return inStreamError(provider, root);
    }

    /** An OpenAI-style error object that came with HTTP 200, for any provider name. */
    static ModelException inStreamError(String provider, JsonNode root) {
        ErrorFields f = fields(root);
        return ModelException.builder(kind(f, 0)).provider(provider)
                .providerMessage(f.message() != null ? f.message() : "an error occurred during streaming")
                .build();
    }

    static Kind kind(ErrorFields f, int status) {
        String message = f.message() == null ? "" : f.message().toLowerCase(Locale.ROOT);
        String type = f.type() == null ? "" : f.type();
        String code = f.code() == null ? "" : f.code();
        // xAI says it only in words, with HTTP 429 or 403: "Your team ... has either used all
        // available credits or reached its monthly spending limit."
        if (QUOTA_CODES.contains(code) || QUOTA_CODES.contains(type) || message.contains("used all available credits")
                || message.contains("monthly spending limit")) {
            return Kind.QUOTA_EXCEEDED;
        }
        if (WireSupport.contextOverflow(type, code, message)) {
            return Kind.CONTEXT_LENGTH_EXCEEDED;
        }
        if (message.startsWith("request too large")) {
            return Kind.INVALID_REQUEST; // larger than the per-minute limit itself: waiting never helps
        }
        if (code.equals("invalid_api_key") || message.startsWith("incorrect api key")) {
            return Kind.AUTHENTICATION;
        }
        if (code.equals("model_not_found")) {
            return Kind.NOT_FOUND;
        }
        if (status == 503 && (message.contains("overloaded") || message.contains("slow down")
                || code.contains("overloaded"))) {
            return Kind.OVERLOADED;
        }
        if (status != 0) {
            return ErrorResponse.kindForStatus(status);
        }
        if (code.matches("[45]\\d\\d")) {
            // An error after HTTP 200 that names the status it stands for (vLLM: "code": 400).
            return ErrorResponse.kindForStatus(Integer.parseInt(code));
        }
        return switch (type) {
            case "invalid_request_error" -> Kind.INVALID_REQUEST;
            case "authentication_error" -> Kind.AUTHENTICATION;
            case "rate_limit_error", "tokens", "requests" -> Kind.RATE_LIMITED;
            default -> code.equals("rate_limit_exceeded") ? Kind.RATE_LIMITED : Kind.SERVER;
        };
    }
}
