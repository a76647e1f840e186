package dev.shelly.tools;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/** Binds a call's JSON arguments to the input record, then runs the typed handler. */
final class TypedToolHandler<T extends Record> implements ToolHandler {
    private final String toolName;
    private final Class<T> inputType;
    private final TypedHandler<T> handler;

    TypedToolHandler(String toolName, Class<T> inputType, TypedHandler<T> handler) {
        this.toolName = toolName;
        this.inputType = inputType;
        this.handler = handler;
    }

    @Override
    public ToolOutput call(JsonNode input, ToolContext context) throws Exception {
        T value;
        try {
            value = Json.MAPPER.treeToValue(input, inputType);
        } catch (JacksonException e) {
            return ToolOutput.error(CheckedHandler.mismatch(toolName, path(e) + ": " + firstLine(e.getOriginalMessage())));
        }
        return handler.call(value, context);
    }

    /** Where binding failed, as a path such as {@code $.stops[2].name}. */
    static String path(JacksonException e) {
        StringBuilder path = new StringBuilder("$");
        for (JacksonException.Reference ref : e.getPath()) {
            if (ref.getPropertyName() != null) {
                path.replace(0, path.length(), SchemaCheck.child(path.toString(), ref.getPropertyName()));
            } else if (ref.getIndex() >= 0) {
                path.append('[').append(ref.getIndex()).append(']');
            }
        }
        return path.toString();
    }

    static String firstLine(String message) {
        if (message == null) {
            return "cannot be read";
        }
        int newline = message.indexOf('\n');
        return (newline < 0 ? message : message.substring(0, newline)).strip();
    }
}
