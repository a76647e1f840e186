package dev.shelly.chats;

/**
 * One piece of a message's content.
 *
 * <p>The interface is open: besides the built-in kinds ({@link Text}, {@link Image},
 * {@link ToolCall}, {@link ToolResult}, {@link Thinking}) an application may add its own parts,
 * for example a citation or a file reference. Providers send the parts they understand and
 * skip the rest, so a custom part never reaches a model by accident.
 */
public interface Part {
    /**
     * A short stable name for this kind of part, such as {@code "text"} or {@code "tool_call"}.
     *
     * @return the kind's name
     */
    String kind();
}
