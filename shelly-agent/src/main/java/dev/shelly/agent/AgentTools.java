package dev.shelly.agent;

import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolDefinition;
import dev.shelly.chats.ToolResult;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolContext;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The tools of one agent: its toolboxes, searched in order, then the built-in {@code load_skill}
 * (with skills) and {@code list_agents} and {@code delegate} (with a registry).
 *
 * <p>The built-ins are offered from constant definitions and their toolbox is made only when
 * the model calls one, so an agent that never delegates (most delegated children) pays nothing
 * for them.
 */
final class AgentTools {
    private final Agent agent;
    private final List<ToolBox> boxes;
    private final List<ToolDefinition> builtins;

    AgentTools(Agent agent, List<ToolBox> boxes, ToolDefinition skillTool, boolean orchestration) {
        String clash = builtinClash(agent.name(), boxes);
        if (clash != null) {
            throw new IllegalStateException(clash);
        }
        this.agent = agent;
        this.boxes = boxes;
        List<ToolDefinition> b = new ArrayList<>(3);
        if (skillTool != null) {
            b.add(skillTool);
        }
        if (orchestration) {
            b.add(Orchestration.LIST_AGENTS_TOOL);
            b.add(Orchestration.DELEGATE_TOOL);
        }
        this.builtins = List.copyOf(b);
    }

    /**
     * Says which toolbox holds a tool named like a built-in, or returns null when none does.
     * Toolboxes may change after the agent is built, so a run checks again.
     */
    static String builtinClash(String agent, List<ToolBox> boxes) {
        for (int i = 0; i < boxes.size(); i++) {
            for (String tool : boxes.get(i).names()) {
                if (Agent.BUILTIN_TOOLS.contains(tool)) {
                    return "toolbox " + (i + 1) + " of agent '" + agent + "' holds a tool named '" + tool
                            + "', the name of a built-in tool (" + String.join(", ", new java.util.TreeSet<>(Agent.BUILTIN_TOOLS))
                            + "); rename the tool";
                }
            }
        }
        return null;
    }

    /** What the model is told, one definition per name, the first toolbox holding a name winning. */
    List<ToolDefinition> definitions() {
        if (builtins.isEmpty() && boxes.size() == 1) {
            return boxes.getFirst().definitions();
        }
        List<ToolDefinition> all = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (ToolBox box : boxes) {
            for (ToolDefinition d : box.definitions()) {
                if (seen.add(d.name())) {
                    all.add(d);
                }
            }
        }
        for (ToolDefinition d : builtins) {
            if (seen.add(d.name())) {
                all.add(d);
            }
        }
        return all;
    }

    /** Answers one call; never throws for a failing call. */
    ToolResult call(ToolCall call, ToolContext context) {
        try {
            for (ToolBox box : boxes) {
                if (box.contains(call.name())) {
                    return box.call(call, context, agent.maxToolResultChars());
                }
            }
            for (ToolDefinition d : builtins) {
                if (d.name().equals(call.name())) {
                    return builtinBox(d.name()).call(call, context, agent.maxToolResultChars());
                }
            }
            return ToolResult.error(call.id(), "unknown tool '" + call.name() + "'; available tools: " + names());
        } catch (RuntimeException | Error e) {
            return ToolResult.error(call.id(), "tool '" + call.name() + "' failed: " + e);
        }
    }

    private ToolBox builtinBox(String name) {
        return name.equals(SkillTool.NAME) ? SkillTool.toolbox(agent.skills()) : Orchestration.toolbox(agent);
    }

    private String names() {
        Set<String> names = new LinkedHashSet<>();
        for (ToolBox box : boxes) {
            names.addAll(box.names());
        }
        for (ToolDefinition d : builtins) {
            names.add(d.name());
        }
        return names.isEmpty() ? "none" : String.join(", ", names);
    }
}
