package dev.shelly.engine.config;

import dev.shelly.agent.Approvals;
import dev.shelly.modeladapter.spi.InvalidSettingException;
import java.time.Duration;
import java.util.Locale;

/**
 * How decisions about tool calls are waited for: the top-level {@code approvals:} section.
 *
 * <pre>{@code
 * approvals:
 *   timeout: 10m          # how long a call waits for a decision; none: for ever
 *   on_timeout: deny      # deny the call and go on, or cancel the paused turn
 *   default_policy:       # for agents without an approval: section of their own
 *     ask: [delegate]
 * }</pre>
 *
 * @param timeout how long a call may wait for a decision, or null for ever
 * @param onTimeout {@code deny} (the default) or {@code cancel}
 * @param defaultPolicy the policy of agents without their own, or null to allow every tool
 */
public record ApprovalsConfig(Duration timeout, String onTimeout, ApprovalConfig defaultPolicy) {

    /** Validates the values. */
    public ApprovalsConfig {
        if (timeout != null && (timeout.isZero() || timeout.isNegative())) {
            throw new InvalidSettingException("timeout", "must be positive, was " + timeout);
        }
        onTimeout = onTimeout == null ? "deny" : onTimeout.strip().toLowerCase(Locale.ROOT);
        if (!onTimeout.equals("deny") && !onTimeout.equals("cancel")) {
            throw new InvalidSettingException("on_timeout", "expected deny or cancel, got '" + onTimeout + "'");
        }
        if (defaultPolicy != null && defaultPolicy.askUser() != null) {
            throw new InvalidSettingException("default_policy.ask_user", "ask_user is chosen per agent, in the agent's "
                    + "approval: section");
        }
    }

    /**
     * What happens to a call that waited too long.
     *
     * @return the action
     */
    public Approvals.OnTimeout action() {
        return Approvals.OnTimeout.valueOf(onTimeout.toUpperCase(Locale.ROOT));
    }
}
