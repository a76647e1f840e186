package dev.shelly.chats;

import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * One message of a conversation: who sent it, in which role, what it says, and free metadata.
 *
 * <p>A message is immutable. {@code sender} matters when several agents share a conversation: it
 * says which agent (or {@code "user"}) wrote the message, while {@code role} says how a model
 * should read it. Metadata holds extra facts such as a reply's stop reason or token usage; its
 * keys keep their insertion order.
 *
 * @param sender who wrote the message: an agent's name, {@code "user"}, {@code "system"}
 * @param role how a model reads the message
 * @param parts the content, in order
 * @param metadata extra facts about the message; no null keys or values
 */
public record Message(String sender, Role role, List<Part> parts, Map<String, Object> metadata) {

    /** Validates and copies every field. */
    public Message {
        Checks.requireText(sender, "Message.sender");
        Checks.requireNonNull(role, "Message.role");
        parts = Checks.copyOf(parts, "Message.parts");
        metadata = copyMetadata(metadata);
    }

    /**
     * A message with parts and no metadata.
     *
     * @param sender who wrote it
     * @param role its role
     * @param parts its content
     */
    public Message(String sender, Role role, List<Part> parts) {
        this(sender, role, parts, Map.of());
    }

    /**
     * A message holding one text part.
     *
     * @param sender who wrote it
     * @param role its role
     * @param text its text
     * @return the message
     */
    public static Message text(String sender, Role role, String text) {
        return new Message(sender, role, List.of(new Text(Checks.requireNonNull(text, "Message.text"))));
    }

    /**
     * A message with the given parts.
     *
     * @param sender who wrote it
     * @param role its role
     * @param parts its content
     * @return the message
     */
    public static Message of(String sender, Role role, Part... parts) {
        return new Message(sender, role, Arrays.asList(Checks.requireNonNull(parts, "Message.of parts")));
    }

    /**
     * A user message from sender {@code "user"}.
     *
     * @param text what the user says
     * @return the message
     */
    public static Message user(String text) {
        return text("user", Role.USER, text);
    }

    /**
     * A system message from sender {@code "system"}.
     *
     * @param text the instructions
     * @return the message
     */
    public static Message system(String text) {
        return text("system", Role.SYSTEM, text);
    }

    /**
     * The text parts concatenated, in order.
     *
     * @return the text, empty when the message has no text part
     */
    public String text() {
        if (parts.size() == 1 && parts.getFirst() instanceof Text only) {
            return only.text();
        }
        StringBuilder sb = new StringBuilder();
        for (Part part : parts) {
            if (part instanceof Text t) {
                sb.append(t.text());
            }
        }
        return sb.toString();
    }

    /**
     * The tool calls in this message, in order.
     *
     * @return the calls, empty when there are none
     */
    public List<ToolCall> toolCalls() {
        return parts(ToolCall.class);
    }

    /**
     * The tool results in this message, in order.
     *
     * @return the results, empty when there are none
     */
    public List<ToolResult> toolResults() {
        return parts(ToolResult.class);
    }

    /**
     * Whether the message asks for at least one tool call.
     *
     * @return true when a {@link ToolCall} part is present
     */
    public boolean hasToolCalls() {
        for (Part part : parts) {
            if (part instanceof ToolCall) {
                return true;
            }
        }
        return false;
    }

    /**
     * The parts of one kind, in order.
     *
     * @param type the part class
     * @param <T> the part type
     * @return the matching parts
     */
    public <T extends Part> List<T> parts(Class<T> type) {
        Checks.requireNonNull(type, "Message.parts type");
        List<T> found = null;
        for (Part part : parts) {
            if (type.isInstance(part)) {
                if (found == null) {
                    found = new ArrayList<>(parts.size());
                }
                found.add(type.cast(part));
            }
        }
        // Most messages hold parts of one kind: asking for another makes no list.
        return found == null ? Collections.emptyList() : Collections.unmodifiableList(found);
    }

    /**
     * A metadata value.
     *
     * @param key the key
     * @return the value, or empty when absent
     */
    public Optional<Object> meta(String key) {
        Checks.requireNonNull(key, "Message.meta key");
        return Optional.ofNullable(metadata.get(key));
    }

    /**
     * A metadata value of an expected type.
     *
     * @param key the key
     * @param type the expected type
     * @param <T> the value type
     * @return the value, or empty when absent or of another type
     */
    public <T> Optional<T> meta(String key, Class<T> type) {
        Checks.requireNonNull(key, "Message.meta key");
        Checks.requireNonNull(type, "Message.meta type");
        Object value = metadata.get(key);
        return type.isInstance(value) ? Optional.of(type.cast(value)) : Optional.empty();
    }

    /**
     * A copy with one metadata entry added or replaced.
     *
     * @param key the key
     * @param value the value, not null
     * @return the new message
     */
    public Message withMeta(String key, Object value) {
        Checks.requireText(key, "Message.withMeta key");
        if (value == null) {
            throw new IllegalArgumentException("Message.withMeta value of '" + key + "' must not be null");
        }
        LinkedHashMap<String, Object> copy = new LinkedHashMap<>(metadata);
        copy.put(key, value);
        return new Message(sender, role, parts, new FrozenMetadata(copy));
    }

    /**
     * A copy with another sender.
     *
     * @param newSender the sender
     * @return the new message
     */
    public Message withSender(String newSender) {
        Checks.requireText(newSender, "Message.withSender newSender");
        return new Message(newSender, role, parts, metadata);
    }

    private static Map<String, Object> copyMetadata(Map<String, Object> metadata) {
        if (metadata == null || metadata.isEmpty()) {
            return Map.of();
        }
        if (metadata instanceof FrozenMetadata) {
            return metadata; // a message's own map, checked and immutable already: withSender costs one object
        }
        LinkedHashMap<String, Object> copy = new LinkedHashMap<>();
        for (Map.Entry<String, Object> e : metadata.entrySet()) {
            Checks.requireText(e.getKey(), "Message.metadata key");
            if (e.getValue() == null) {
                throw new IllegalArgumentException("Message.metadata['" + e.getKey() + "'] must not be null");
            }
            copy.put(e.getKey(), e.getValue());
        }
        return new FrozenMetadata(copy);
    }

    /** A message's checked metadata, in insertion order; immutable, so other messages share it. */
    private static final class FrozenMetadata extends AbstractMap<String, Object> {
        private final Map<String, Object> entries;

        FrozenMetadata(LinkedHashMap<String, Object> checked) {
            this.entries = Collections.unmodifiableMap(checked);
        }

        @Override
        public Set<Entry<String, Object>> entrySet() {
            return entries.entrySet();
        }

        @Override
        public Object get(Object key) {
            return entries.get(key);
        }

        @Override
        public boolean containsKey(Object key) {
            return entries.containsKey(key);
        }

        @Override
        public int size() {
            return entries.size();
        }
    }
}
