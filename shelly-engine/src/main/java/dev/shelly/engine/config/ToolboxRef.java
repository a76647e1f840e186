package dev.shelly.engine.config;

import com.fasterxml.jackson.annotation.JsonCreator;
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
    @JsonCreator(mode = JsonCreator.Mode.PROPERTIES)
    public ToolboxRef {
        Fields.required(name, "name");
        tools = tools == null ? List.of() : Fields.names(tools, "tools");
    }

    /**
     * All tools of a toolbox; in {@code config.yaml}, a toolbox given by its name alone.
     *
     * @param name the toolbox's name
     * @return the reference
     */
    @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
    public static ToolboxRef all(String name) {
        return new ToolboxRef(name, List.of());
    }
}
