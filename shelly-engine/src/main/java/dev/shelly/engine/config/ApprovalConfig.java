package dev.shelly.engine.config;

import dev.shelly.agent.ToolPolicy;
import dev.shelly.modeladapter.spi.InvalidSettingException;
import java.util.List;
import java.util.Locale;

/**
 * Which tools an agent calls freely, which never, and which only after a person approves the
 * call: the {@code approval:} section of an agent (and the {@code default_policy:} of the
 * top-level {@code approvals:} section).
 *
 * <pre>{@code
 * agents:
 *   - name: writer
 *     toolboxes: [files, github]
 *     approval:
 *       ask: [fs_write*, mcp_github_*]
 *       deny: [shell_exec]
 *       allow: [fs_read*]
 *       otherwise: allow
 *       ask_user: true
 * }</pre>
 *
 * <p>Entries are exact tool names or globs ({@code *}, {@code ?}). An exact name wins over every
 * glob; among globs, {@code deny} wins over {@code ask} and {@code ask} over {@code allow}. They
 * apply to every kind of tool: Java and MCP tools, {@code delegate}, {@code list_agents},
 * {@code load_skill} and {@code ask_user}.
 *
 * @param allow tools that run without asking
 * @param ask tools that wait for a person's decision
 * @param deny tools that never run (the model reads that the policy denied them)
 * @param otherwise what a tool no entry matches gets: {@code allow} (the default), {@code ask}
 *     or {@code deny}
 * @param askUser whether the agent is offered {@code ask_user}, through which the model asks the
 *     person a question; null for no
 */
public record ApprovalConfig(List<String> allow, List<String> ask, List<String> deny, String otherwise,
        Boolean askUser) {

    /** Validates the patterns and the default. */
    public ApprovalConfig {
        allow = patterns(allow, "allow");
        ask = patterns(ask, "ask");
        deny = patterns(deny, "deny");
        otherwise = otherwise == null ? "allow" : otherwise.strip().toLowerCase(Locale.ROOT);
        if (!List.of("allow", "ask", "deny").contains(otherwise)) {
            throw new InvalidSettingException("otherwise", "expected allow, ask or deny, got '" + otherwise + "'");
        }
    }

    private static List<String> patterns(List<String> values, String field) {
        if (values == null) {
            return List.of();
        }
        for (int i = 0; i < values.size(); i++) {
            try {
                ToolPolicy.builder().rule(values.get(i), ToolPolicy.Permission.ALLOW);
            } catch (IllegalArgumentException e) {
                throw new InvalidSettingException(field + "[" + i + "]", values.get(i) == null
                        ? "a tool name or pattern must not be empty"
                        : e.getMessage().replace("ToolPolicy rule pattern ", "tool pattern "));
            }
        }
        return List.copyOf(values);
    }

    /**
     * The policy these settings make.
     *
     * @return the policy
     */
    public ToolPolicy policy() {
        ToolPolicy.Builder b = ToolPolicy.builder();
        b.deny(deny.toArray(String[]::new)).ask(ask.toArray(String[]::new)).allow(allow.toArray(String[]::new));
        return b.otherwise(ToolPolicy.Permission.valueOf(otherwise.toUpperCase(Locale.ROOT))).build();
    }

    /**
     * Whether the agent is offered {@code ask_user}.
     *
     * @return true when asked for
     */
    public boolean offersAskUser() {
        return Boolean.TRUE.equals(askUser);
    }
}
