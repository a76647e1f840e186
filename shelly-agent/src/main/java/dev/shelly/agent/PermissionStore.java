package dev.shelly.agent;

import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Where "always" decisions for a project are kept ({@link Answer.Scope#PROJECT}): per agent and
 * exact tool name, allow or deny. The engine keeps them in a file under {@code .shelly/}.
 *
 * <p>Implementations are safe for use by many threads (and, for a shared file, processes).
 */
public interface PermissionStore {

    /**
     * The remembered decision for a tool of an agent.
     *
     * @param agent the agent
     * @param tool the exact tool name
     * @return {@link ToolPolicy.Permission#ALLOW} or {@link ToolPolicy.Permission#DENY}, or empty
     */
    Optional<ToolPolicy.Permission> remembered(String agent, String tool);

    /**
     * Remembers a decision, replacing an earlier one for the same agent and tool.
     *
     * @param agent the agent
     * @param tool the exact tool name
     * @param permission {@link ToolPolicy.Permission#ALLOW} or {@link ToolPolicy.Permission#DENY}
     */
    void remember(String agent, String tool, ToolPolicy.Permission permission);

    /**
     * A store that keeps decisions in memory, for one process.
     *
     * @return the store
     */
    static PermissionStore inMemory() {
        ConcurrentHashMap<String, ToolPolicy.Permission> map = new ConcurrentHashMap<>();
        return new PermissionStore() {
            @Override
            public Optional<ToolPolicy.Permission> remembered(String agent, String tool) {
                return Optional.ofNullable(map.get(agent + '\u0000' + tool));
            }

            @Override
            public void remember(String agent, String tool, ToolPolicy.Permission permission) {
                if (permission == ToolPolicy.Permission.ASK || permission == null) {
                    throw new IllegalArgumentException("a remembered permission is ALLOW or DENY, was " + permission);
                }
                map.put(agent + '\u0000' + tool, permission);
            }
        };
    }
}
