package dev.shelly.coding;

import static dev.shelly.coding.CodingTools.COPY;
import static dev.shelly.coding.CodingTools.DELETE;
import static dev.shelly.coding.CodingTools.EDIT;
import static dev.shelly.coding.CodingTools.GIT_ADD;
import static dev.shelly.coding.CodingTools.GIT_COMMIT;
import static dev.shelly.coding.CodingTools.GIT_DIFF;
import static dev.shelly.coding.CodingTools.GIT_LOG;
import static dev.shelly.coding.CodingTools.GIT_PUSH;
import static dev.shelly.coding.CodingTools.GIT_STATUS;
import static dev.shelly.coding.CodingTools.LIST;
import static dev.shelly.coding.CodingTools.MKDIR;
import static dev.shelly.coding.CodingTools.MOVE;
import static dev.shelly.coding.CodingTools.PATCH;
import static dev.shelly.coding.CodingTools.READ;
import static dev.shelly.coding.CodingTools.RUN;
import static dev.shelly.coding.CodingTools.SEARCH;
import static dev.shelly.coding.CodingTools.STAT;
import static dev.shelly.coding.CodingTools.WRITE;

import dev.shelly.agent.ToolPolicy;
import dev.shelly.agent.ToolPolicy.Permission;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The coding tools' approval defaults, and how they lie beneath an agent's own policy. */
final class ApprovalDefaults {
    private ApprovalDefaults() {}

    /** Tools that only look are allowed; every tool that changes something or runs a program is asked about. */
    static Map<String, Permission> of(boolean push) {
        Map<String, Permission> m = new LinkedHashMap<>();
        for (String t : List.of(READ, LIST, STAT, SEARCH, GIT_STATUS, GIT_DIFF, GIT_LOG)) {
            m.put(t, Permission.ALLOW);
        }
        for (String t : List.of(WRITE, EDIT, PATCH, MOVE, COPY, DELETE, MKDIR, RUN, GIT_ADD, GIT_COMMIT)) {
            m.put(t, Permission.ASK);
        }
        if (push) {
            m.put(GIT_PUSH, Permission.ASK);
        }
        return m;
    }

    /**
     * Lays per-tool defaults beneath a policy.
     *
     * @param base the policy whose rules win
     * @param defaults the permission of each tool no rule of {@code base} names
     * @return the combined policy
     */
    static ToolPolicy over(ToolPolicy base, Map<String, Permission> defaults) {
        ToolPolicy.Builder allowing = ToolPolicy.builder();
        ToolPolicy.Builder denying = ToolPolicy.builder();
        for (ToolPolicy.Rule r : base.rules()) {
            allowing.rule(r.pattern(), r.permission());
            denying.rule(r.pattern(), r.permission());
        }
        ToolPolicy a = allowing.otherwise(Permission.ALLOW).build();
        ToolPolicy d = denying.otherwise(Permission.DENY).build();
        ToolPolicy.Builder out = ToolPolicy.builder();
        defaults.forEach((tool, dflt) -> {
            Permission x = a.decide(tool);
            // The same answer under both defaults: one of the agent's rules names the tool.
            out.rule(tool, x == d.decide(tool) ? x : dflt);
        });
        for (ToolPolicy.Rule r : base.rules()) {
            if (!(r.exact() && defaults.containsKey(r.pattern()))) {
                out.rule(r.pattern(), r.permission());
            }
        }
        return out.otherwise(base.otherwise()).build();
    }
}
