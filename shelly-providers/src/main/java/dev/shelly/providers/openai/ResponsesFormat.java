package dev.shelly.providers.openai;

import static dev.shelly.providers.internal.WireSupport.count;
import static dev.shelly.providers.internal.WireSupport.invalid;
import static dev.shelly.providers.internal.WireSupport.orZero;
import static dev.shelly.providers.internal.WireSupport.text;

import dev.shelly.chats.Message;
import dev.shelly.chats.Part;
import dev.shelly.chats.Role;
import dev.shelly.chats.Text;
import dev.shelly.chats.Thinking;
import dev.shelly.chats.ToolCall;
import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.ModelException.Kind;
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

/**
 * OpenAI's Responses API ({@code POST <base>/responses}) on the wire, used statelessly:
 * {@code store: false}, and {@code include: ["reasoning.encrypted_content"]} so that reasoning
 * items come back encrypted and go back with the next request.
 *
 * <p>A reasoning item becomes a {@link Thinking} part whose text is its summary and whose
 * signature is {@code <item id>:<encrypted_content>}; the request writer turns it back into the
 * same reasoning item. Reasoning without encrypted content cannot be sent back statelessly and
 * is left out of requests.
 */
final class ResponsesFormat extends OpenAiFormat {
    private static final Logger LOG = LoggerFactory.getLogger(ResponsesFormat.class);

    /**
     * The origin of this provider's reasoning items, {@code openai-responses:<provider>}: encrypted
     * reasoning is readable only by the organisation (or Azure resource) that made it, so a
     * provider of another name does not get it.
     */
    static final String ORIGIN_PREFIX = "openai-responses:";

    private final String origin;

    ResponsesFormat(String provider, String model, ModelOptions defaults, boolean checkRanges) {
        super(OpenAiCompleter.Api.RESPONSES, provider, model, defaults, "max_output_tokens", checkRanges);
        this.origin = ORIGIN_PREFIX + provider;
    }

    @Override
    public String path() {
        return "responses";
    }

    // ---- request ------------------------------------------------------------------------

    @Override
    void checkStop(List<String> stop) {
        if (stop != null && !stop.isEmpty()) {
            throw WireSupport.refusal(provider, "stop sequences cannot be sent: the Responses API has no stop parameter");
        }
    }

    @Override
    void writeMessages(JsonGenerator gen, List<Message> messages) {
        StringBuilder system = new StringBuilder();
        for (Message m : messages) {
            if (m.role() == Role.SYSTEM && !m.text().isBlank()) {
                system.append(system.isEmpty() ? "" : "\n\n").append(m.text());
            }
        }
        if (!system.isEmpty()) {
            gen.writeStringProperty("instructions", system.toString());
        }
        gen.writeName("input");
        writeConversation(gen, messages);
    }

    /** The system messages went to {@code instructions}. */
    @Override
    void writeSystem(JsonGenerator gen, Message m) {}

    @Override
    void writeLast(JsonGenerator gen, ModelOptions options, boolean stream) {
        if (options.reasoning() instanceof Reasoning.Effort e) {
            gen.writeName("reasoning");
            gen.writeStartObject();
            gen.writeStringProperty("effort", e.level());
            gen.writeEndObject();
        }
        gen.writeBooleanProperty("store", false);
        gen.writeName("include");
        gen.writeStartArray();
        gen.writeString("reasoning.encrypted_content");
        gen.writeEndArray();
        if (stream) {
            gen.writeBooleanProperty("stream", true);
        }
    }

