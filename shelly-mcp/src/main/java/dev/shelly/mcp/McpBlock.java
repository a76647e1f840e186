package dev.shelly.mcp;

/**
 * A content block a served tool, prompt or resource gives an MCP client, in the forms MCP knows
 * and Shelly's parts do not all have: audio, embedded resources and resource links besides text
 * and images. Binary data is base64, as on the wire.
 */
public sealed interface McpBlock {

    /**
     * Text.
     *
     * @param text the text
     */
    record Text(String text) implements McpBlock {
        /** Checks the text. */
        public Text {
            McpBlock.require(text, "Text.text");
        }
    }

    /**
     * An image.
     *
     * @param base64 the image bytes, base64
     * @param mimeType e.g. {@code image/png}
     */
    record Image(String base64, String mimeType) implements McpBlock {
        /** Checks both fields. */
        public Image {
            McpBlock.require(base64, "Image.base64");
            McpBlock.require(mimeType, "Image.mimeType");
        }
    }

    /**
     * Audio.
     *
     * @param base64 the audio bytes, base64
     * @param mimeType e.g. {@code audio/wav}
     */
    record Audio(String base64, String mimeType) implements McpBlock {
        /** Checks both fields. */
        public Audio {
            McpBlock.require(base64, "Audio.base64");
            McpBlock.require(mimeType, "Audio.mimeType");
        }
    }

    /**
     * A resource embedded whole.
     *
     * @param contents the resource's contents
     */
    record Embedded(McpResource.Contents contents) implements McpBlock {
        /** Checks the contents. */
        public Embedded {
            if (contents == null) {
                throw new IllegalArgumentException("McpBlock.Embedded.contents must not be null");
            }
        }
    }

    /**
     * A link to a resource the client may read.
     *
     * @param uri the resource's URI
     * @param name its name
     * @param description what it is, or null
     * @param mimeType its type, or null
     */
    record Link(String uri, String name, String description, String mimeType) implements McpBlock {
        /** Checks the URI and the name. */
        public Link {
            McpBlock.require(uri, "Link.uri");
            McpBlock.require(name, "Link.name");
        }
    }

    private static void require(String value, String what) {
        if (value == null) {
            throw new IllegalArgumentException("McpBlock." + what + " must not be null");
        }
    }
}
