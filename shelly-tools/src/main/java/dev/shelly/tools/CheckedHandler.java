package dev.shelly.tools;

import java.util.List;
import tools.jackson.databind.JsonNode;

/** Checks a call's arguments against the tool's input schema before the handler runs. */
final class CheckedHandler implements ToolHandler {
    /** How many schema problems one error result lists at most. */
    private static final int MAX_PROBLEMS = 10;

    private final String toolName;
    private final SchemaCheck check;
    private final ToolHandler handler;

    CheckedHandler(String toolName, SchemaCheck check, ToolHandler handler) {
        this.toolName = toolName;
        this.check = check;
        this.handler = handler;
    }

    @Override
    public ToolOutput call(JsonNode input, ToolContext context) throws Exception {
        List<String> problems = check.problems(input);
        if (problems.isEmpty()) {
            return handler.call(input, context);
        }
        String shown = String.join("; ", problems.subList(0, Math.min(problems.size(), MAX_PROBLEMS)));
        if (problems.size() > MAX_PROBLEMS) {
            shown += "; and " + (problems.size() - MAX_PROBLEMS) + " more";
        }
        return ToolOutput.error(mismatch(toolName, shown));
    }

    /** The message for arguments that do not fit a tool's schema. */
    static String mismatch(String toolName, String problems) {
        return "arguments for tool '" + toolName + "' do not match its schema: " + problems;
    }
}
