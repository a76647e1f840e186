package dev.shelly.chats;

/**
 * What a model is told about a tool: its name, what it does, and the JSON Schema of its input.
 *
 * @param name the tool's name, as the model will call it
 * @param description what the tool does and when to use it
 * @param inputSchema the JSON Schema of the input object, as JSON text
 */
public record ToolDefinition(String name, String description, String inputSchema) {
    /** Validates every field: all three are required. */
    public ToolDefinition {
        Checks.requireText(name, "ToolDefinition.name");
        Checks.requireNonNull(description, "ToolDefinition.description");
        Checks.requireText(inputSchema, "ToolDefinition.inputSchema");
    }
}
