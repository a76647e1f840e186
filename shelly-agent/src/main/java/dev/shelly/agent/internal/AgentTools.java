package dev.shelly.agent.internal;

import dev.shelly.agent.RunContext;
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
 * The tools of one run: the agent's toolboxes, searched in order, then the built-in
 * {@code load_skill} (with skills) and {@code list_agents} and {@code delegate} (when the run
 * may delegate).
 *
 * <p>The built-ins are offered from constant definitions and their toolbox is made only when
 * the model calls one, so an agent that never delegates (most delegated children) pays nothing
 * for them.
 */
final class AgentTools {
    private final Run run;
    private final List<ToolBox> boxes;
    private final List<ToolDefinition> builtins;

    AgentTools(Run run, List<ToolBox> boxes, ToolDefinition skillTool) {
        String clash = AgentSpec.builtinClash(run.name(), boxes);
        if (clash != null) {
            throw new IllegalStateException(clash);
        }
        this.run = run;
        this.boxes = boxes;
        List<ToolDefinition> b = new ArrayList<>(3);
        if (skillTool != null) {
            b.add(skillTool);
        }
        if (run.canDelegate) {
            b.add(Orchestration.LIST_AGENTS_TOOL);
            b.add(Orchestration.DELEGATE_TOOL);
        }
        this.builtins = List.copyOf(b);
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
        return List.copyOf(all);
    }

    /** Whether a tool of that name is one of the run's tools. */
    boolean knows(String name) {
        for (ToolBox box : boxes) {
            if (box.contains(name)) {
                return true;
            }
        }
        for (ToolDefinition d : builtins) {
            if (d.name().equals(name)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Answers one call; never throws for a failing call. When the call is a {@code delegate}
     * whose children wait for a decision (with {@link Approvals}), says why in {@code waiting}.
     */
    ToolResult call(ToolCall call, ToolContext context, Orchestration.Waiting waiting) {
        int limit = run.agent.maxToolResultChars();
        try {
            return answer(call, context, limit, waiting);
        } catch (RuntimeException | Error e) {
            return ToolResult.error(call.id(), "tool '" + call.name() + "' failed: " + e);
        }
    }

    private ToolResult answer(ToolCall call, ToolContext context, int limit, Orchestration.Waiting waiting) {
        for (ToolBox box : boxes) {
            if (box.contains(call.name())) {
                return box.call(call, context, limit);
            }
        }
        for (ToolDefinition d : builtins) {
            if (d.name().equals(call.name())) {
                return builtinBox(d.name(), call.id(), waiting).call(call, context, limit);
            }
        }
        RunContext ctx = run.context;
        if ((call.name().equals(Orchestration.DELEGATE) || call.name().equals(Orchestration.LIST_AGENTS))
                && ctx.registry().isPresent() && ctx.depth() >= ctx.delegationLimit()) {
            // Not offered at the limit; a model that calls it anyway learns why, not just that it is unknown.
            String why = ctx.delegationLimit() == 0 ? "delegation is off for it (its delegation depth limit is 0)"
                    : "it runs at delegation depth " + ctx.depth() + " and the delegation depth limit is "
                            + ctx.delegationLimit();
            return ToolResult.error(call.id(), "tool '" + call.name() + "' is not offered to agent '" + run.name()
                    + "': " + why + "; do the work yourself with the tools you have: " + names());
        }
        return ToolResult.error(call.id(), "unknown tool '" + call.name() + "'; available tools: " + names());
    }

    private ToolBox builtinBox(String name, String callId, Orchestration.Waiting waiting) {
        return name.equals(SkillTool.NAME) ? SkillTool.toolbox(run.agent.skills())
                : Orchestration.toolbox(run, callId, waiting);
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
