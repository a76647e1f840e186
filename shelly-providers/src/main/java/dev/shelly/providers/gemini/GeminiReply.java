package dev.shelly.providers.gemini;

import dev.shelly.chats.Part;
import dev.shelly.chats.Text;
import dev.shelly.chats.Thinking;
import dev.shelly.chats.ToolCall;
import dev.shelly.modeladapter.Delta;
import dev.shelly.modeladapter.StreamListener;
import dev.shelly.providers.internal.WireSupport;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

/**
 * Builds one reply's parts from Gemini's content parts, in the order they come, whether they
 * come in one reply or spread over the chunks of a stream, so that both give the same message.
 *
 * <p>Consecutive text parts are joined, and so are consecutive thought parts; a thought
 * signature stays with the part it came on. A Gemini part maps to Shelly parts this way:
 * <ul>
 *   <li>a thought ({@code thought: true}) becomes {@code Thinking(text, signature)};
 *   <li>the signature of a text or function-call part becomes a {@link Thinking#redacted}
 *       part just before it (opaque data with no text), which the request writer puts back on
 *       the part that follows it;
 *   <li>a function call becomes a {@link ToolCall}. Its id is Gemini's when Gemini gave one;
 *       else it is made up from the reply's id, the conversation's length, the call's position,
 *       name and arguments ({@value #MADE_UP_PREFIX} and 16 hex digits), so a streamed and a
 *       non-streamed reply give the same id and two turns of a conversation never share one.
 *       Made-up ids are never sent back to Gemini.
 * </ul>
 */
final class GeminiReply {
    private static final Logger LOG = LoggerFactory.getLogger(GeminiReply.class);
    /** How a made-up call id starts. */
    static final String MADE_UP_PREFIX = "gcall_";

    private enum Kind { THOUGHT, TEXT, CALL }

    private static final class Segment {
        final Kind kind;
        final StringBuilder text = new StringBuilder();
        String signature;
        ToolCall call;

        Segment(Kind kind) {
            this.kind = kind;
        }
    }

    private final String provider;
    private final int conversationLength;
    private final StreamListener listener;
    private final List<Segment> segments = new ArrayList<>();
    private int calls;

    /**
     * Starts a reply.
     *
     * @param provider the provider's name, for logs
     * @param conversationLength how many messages the request had, to tell turns apart in ids
     * @param listener receives the deltas; {@link StreamListener#NONE} for a whole reply
     */
    GeminiReply(String provider, int conversationLength, StreamListener listener) {
        this.provider = provider;
        this.conversationLength = conversationLength;
        this.listener = listener;
    }

    /**
     * Adds the parts of one content.
     *
     * @param parts the {@code parts} array, or null
     * @param responseId the reply's id, or null
     */
    void add(JsonNode parts, String responseId) {
        if (parts == null || !parts.isArray()) {
            return;
        }
        for (JsonNode part : parts) {
            addPart(part, responseId);
        }
    }

    private void addPart(JsonNode part, String responseId) {
        String signature = GeminiFormat.field(part, "thoughtSignature", "thought_signature");
        JsonNode call = GeminiFormat.node(part, "functionCall", "function_call");
        Segment last = segments.isEmpty() ? null : segments.getLast();
        if (call != null && call.isObject()) {
            String name = WireSupport.text(call, "name");
            if (name == null || name.isBlank()) {
                LOG.warn("{}: dropping a function call of the reply: it names no function", provider);
                return;
            }
            JsonNode args = call.get("args");
            String arguments = args == null || args.isNull() ? "{}" : WireSupport.compact(args);
            String id = WireSupport.text(call, "id");
            if (id == null || id.isBlank()) {
                id = madeUpId(conversationLength, responseId, calls, name, arguments);
            }
            Segment s = new Segment(Kind.CALL);
            s.signature = signature;
            s.call = new ToolCall(id, name, arguments);
            segments.add(s);
            listener.onDelta(new Delta.ToolCallStart(calls, id, name));
            listener.onDelta(new Delta.ToolCallArguments(calls, arguments));
            calls++;
            return;
        }
        JsonNode thought = part.get("thought");
        boolean isThought = thought != null && thought.isBoolean() && thought.booleanValue();
        JsonNode textNode = part.get("text");
        if (textNode == null && signature == null) {
            LOG.debug("{}: skipping a reply part that is neither text nor a function call", provider);
            return;
        }
        String text = textNode != null && textNode.isString() ? textNode.stringValue() : "";
        Kind kind = isThought ? Kind.THOUGHT : Kind.TEXT;
        Segment s = last != null && last.kind == kind && (signature == null || last.signature == null) ? last : null;
        if (s == null) {
            s = new Segment(kind);
            segments.add(s);
        }
        s.text.append(text);
        if (signature != null) {
            s.signature = signature;
        }
        if (!text.isEmpty()) {
            listener.onDelta(isThought ? new Delta.ThinkingDelta(text) : new Delta.TextDelta(text));
        }
    }

    /** A call id from what the stream and the whole reply share, unique within a conversation. */
    static String madeUpId(int conversationLength, String responseId, int position, String name, String arguments) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            String key = conversationLength + "\n" + (responseId == null ? "" : responseId) + "\n" + position + "\n"
                    + name + "\n" + arguments;
            byte[] hash = sha.digest(key.getBytes(StandardCharsets.UTF_8));
            return MADE_UP_PREFIX + HexFormat.of().formatHex(hash, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    /**
     * Whether the reply calls a function.
     *
     * @return true when it does
     */
    boolean hasCalls() {
        return calls > 0;
    }

    /**
     * The reply's parts.
     *
     * @return thinking, text and tool calls in the order they came
     */
    List<Part> parts() {
        List<Part> parts = new ArrayList<>(segments.size() + 2);
        for (Segment s : segments) {
            switch (s.kind) {
                case THOUGHT -> parts.add(Thinking.of(s.text.toString(), s.signature).withOrigin(GeminiFormat.ORIGIN));
                case TEXT -> {
                    if (s.signature != null) {
                        parts.add(Thinking.redacted(s.signature).withOrigin(GeminiFormat.ORIGIN));
                    }
                    if (!s.text.isEmpty()) {
                        parts.add(new Text(s.text.toString()));
                    }
                }
                case CALL -> {
                    if (s.signature != null) {
                        parts.add(Thinking.redacted(s.signature).withOrigin(GeminiFormat.ORIGIN));
                    }
                    parts.add(s.call);
                }
            }
        }
        return parts;
    }
}
