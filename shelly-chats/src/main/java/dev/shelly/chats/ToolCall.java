package dev.shelly.chats;

/**
 * A model's request to run a tool.
 *
 * <p>The arguments stay raw JSON text exactly as the model produced them: they are parsed, and
 * checked against the tool's schema, only when the tool is called, so that a malformed argument
 * string is reported to the model instead of being lost.
 *
 * @param id the provider's id for this call; a {@link ToolResult} answers it by this id
 * @param name the tool's name
 * @param arguments the arguments as JSON text; null or blank becomes {@code {}}
 */
public record ToolCall(String id, String name, String arguments) implements Part {
    /** Validates the id and name and normalises absent arguments to an empty object. */
    public ToolCall {
        Checks.requireText(id, "ToolCall.id");
        Checks.requireText(name, "ToolCall.name");
        if (arguments == null || arguments.isBlank()) {
            arguments = "{}";
        }
    }

    @Override
    public String kind() {
        return "tool_call";
    }
}
