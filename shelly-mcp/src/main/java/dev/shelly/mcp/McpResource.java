package dev.shelly.mcp;

import java.util.List;
import java.util.Map;

/**
 * A resource an {@link McpToolServer} offers: a fixed URI, or a URI template
 * ({@code test://items/{id}}, RFC 6570 level 1) whose variables the reader is given.
 *
 * @param uri the URI, or the URI template
 * @param name a short name
 * @param title a human-readable title, or null
 * @param description what it holds, or null
 * @param mimeType its type, or null
 * @param reader reads it when a client asks
 */
public record McpResource(String uri, String name, String title, String description, String mimeType, Reader reader) {

    /** Checks the URI, the name and the reader. */
    public McpResource {
        if (uri == null || uri.isBlank() || name == null || name.isBlank()) {
            throw new IllegalArgumentException("McpResource needs a URI and a name, was uri=" + uri + ", name=" + name);
        }
        if (reader == null) {
            throw new IllegalArgumentException("McpResource " + uri + " needs a reader");
        }
    }

    /**
     * Whether {@link #uri()} is a template (has a {@code {variable}}).
     *
     * @return true for a template
     */
    public boolean isTemplate() {
        return uri.contains("{");
    }

    /** Reads a resource, on a virtual thread of the server. */
    @FunctionalInterface
    public interface Reader {
        /**
         * Reads the resource.
         *
         * @param uri the URI the client asked for
         * @param variables the template's variables taken from it; empty for a fixed URI
         * @return the contents, usually one
         * @throws Exception any failure, which the client gets as an error naming the URI
         */
        List<Contents> read(String uri, Map<String, String> variables) throws Exception;
    }

    /**
     * What a resource holds: text or base64 binary data, with its URI and type; exactly one of
     * {@code text} and {@code blob} is set.
     *
     * @param uri the resource's URI
     * @param mimeType its type, or null
     * @param text the text, or null for binary contents
     * @param blob the bytes in base64, or null for text contents
     */
    public record Contents(String uri, String mimeType, String text, String blob) {

        /** Checks that there is a URI and exactly one of text and blob. */
        public Contents {
            if (uri == null || uri.isBlank()) {
                throw new IllegalArgumentException("McpResource.Contents.uri must not be null or blank");
            }
            if ((text == null) == (blob == null)) {
                throw new IllegalArgumentException("McpResource.Contents of " + uri + " needs exactly one of text and blob");
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
        public static Contents text(String uri, String mimeType, String text) {
            if (text == null) {
                throw new IllegalArgumentException("McpResource.Contents.text text of " + uri + " must not be null");
            }
            return new Contents(uri, mimeType, text, null);
        }

        /**
         * Binary contents.
         *
         * @param uri the resource's URI
         * @param mimeType its type, or null
         * @param base64 the bytes, base64
         * @return the contents
         */
        public static Contents blob(String uri, String mimeType, String base64) {
            if (base64 == null) {
                throw new IllegalArgumentException("McpResource.Contents.blob base64 of " + uri + " must not be null");
            }
            return new Contents(uri, mimeType, null, base64);
        }
    }
}
