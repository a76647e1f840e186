package dev.shelly.tools;

import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolDefinition;
import dev.shelly.chats.ToolResult;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Several toolboxes searched in order, as an agent holds them: its own tools, then each MCP
 * server's. The first toolbox that has a tool of the called name answers; a later tool of the
 * same name is shadowed and not shown to the model. The toolboxes stay live: a tool registered
 * in, or removed from, one of them is seen at once. Immutable and thread-safe.
 */
public final class ToolBoxes {
    private final List<ToolBox> boxes;

    private ToolBoxes(List<ToolBox> boxes) {
        this.boxes = boxes;
    }

    /**
     * The toolboxes, searched in the given order.
     *
     * @param boxes the toolboxes
     * @return the composite
     */
    public static ToolBoxes of(ToolBox... boxes) {
        if (boxes == null) {
            throw new IllegalArgumentException("ToolBoxes.of boxes must not be null");
        }
        return of(java.util.Arrays.asList(boxes.clone()));
    }

    /**
     * The toolboxes, searched in list order.
     *
     * @param boxes the toolboxes
     * @return the composite
     */
    public static ToolBoxes of(List<ToolBox> boxes) {
        if (boxes == null) {
            throw new IllegalArgumentException("ToolBoxes.of boxes must not be null");
        }
        List<ToolBox> copy = new ArrayList<>(boxes.size());
        for (int i = 0; i < boxes.size(); i++) {
            if (boxes.get(i) == null) {
                throw new IllegalArgumentException("ToolBoxes.of boxes[" + i + "] must not be null");
            }
            copy.add(boxes.get(i));
        }
        return new ToolBoxes(Collections.unmodifiableList(copy));
    }

    /**
     * The toolboxes in search order.
     *
     * @return the toolboxes
     */
    public List<ToolBox> boxes() {
        return boxes;
    }

    /**
     * Looks a tool up in the first toolbox that has it.
     *
     * @param name the tool's name
     * @return the tool, or empty
     */
    public Optional<Tool> get(String name) {
        ToolBox.requireName(name, "ToolBoxes.get");
        for (ToolBox box : boxes) {
            Optional<Tool> tool = box.get(name);
            if (tool.isPresent()) {
                return tool;
            }
        }
        return Optional.empty();
    }

    /**
     * The tools that can be called, in search order, each name once.
     *
     * @return the tools
     */
    public List<Tool> tools() {
        return List.copyOf(visible().values());
    }

    /**
     * The names of the tools that can be called, in search order.
     *
     * @return the names
     */
    public List<String> names() {
        return List.copyOf(visible().keySet());
    }

    /**
     * What the model is told: one definition per name, from the first toolbox that has it.
     *
     * @return the definitions
     */
    public List<ToolDefinition> definitions() {
        return ToolBox.definitionsOf(visible().values());
    }

    /**
     * Runs one call in the first toolbox that has the tool; never throws for a failing call (see
     * {@link ToolBox#call}). An unknown tool's result lists the tools of every toolbox.
     *
     * @param call the model's tool call
     * @param context who is calling
     * @return the result
     */
    public ToolResult call(ToolCall call, ToolContext context) {
        return call(call, context, ToolResults.DEFAULT_MAX_CHARS);
    }

    /**
     * Runs one call as {@link #call(ToolCall, ToolContext)}, with the caller's limit on the
     * result's size for tools without a limit of their own (see {@link ToolResults}).
     *
     * @param call the model's tool call
     * @param context who is calling
     * @param maxResultChars the most characters of text the result keeps; at least 1
     * @return the result
     */
    public ToolResult call(ToolCall call, ToolContext context, int maxResultChars) {
        ToolBox.checkCall("ToolBoxes.call", call, context, maxResultChars);
        for (ToolBox box : boxes) {
            Optional<Tool> tool = box.get(call.name());
            if (tool.isPresent()) {
                return ToolBox.call(tool.get(), call, context, maxResultChars);
            }
        }
        return ToolBox.unknown(call, visible().keySet());
    }

    private Map<String, Tool> visible() {
        Map<String, Tool> visible = new LinkedHashMap<>();
        for (ToolBox box : boxes) {
            for (Tool tool : box.tools()) {
                visible.putIfAbsent(tool.name(), tool);
            }
        }
        return visible;
    }

    @Override
    public String toString() {
        return "ToolBoxes" + boxes;
    }
}
