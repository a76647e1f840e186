package dev.shelly.chats;

/**
 * A model's visible reasoning, kept so that it can be sent back unchanged.
 *
 * <p>Some providers (Anthropic) sign reasoning and require it, signature included, in the next
 * request of a tool-use turn; others (Grok, OpenAI-compatible servers) return reasoning text with
 * no signature. A redacted block carries only the provider's opaque data, kept in
 * {@code signature}, with empty text.
 *
 * @param text the reasoning text; may be empty, not null
 * @param signature the provider's opaque signature or redacted data, or null when none was given
 * @param redacted whether the provider withheld the text and sent only opaque data
 */
public record Thinking(String text, String signature, boolean redacted) implements Part {
    /** Validates the text and, for a redacted block, the data. */
    public Thinking {
        Checks.requireNonNull(text, "Thinking.text");
        if (redacted) {
            Checks.requireText(signature, "Thinking.signature");
        }
    }

    /**
     * Reasoning text with its signature.
     *
     * @param text the reasoning
     * @param signature the provider's signature, or null
     * @return the part
     */
    public static Thinking of(String text, String signature) {
        return new Thinking(text, signature, false);
    }

    /**
     * A redacted reasoning block: the provider's opaque data and no text.
     *
     * @param data the opaque data to send back
     * @return the part
     */
    public static Thinking redacted(String data) {
        Checks.requireText(data, "Thinking.redacted data");
        return new Thinking("", data, true);
    }

    @Override
    public String kind() {
        return "thinking";
    }
}
