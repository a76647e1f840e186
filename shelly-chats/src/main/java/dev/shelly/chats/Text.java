package dev.shelly.chats;

/**
 * Plain text.
 *
 * @param text the text; may be empty but not null
 */
public record Text(String text) implements Part {
    /** Validates the text. */
    public Text {
        Checks.requireNonNull(text, "Text.text");
    }

    @Override
    public String kind() {
        return "text";
    }
}
