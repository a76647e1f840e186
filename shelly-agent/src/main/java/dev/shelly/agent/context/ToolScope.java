package dev.shelly.agent.context;

import dev.shelly.chats.ToolDefinition;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code tool_scope}: offers the model only some of its tools (see
 * {@link ContextStrategy#toolScope(List, List)}).
 *
 * @param allow the tools offered; empty for all
 * @param deny the tools never offered
 */
record ToolScope(List<String> allow, List<String> deny) implements KeepsMessages {
    /** The strategy's name. */
    static final String NAME = "tool_scope";

    /** Validates and copies the names. */
    public ToolScope {
        allow = names(allow, "allow");
        deny = names(deny, "deny");
        if (allow.isEmpty() && deny.isEmpty()) {
            throw new IllegalArgumentException("ToolScope needs allow or deny names");
        }
    }

    private static List<String> names(List<String> names, String field) {
        if (names == null) {
            return List.of();
        }
        for (int i = 0; i < names.size(); i++) {
            String n = names.get(i);
            if (n == null || n.isBlank() || n.equals("*") && field.equals("deny")) {
                throw new IllegalArgumentException("ToolScope " + field + "[" + i + "] must be a tool name or a prefix ending "
                        + "in '*'" + (n != null && n.equals("*") ? " (deny '*' would offer nothing)" : "") + ", was "
                        + (n == null ? "null" : "'" + n + "'"));
            }
        }
        return List.copyOf(names);
    }

    /**
     * Whether the scope offers a tool.
     *
     * @param tool the tool's name
     * @return true when it is offered
     */
    boolean offers(String tool) {
        return (allow.isEmpty() || matches(allow, tool)) && !matches(deny, tool);
    }

    private static boolean matches(List<String> patterns, String tool) {
        for (String p : patterns) {
            if (p.endsWith("*") ? tool.startsWith(p.substring(0, p.length() - 1)) : tool.equals(p)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void apply(ContextView view) {
        List<ToolDefinition> offered = view.tools();
        List<ToolDefinition> kept = new ArrayList<>(offered.size());
        for (ToolDefinition d : offered) {
            if (offers(d.name())) {
                kept.add(d);
            }
        }
        if (kept.size() != offered.size()) {
            view.tools(kept);
        }
    }
}
