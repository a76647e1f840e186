package dev.shelly.tools.internal;

import dev.shelly.tools.ToolHandler;

/**
 * Internal, not API. A tool handler that may read a call's arguments from the JSON text the model
 * sent instead of the tree the {@link dev.shelly.tools.ToolBox} parses: for a tool whose input
 * can be large and of which it keeps little (an agent's {@code delegate} call with thousands of
 * tasks), so that no tree of the whole input is built or kept while the tool runs.
 *
 * <p>The tool box first offers it the text. A handler that finds the arguments well formed and
 * fit returns what to run; it returns null for anything else, and the tool box then parses the
 * arguments as for any tool (answering arguments that are not a JSON object with its usual error
 * results) and calls {@link #call(tools.jackson.databind.JsonNode, dev.shelly.tools.ToolContext)}
 * with the tree, which says what is wrong.
 */
public interface ArgumentsText extends ToolHandler {

    /**
     * Reads a call's arguments as text, on the calling thread, without blocking.
     *
     * @param arguments the arguments as the model sent them
     * @return the handler to run for them (given no tree), or null to have them parsed into a tree
     */
    ToolHandler read(String arguments);
}
