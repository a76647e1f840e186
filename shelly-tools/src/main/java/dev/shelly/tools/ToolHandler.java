package dev.shelly.tools;

import tools.jackson.databind.JsonNode;

/**
 * Runs a tool.
 *
 * <p>The handler runs on a thread of its own choosing by the {@link ToolBox}; when the caller is
 * cancelled that thread is interrupted, so a handler that blocks should answer interrupts.
 */
@FunctionalInterface
public interface ToolHandler {

    /**
     * Runs the tool.
     *
     * @param input the call's arguments, parsed: a JSON object
     * @param context who is calling
     * @return the result
     * @throws Exception any failure; it becomes an error result the model can read
     */
    ToolOutput call(JsonNode input, ToolContext context) throws Exception;
}
