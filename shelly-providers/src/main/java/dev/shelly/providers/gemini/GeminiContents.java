package dev.shelly.providers.gemini;

import dev.shelly.chats.Image;
import dev.shelly.chats.Part;
import dev.shelly.chats.Text;
import dev.shelly.chats.Thinking;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import dev.shelly.providers.internal.JsonObjectMemo;
import dev.shelly.providers.internal.Turns.Turn;
import dev.shelly.providers.internal.WireSupport;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JsonGenerator;

/**
 * The contents of a request on Gemini's wire: which parts each side can carry, the model's parts
 * with their thought signatures back on the parts they came on, tool results as
 * {@code functionResponse} parts ahead of the user's own, and images inline or by URL.
 */
final class GeminiContents {
    private static final Logger LOG = LoggerFactory.getLogger(GeminiContents.class);

    private final String provider;
    private final JsonObjectMemo memo;

    GeminiContents(String provider, JsonObjectMemo memo) {
        this.provider = provider;
        this.memo = memo;
    }

    /** Which parts each side can carry; the rest (custom parts, images from the model) are left out. */
    static boolean sendable(Part p, boolean model) {
        return switch (p) {
            case Text t -> !t.text().isEmpty();
            case ToolCall c -> model;
            case Thinking t -> model && WireSupport.ownOrUnknown(t, GeminiFormat.ORIGIN)
                    && (t.redacted() || !t.text().isEmpty() || t.signature() != null);
            case Image i -> !model && (!i.isUrl() || WireSupport.splitDataUrl(i.url()) != null || mimeType(i.url()) != null);
            case ToolResult r -> !model;
            default -> false;
        };
    }

    /** Where the turn in progress starts: after the last user content that is not only function responses. */
    static int turnStart(List<Turn> contents) {
        for (int i = contents.size() - 1; i >= 0; i--) {
            Turn c = contents.get(i);
            if (!c.assistant() && c.parts().stream().anyMatch(p -> !(p instanceof ToolResult))) {
                return i + 1;
            }
        }
        return 0;
    }

    void writeContent(JsonGenerator gen, Turn c, Map<String, ToolCall> calls, boolean currentTurn) {
        gen.writeStartObject();
        gen.writeStringProperty("role", c.assistant() ? "model" : "user");
        gen.writeName("parts");
        gen.writeStartArray();
        if (c.assistant()) {
            writeModelParts(gen, c.parts(), currentTurn);
        } else {
            // Function responses first, in the order of the results, then the user's own parts.
            for (Part p : c.parts()) {
                if (p instanceof ToolResult r) {
                    writeFunctionResponse(gen, r, calls.get(r.toolCallId()));
                }
            }
            for (Part p : c.parts()) {
                if (p instanceof ToolResult r) {
                    for (Part inner : r.content()) {
                        if (inner instanceof Image i && sendable(i, false)) {
                            writeImage(gen, i);
                        }
                    }
                } else if (p instanceof Text t) {
                    gen.writeStartObject();
                    gen.writeStringProperty("text", t.text());
                    gen.writeEndObject();
                } else if (p instanceof Image i) {
                    writeImage(gen, i);
                }
            }
        }
        gen.writeEndArray();
        gen.writeEndObject();
    }

