package dev.shelly.storage.internal;

import dev.shelly.chats.Part;

/**
 * A part of a kind Shelly does not know, restored from a saved session.
 *
 * <p>An application's own part kinds are saved by kind and text form; on resume they come back as
 * this part, so that nothing the conversation held is lost. Providers do not send it to models.
 *
 * @param kind the original part's kind
 * @param value the original part's text form
 */
public record OpaquePart(String kind, String value) implements Part {
    /** Validates the fields. */
    public OpaquePart {
        if (kind == null || kind.isBlank()) {
            throw new IllegalArgumentException("OpaquePart.kind must not be null or blank");
        }
        if (value == null) {
            throw new IllegalArgumentException("OpaquePart.value must not be null");
        }
    }
}
