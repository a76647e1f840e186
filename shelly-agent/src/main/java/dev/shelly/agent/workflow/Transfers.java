package dev.shelly.agent.workflow;

import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolOutput;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

/**
 * The transfers of a {@link Handoff} group: a {@code transfer_to_<other>} tool for every other
 * member, the transfer asked for during the active member's turn, and how many took effect in
 * the current run.
 */
final class Transfers {
    private static final String NO_INPUT = """
            {"type":"object","properties":{}}""";

    private final String group;
    private final int maxHandoffs;
    private final Map<String, String> descriptions;
    private final BooleanSupplier running;
    private final AtomicReference<Transfer> pending = new AtomicReference<>();
    private volatile int made;

    /** A transfer a member asked for; refused when the limit was reached. */
    record Transfer(String from, String to, boolean refused) {}

    /**
     * @param descriptions the members' descriptions, by name, in the order they were added
     * @param running whether the group is running: a transfer is refused otherwise
     */
    Transfers(String group, int maxHandoffs, Map<String, String> descriptions, BooleanSupplier running) {
        this.group = group;
        this.maxHandoffs = maxHandoffs;
        this.descriptions = descriptions;
        this.running = running;
    }

    /** One {@code transfer_to_<other>} tool for every member but {@code from}, in the order they were added. */
    ToolBox tools(String from) {
        ToolBox box = new ToolBox();
        for (Map.Entry<String, String> e : descriptions.entrySet()) {
            String to = e.getKey();
            if (to.equals(from)) {
                continue;
            }
            String what = e.getValue().isBlank() ? "" : " (" + e.getValue().strip() + ")";
            box.register(Tool.of(Handoff.TRANSFER_PREFIX + to, "Transfer the conversation to " + to + what
                    + ". Call it when " + to + " should take over: you stop, and " + to + " answers next.", NO_INPUT,
                    (input, ctx) -> transfer(from, to)));
        }
        return box;
    }

    private ToolOutput transfer(String from, String to) {
        if (!running.getAsBoolean()) {
            return ToolOutput.error("cannot transfer to '" + to + "': hand-off group '" + group + "' is not running");
        }
        boolean refused = made >= maxHandoffs;
        Transfer asked = new Transfer(from, to, refused);
        if (!pending.compareAndSet(null, asked)) {
            return ToolOutput.error("cannot transfer to '" + to + "': the conversation is already being transferred to '"
                    + pending.get().to() + "'; transfer to one agent at a time");
        }
        if (refused) {
            return ToolOutput.error("cannot transfer to '" + to + "': this conversation reached its limit of "
                    + maxHandoffs + " handoff" + (maxHandoffs == 1 ? "" : "s"));
        }
        return ToolOutput.text("Transferred the conversation to '" + to + "'; " + to + " answers next.");
    }

    /** Starts a run: no transfer made, none asked for. */
    void start() {
        made = 0;
        pending.set(null);
    }

    /** Takes the transfer asked for during the turn that ended, or null. */
    Transfer take() {
        return pending.getAndSet(null);
    }

    /** Counts a transfer that took effect; returns how many took effect in the run. */
    int made() {
        return ++made;
    }

    /** Ends a run: a transfer asked for last is dropped. */
    void end() {
        pending.set(null);
    }
}