    /**
     * The model's parts: a redacted {@link Thinking} holds the thought signature of the part that
     * follows it and goes back on that part; a thought goes back as a thought part with its own
     * signature. A signature with no part after it goes back on an empty text part, as it came.
     * In the turn in progress, the first function call of a model message that another provider
     * made (no thought of Gemini's in it, and an id Gemini did not leave to be made up) carries
     * {@link GeminiFormat#FOREIGN_CALL_SIGNATURE}.
     */
    private void writeModelParts(JsonGenerator gen, List<Part> parts, boolean currentTurn) {
        String pending = null;
        boolean firstCall = currentTurn && parts.stream().noneMatch(p -> p instanceof Thinking t
                && GeminiFormat.ORIGIN.equals(t.origin()));
        for (Part p : parts) {
            switch (p) {
                case Thinking t when t.redacted() -> {
                    if (pending != null) {
                        writeSignatureOnly(gen, pending);
                    }
                    pending = t.signature();
                }
                case Thinking t -> {
                    if (pending != null) {
                        writeSignatureOnly(gen, pending);
                        pending = null;
                    }
                    gen.writeStartObject();
                    gen.writeStringProperty("text", t.text());
                    gen.writeBooleanProperty("thought", true);
                    if (t.signature() != null) {
                        gen.writeStringProperty("thoughtSignature", t.signature());
                    }
                    gen.writeEndObject();
                }
                case Text t -> {
                    gen.writeStartObject();
                    gen.writeStringProperty("text", t.text());
                    if (pending != null) {
                        gen.writeStringProperty("thoughtSignature", pending);
                        pending = null;
                    }
                    gen.writeEndObject();
                }
                case ToolCall c -> {
                    gen.writeStartObject();
                    gen.writeName("functionCall");
                    gen.writeStartObject();
                    if (!c.id().startsWith(GeminiReply.MADE_UP_PREFIX)) {
                        gen.writeStringProperty("id", c.id());
                    }
                    gen.writeStringProperty("name", c.name());
                    gen.writeName("args");
                    if (memo.isJsonObject(c.arguments())) {
                        gen.writeRawValue(c.arguments().strip());
                    } else {
                        // Gemini takes only an object; the model's malformed arguments cannot go back as they are.
                        LOG.debug("{}: tool call {} has arguments that are not a JSON object; sending {{}}", provider, c.id());
                        gen.writeStartObject();
                        gen.writeEndObject();
                    }
                    gen.writeEndObject();
                    if (pending == null && firstCall && !c.id().startsWith(GeminiReply.MADE_UP_PREFIX)) {
                        pending = GeminiFormat.FOREIGN_CALL_SIGNATURE;
                    }
                    firstCall = false;
                    if (pending != null) {
                        gen.writeStringProperty("thoughtSignature", pending);
                        pending = null;
                    }
                    gen.writeEndObject();
                }
                default -> { }
            }
        }
        if (pending != null) {
            writeSignatureOnly(gen, pending);
        }
    }

    private static void writeSignatureOnly(JsonGenerator gen, String signature) {
        gen.writeStartObject();
        gen.writeStringProperty("text", "");
        gen.writeStringProperty("thoughtSignature", signature);
        gen.writeEndObject();
    }

    /**
     * A tool result as a {@code functionResponse}: the call's id when Gemini gave it (a made-up id
     * is not sent), the function's name, and the result's text under {@code output}, or under
     * {@code error} when the tool failed, as Gemini's docs ask.
     */
    private void writeFunctionResponse(JsonGenerator gen, ToolResult r, ToolCall call) {
        gen.writeStartObject();
        gen.writeName("functionResponse");
        gen.writeStartObject();
        if (!r.toolCallId().startsWith(GeminiReply.MADE_UP_PREFIX)) {
            gen.writeStringProperty("id", r.toolCallId());
        }
        String name = call != null ? call.name() : r.toolCallId();
        if (call == null) {
            LOG.debug("{}: tool result {} answers no call of the conversation; naming it by its id", provider,
                    r.toolCallId());
        }
        gen.writeStringProperty("name", name);
        gen.writeName("response");
        gen.writeStartObject();
        gen.writeStringProperty(r.isError() ? "error" : "output", r.text());
        gen.writeEndObject();
        gen.writeEndObject();
        gen.writeEndObject();
    }

    private static void writeImage(JsonGenerator gen, Image image) {
        gen.writeStartObject();
        String[] dataUrl = image.isUrl() ? WireSupport.splitDataUrl(image.url()) : null;
        if (image.isUrl() && dataUrl == null) {
            gen.writeName("fileData");
            gen.writeStartObject();
            gen.writeStringProperty("mimeType", mimeType(image.url()));
            gen.writeStringProperty("fileUri", image.url());
            gen.writeEndObject();
        } else {
            gen.writeName("inlineData");
            gen.writeStartObject();
            gen.writeStringProperty("mimeType", dataUrl != null ? dataUrl[0] : image.mediaType());
            gen.writeStringProperty("data", dataUrl != null ? dataUrl[1] : image.base64());
            gen.writeEndObject();
        }
        gen.writeEndObject();
    }

    /** The image type a URL's extension names, or null when it names none Gemini takes. */
    static String mimeType(String url) {
        String path = url;
        int cut = path.indexOf('?');
        if (cut >= 0) {
            path = path.substring(0, cut);
        }
        cut = path.indexOf('#');
        if (cut >= 0) {
            path = path.substring(0, cut);
        }
        String lower = path.toLowerCase(Locale.ROOT);
        if (lower.endsWith(".png")) {
            return "image/png";
        }
        if (lower.endsWith(".jpg") || lower.endsWith(".jpeg")) {
            return "image/jpeg";
        }
        if (lower.endsWith(".webp")) {
            return "image/webp";
        }
        if (lower.endsWith(".heic")) {
            return "image/heic";
        }
        if (lower.endsWith(".heif")) {
            return "image/heif";
        }
        if (lower.endsWith(".gif")) {
            return "image/gif";
        }
        return null;
    }
}
