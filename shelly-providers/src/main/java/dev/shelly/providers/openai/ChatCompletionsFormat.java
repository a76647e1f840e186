package dev.shelly.providers.openai;

import static dev.shelly.providers.internal.WireSupport.count;
import static dev.shelly.providers.internal.WireSupport.invalid;
import static dev.shelly.providers.internal.WireSupport.text;

import dev.shelly.chats.Message;
import dev.shelly.chats.Part;
import dev.shelly.chats.Text;
import dev.shelly.chats.Thinking;
import dev.shelly.chats.ToolCall;
import dev.shelly.modeladapter.ModelOptions;
import dev.shelly.modeladapter.ModelOptions.Reasoning;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.StopReason;
import dev.shelly.modeladapter.StreamListener;
import dev.shelly.modeladapter.Usage;
import dev.shelly.provider.spi.StreamDecoder;
import dev.shelly.providers.internal.WireSupport;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JsonGenerator;
import tools.jackson.databind.JsonNode;

/** OpenAI's Chat Completions API on the wire, as OpenAI, xAI and compatible servers speak it. */
final class ChatCompletionsFormat extends OpenAiFormat {
    /** The origin of the reasoning text these servers return; it has no signature and is never sent back. */
    static final String ORIGIN = "openai-chat";

    private static final Logger LOG = LoggerFactory.getLogger(ChatCompletionsFormat.class);

    private final int maxStop;

    ChatCompletionsFormat(String provider, String model, String maxTokensField, ModelOptions defaults, int maxStop,
            boolean checkRanges) {
        super(OpenAiCompleter.Api.CHAT_COMPLETIONS, provider, model, defaults, maxTokensField, checkRanges);
        this.maxStop = maxStop;
    }

    @Override
    public String path() {
        return "chat/completions";
    }

    // ---- request ------------------------------------------------------------------------

    @Override
    void checkStop(List<String> stop) {
        if (maxStop > 0 && stop != null && stop.size() > maxStop) {
            throw WireSupport.refusal(provider, "at most " + maxStop + " stop sequences, got " + stop.size());
        }
    }

    @Override
    void writeMessages(JsonGenerator gen, List<Message> messages) {
        gen.writeName("messages");
        writeConversation(gen, messages);
    }

    @Override
    void writeSystem(JsonGenerator gen, Message m) {
        gen.writeStartObject();
        gen.writeStringProperty("role", "system");
        gen.writeStringProperty("content", m.text());
        gen.writeEndObject();
    }

    @Override
    void writeLast(JsonGenerator gen, ModelOptions options, boolean stream) {
        WireSupport.writeStrings(gen, "stop", options.stop());
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
    }

    @Override
    void writeAssistant(JsonGenerator gen, Message m) {
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
                gen.writeStringProperty("id", wireId(c.id()));
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

    /** The reasoning text of a message or a delta (see {@link #reasoning(String, String)}). */
    static String reasoning(JsonNode node) {
        return reasoning(text(node, "reasoning_content"), text(node, "reasoning"));
    }

    /**
     * The reasoning text, from the values (null for none) of {@code reasoning_content} (xAI,
     * DeepSeek, llama.cpp) and {@code reasoning} (vLLM): the first when there is one.
     */
    static String reasoning(String reasoningContent, String reasoning) {
        return reasoningContent != null ? reasoningContent : reasoning;
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
        return usage(orNone(count(usage, "prompt_tokens")), orNone(count(usage, "completion_tokens")),
                orNone(count(usage, "total_tokens")), orNone(count(usage.path("prompt_tokens_details"), "cached_tokens")),
                orNone(count(usage.path("completion_tokens_details"), "reasoning_tokens")));
    }

    /** The usage of counts read as {@link WireSupport#count} reads them, -1 for none. */
    static Usage usage(long promptCount, long completionCount, long total, long cachedCount, long reasoningCount) {
        long prompt = Math.max(0, promptCount);
        long completion = Math.max(0, completionCount);
        long cached = Math.max(0, cachedCount);
        long output = total >= 0 && total > prompt + completion ? total - prompt : completion;
        long reasoning = Math.max(0, reasoningCount);
        return new Usage(Math.max(0, prompt - cached), output, Math.min(cached, prompt), 0, Math.min(reasoning, output));
    }

    private static long orNone(Long count) {
        return count == null ? -1 : count;
    }

    // ---- streaming ----------------------------------------------------------------------

    @Override
    public StreamDecoder decoder(ModelRequest request, StreamListener listener) {
        return new ChatCompletionsStreamDecoder(this, listener);
    }

}
