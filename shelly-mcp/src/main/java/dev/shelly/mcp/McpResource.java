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
        List<McpResourceContents> read(String uri, Map<String, String> variables) throws Exception;
    }
}
