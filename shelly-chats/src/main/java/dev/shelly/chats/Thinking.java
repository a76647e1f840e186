package dev.shelly.chats;

/**
 * A model's visible reasoning, kept so that it can be sent back unchanged.
 *
 * <p>Some providers (Anthropic) sign reasoning and require it, signature included, in the next
 * request of a tool-use turn; others (Grok, OpenAI-compatible servers) return reasoning text with
 * no signature. A redacted block carries only the provider's opaque data, kept in
 * {@code signature}, with empty text.
 *
 * <p>A signature is understood only by the API that made it: {@code origin} names that API, so
 * that a conversation that moves to another provider leaves the signature out there and keeps it
 * for when the conversation comes back.
 *
 * @param text the reasoning text; may be empty, not null
 * @param signature the provider's opaque signature or redacted data, or null when none was given
 * @param redacted whether the provider withheld the text and sent only opaque data
 * @param origin the API whose opaque state the signature is ({@code anthropic}, {@code gemini},
 *     {@code openai-responses}, ...), or null when unknown
 */
public record Thinking(String text, String signature, boolean redacted, String origin) implements Part {
    /** Validates the text and, for a redacted block, the data. */
    public Thinking {
        Checks.requireNonNull(text, "Thinking.text");
        if (redacted) {
            Checks.requireText(signature, "Thinking.signature");
        }
        if (origin != null) {
            Checks.requireText(origin, "Thinking.origin");
        }
    }

    /**
     * Reasoning whose origin is not known (made in code, or stored before origins were kept):
     * every provider that can take its signature is sent it.
     *
     * @param text the reasoning text
     * @param signature the provider's signature or redacted data, or null
     * @param redacted whether the block is redacted
     */
    public Thinking(String text, String signature, boolean redacted) {
        this(text, signature, redacted, null);
    }

    /**
     * The same reasoning, marked as made by an API.
     *
     * @param value the API whose state the signature is, such as {@code anthropic},
     *     {@code gemini} or {@code openai-responses}
     * @return the marked part
     */
    public Thinking withOrigin(String value) {
        return new Thinking(text, signature, redacted, value);
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
