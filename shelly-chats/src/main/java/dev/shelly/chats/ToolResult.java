package dev.shelly.chats;

import java.util.List;

/**
 * The outcome of one tool call, sent back to the model.
 *
 * <p>Content is a list of parts, usually a single {@link Text}, sometimes images (a screenshot
 * tool, an MCP server returning an image). A failed call has {@code isError} set and says in its
 * text what went wrong, so the model can correct itself.
 *
 * @param toolCallId the id of the {@link ToolCall} this answers
 * @param content the result's parts: text and images only
 * @param isError whether the call failed
 */
public record ToolResult(String toolCallId, List<Part> content, boolean isError) implements Part {
    /** Validates the id and copies the content. */
    public ToolResult {
        Checks.requireText(toolCallId, "ToolResult.toolCallId");
        content = Checks.copyOf(content, "ToolResult.content");
        for (int i = 0; i < content.size(); i++) {
            Part part = content.get(i);
            if (part instanceof ToolCall || part instanceof ToolResult) {
                throw new IllegalArgumentException(
                        "ToolResult.content[" + i + "] must not be a " + part.kind() + " part");
            }
        }
    }

    /**
     * A successful result with text content.
     *
     * @param toolCallId the id of the call answered
     * @param text the result
     * @return the result
     */
    public static ToolResult of(String toolCallId, String text) {
        return new ToolResult(toolCallId, List.of(new Text(Checks.requireNonNull(text, "ToolResult.text"))), false);
    }

    /**
     * A failed result whose text tells the model what went wrong.
     *
     * @param toolCallId the id of the call answered
     * @param message what went wrong, in words a model can act on
     * @return the result
     */
    public static ToolResult error(String toolCallId, String message) {
        return new ToolResult(toolCallId, List.of(new Text(Checks.requireNonNull(message, "ToolResult.error message"))), true);
    }

    /**
     * The text parts of the content, concatenated.
     *
     * @return the text, empty when there is none
     */
    public String text() {
        if (content.size() == 1 && content.getFirst() instanceof Text only) {
            return only.text();
        }
        StringBuilder sb = new StringBuilder();
        for (Part part : content) {
            if (part instanceof Text t) {
                sb.append(t.text());
            }
        }
        return sb.toString();
    }

    @Override
    public String kind() {
        return "tool_result";
    }
}