    /**
     * The assistant's parts as items, in their order: reasoning items (from {@link Thinking}
     * parts that carry an encrypted reasoning item), the text as an assistant message, and each
     * tool call as a {@code function_call}.
     */
    @Override
    void writeAssistant(JsonGenerator gen, Message m) {
        StringBuilder text = new StringBuilder();
        for (Part p : m.parts()) {
            switch (p) {
                case Thinking t -> {
                    String[] item = WireSupport.ownOrUnknown(t, origin) ? reasoningItem(t) : null;
                    if (item == null) {
                        LOG.debug("{}: not sending reasoning without an encrypted reasoning item of this provider", provider);
                        continue;
                    }
                    flushText(gen, text);
                    gen.writeStartObject();
                    gen.writeStringProperty("type", "reasoning");
                    gen.writeStringProperty("id", item[0]);
                    gen.writeName("summary");
                    gen.writeStartArray();
                    if (!t.text().isEmpty()) {
                        gen.writeStartObject();
                        gen.writeStringProperty("type", "summary_text");
                        gen.writeStringProperty("text", t.text());
                        gen.writeEndObject();
                    }
                    gen.writeEndArray();
                    gen.writeStringProperty("encrypted_content", item[1]);
                    gen.writeEndObject();
                }
                case Text t -> text.append(t.text());
                case ToolCall c -> {
                    flushText(gen, text);
                    gen.writeStartObject();
                    gen.writeStringProperty("type", "function_call");
                    gen.writeStringProperty("call_id", wireId(c.id()));
                    gen.writeStringProperty("name", c.name());
                    gen.writeStringProperty("arguments", sendableArguments(c));
                    gen.writeEndObject();
                }
                default -> LOG.debug("{}: not sending a {} part in an assistant message", provider, p.kind());
            }
        }
        flushText(gen, text);
    }

    private static void flushText(JsonGenerator gen, StringBuilder text) {
        if (text.isEmpty()) {
            return;
        }
        gen.writeStartObject();
        gen.writeStringProperty("role", "assistant");
        gen.writeStringProperty("content", text.toString());
        gen.writeEndObject();
        text.setLength(0);
    }

    /** {id, encrypted content} of a thinking part made from a reasoning item, or null. */
    static String[] reasoningItem(Thinking t) {
        String s = t.signature();
        if (t.redacted() || s == null || !s.startsWith("rs_")) {
            return null;
        }
        int colon = s.indexOf(':');
        if (colon <= 0 || colon == s.length() - 1) {
            return null;
        }
        return new String[] {s.substring(0, colon), s.substring(colon + 1)};
    }

    // ---- reply --------------------------------------------------------------------------

    @Override
    public ModelResponse reply(byte[] body, ModelRequest request) {
        JsonNode root = WireSupport.parseObject(provider, body, "the reply");
        if (root.hasNonNull("error") && !"completed".equals(text(root, "status"))) {
            throw failed(root);
        }
        return response(root, root.get("output"));
    }

    /**
     * A response object as a reply.
     *
     * @param root the response object
     * @param output its output items, or items assembled from a stream when it had none
     * @return the reply
     */
    ModelResponse response(JsonNode root, JsonNode output) {
        if ("failed".equals(text(root, "status"))) {
            throw failed(root);
        }
        if (output == null || !output.isArray()) {
            throw invalid(provider, "the reply has no output", null);
        }
        List<Part> parts = new ArrayList<>();
        StringBuilder text = new StringBuilder();
        boolean refused = false;
        boolean calls = false;
        for (int i = 0; i < output.size(); i++) {
            JsonNode item = output.get(i);
            String type = text(item, "type");
            switch (type == null ? "" : type) {
                case "reasoning" -> {
                    Thinking t = thinking(item);
                    if (t != null) {
                        flush(parts, text);
                        parts.add(t);
                    }
                }
                case "message" -> {
                    JsonNode content = item.get("content");
                    if (content != null && content.isArray()) {
                        for (JsonNode c : content) {
                            String ct = text(c, "type");
                            if ("output_text".equals(ct) && text(c, "text") != null) {
                                text.append(text(c, "text"));
                            } else if ("refusal".equals(ct) && text(c, "refusal") != null) {
                                text.append(text(c, "refusal"));
                                refused = true;
                            }
                        }
                    }
                }
                case "function_call" -> {
                    String name = text(item, "name");
                    String callId = text(item, "call_id");
                    if (name == null || name.isBlank() || callId == null || callId.isBlank()) {
                        throw invalid(provider, "output item " + i + " is a function_call without a call_id or a name", null);
                    }
                    flush(parts, text);
                    String args = text(item, "arguments");
                    parts.add(new ToolCall(callId, name, args == null ? "{}" : args));
                    calls = true;
                }
                default -> LOG.debug("{}: skipping an output item of type '{}'", provider, type);
            }
        }
        flush(parts, text);
        String status = text(root, "status");
        String reason = text(root.path("incomplete_details"), "reason");
        String providerStop = reason != null ? reason : status;
        return WireSupport.reply(provider, parts, text(root, "model"), text(root, "id"),
                stopReason(status, reason, refused, calls), providerStop, usage(root.get("usage")));
    }

