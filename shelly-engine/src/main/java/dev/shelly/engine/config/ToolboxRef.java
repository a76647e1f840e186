package dev.shelly.engine.config;

import java.util.List;

/**
 * An agent's use of a toolbox: an MCP server's name or a built-in toolbox ({@code state},
 * {@code tasks}), optionally narrowed to some of its tools.
 *
 * @param name the toolbox's name
 * @param tools the tools to use; empty means all of them
 */
public record ToolboxRef(String name, List<String> tools) {

    /** Validates and copies. */
    public ToolboxRef {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("ToolboxRef.name must not be null or blank");
        }
        tools = tools == null ? List.of() : List.copyOf(tools);
    }

    /**
     * All tools of a toolbox.
     *
     * @param name the toolbox's name
     * @return the reference
     */
    public static ToolboxRef all(String name) {
        return new ToolboxRef(name, List.of());
    }
}
