package dev.shelly.mcp;

/**
 * What a resource holds: text or base64 binary data, with its URI and type; exactly one of
 * {@code text} and {@code blob} is set.
 *
 * @param uri the resource's URI
 * @param mimeType its type, or null
 * @param text the text, or null for binary contents
 * @param blob the bytes in base64, or null for text contents
 */
public record McpResourceContents(String uri, String mimeType, String text, String blob) {

    /** Checks that there is a URI and exactly one of text and blob. */
    public McpResourceContents {
        if (uri == null || uri.isBlank()) {
            throw new IllegalArgumentException("McpResourceContents.uri must not be null or blank");
        }
        if ((text == null) == (blob == null)) {
            throw new IllegalArgumentException("McpResourceContents of " + uri + " needs exactly one of text and blob");
        }
    }

    /**
     * Text contents.
     *
     * @param uri the resource's URI
     * @param mimeType its type, or null
     * @param text the text
     * @return the contents
     */
    public static McpResourceContents text(String uri, String mimeType, String text) {
        if (text == null) {
            throw new IllegalArgumentException("McpResourceContents.text text of " + uri + " must not be null");
        }
        return new McpResourceContents(uri, mimeType, text, null);
    }

    /**
     * Binary contents.
     *
     * @param uri the resource's URI
     * @param mimeType its type, or null
     * @param base64 the bytes, base64
     * @return the contents
     */
    public static McpResourceContents blob(String uri, String mimeType, String base64) {
        if (base64 == null) {
            throw new IllegalArgumentException("McpResourceContents.blob base64 of " + uri + " must not be null");
        }
        return new McpResourceContents(uri, mimeType, null, base64);
    }
}