    private static void flush(List<Part> parts, StringBuilder text) {
        if (!text.isEmpty()) {
            parts.add(new Text(text.toString()));
            text.setLength(0);
        }
    }

    /** A reasoning item as thinking: its summary, and {@code id:encrypted_content} to send it back. */
    Thinking thinking(JsonNode item) {
        StringBuilder summary = new StringBuilder();
        JsonNode parts = item.get("summary");
        if (parts != null && parts.isArray()) {
            for (JsonNode p : parts) {
                String t = text(p, "text");
                if (t != null && !t.isEmpty()) {
                    summary.append(summary.isEmpty() ? "" : "\n\n").append(t);
                }
            }
        }
        String id = text(item, "id");
        String encrypted = text(item, "encrypted_content");
        String signature = id != null && !id.isEmpty() && encrypted != null && !encrypted.isEmpty()
                ? id + ":" + encrypted : null;
        if (summary.isEmpty() && signature == null) {
            return null;
        }
        return Thinking.of(summary.toString(), signature).withOrigin(origin);
    }

    static StopReason stopReason(String status, String reason, boolean refused, boolean calls) {
        if (refused) {
            return StopReason.REFUSAL;
        }
        if ("incomplete".equals(status)) {
            return switch (reason == null ? "" : reason) {
                case "max_output_tokens" -> StopReason.MAX_TOKENS;
                case "content_filter" -> StopReason.CONTENT_FILTER;
                default -> StopReason.OTHER;
            };
        }
        if (calls) {
            return StopReason.TOOL_USE;
        }
        return status == null || status.equals("completed") ? StopReason.END_TURN : StopReason.OTHER;
    }

    /**
     * Usage in neutral terms: {@code input_tokens} includes the cached ones, {@code output_tokens}
     * the reasoning ones.
     */
    static Usage usage(JsonNode usage) {
        if (usage == null || !usage.isObject()) {
            return null;
        }
        long input = orZero(count(usage, "input_tokens"));
        long output = orZero(count(usage, "output_tokens"));
        long cached = Math.min(orZero(count(usage.path("input_tokens_details"), "cached_tokens")), input);
        long reasoning = Math.min(orZero(count(usage.path("output_tokens_details"), "reasoning_tokens")), output);
        return new Usage(input - cached, output, cached, 0, reasoning);
    }

    // ---- streaming ----------------------------------------------------------------------

    @Override
    public StreamDecoder decoder(ModelRequest request, StreamListener listener) {
        return new ResponsesStreamDecoder(this, listener);
    }

    // ---- errors -------------------------------------------------------------------------

    /** A failed response ({@code status: failed}, its {@code error}: code and message). */
    ModelException failed(JsonNode root) {
        JsonNode error = root.path("error");
        String code = text(error, "code");
        String message = text(error, "message");
        Kind kind = WireSupport.contextOverflow(null, code, message) ? Kind.CONTEXT_LENGTH_EXCEEDED : switch (code == null ? "" : code) {
            case "rate_limit_exceeded" -> Kind.RATE_LIMITED;
            case "server_error" -> Kind.SERVER;
            case "" -> Kind.SERVER;
            default -> code.startsWith("invalid") || code.startsWith("image_") ? Kind.INVALID_REQUEST : Kind.SERVER;
        };
        return ModelException.builder(kind).provider(provider)
                .providerMessage(message != null ? message : "the response failed" + (code == null ? "" : " (" + code + ")"))
                .build();
    }

    /** An {@code error} event: {@code {"type": "error", "code", "message", "param"}}. */
    ModelException errorEvent(JsonNode event) {
        return inStreamError(event);
    }
}
