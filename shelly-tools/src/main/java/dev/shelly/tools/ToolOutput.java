package dev.shelly.tools;

import dev.shelly.chats.Part;
import dev.shelly.chats.Text;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * What a tool handler returns: content for the model, and whether the call failed.
 *
 * <p>A handler may also throw instead of returning an error; the {@link ToolBox} turns the
 * exception into an error result.
 *
 * @param content text and image parts
 * @param isError whether the call failed
 */
public record ToolOutput(List<Part> content, boolean isError) {

    /** Validates and copies the content. */
    public ToolOutput {
        if (content == null) {
            throw new IllegalArgumentException("ToolOutput.content must not be null");
        }
        List<Part> copy = new ArrayList<>(content.size());
        for (int i = 0; i < content.size(); i++) {
            Part part = content.get(i);
            if (part == null) {
                throw new IllegalArgumentException("ToolOutput.content[" + i + "] must not be null");
            }
            if (part instanceof ToolCall || part instanceof ToolResult) {
                throw new IllegalArgumentException("ToolOutput.content[" + i + "] must not be a " + part.kind() + " part");
            }
            copy.add(part);
        }
        content = Collections.unmodifiableList(copy);
    }

    /**
     * A successful text result.
     *
     * @param text the result
     * @return the output
     */
    public static ToolOutput text(String text) {
        if (text == null) {
            throw new IllegalArgumentException("ToolOutput.text must not be null");
        }
        return new ToolOutput(List.of(new Text(text)), false);
    }

    /**
     * A failed result whose text tells the model what went wrong.
     *
     * @param message what went wrong, in words a model can act on
     * @return the output
     */
    public static ToolOutput error(String message) {
        if (message == null) {
            throw new IllegalArgumentException("ToolOutput.error message must not be null");
        }
        return new ToolOutput(List.of(new Text(message)), true);
    }

    /**
     * A successful result of several parts.
     *
     * @param parts text and image parts
     * @return the output
     */
    public static ToolOutput of(Part... parts) {
        if (parts == null) {
            throw new IllegalArgumentException("ToolOutput.of parts must not be null");
        }
        for (int i = 0; i < parts.length; i++) {
            if (parts[i] == null) {
                throw new IllegalArgumentException("ToolOutput.of parts[" + i + "] must not be null");
            }
        }
        return new ToolOutput(List.of(parts), false);
    }

    /**
     * This output as the result of one call.
     *
     * @param toolCallId the id of the call answered
     * @return the result
     */
    public ToolResult toResult(String toolCallId) {
        return new ToolResult(toolCallId, content, isError);
    }
}
