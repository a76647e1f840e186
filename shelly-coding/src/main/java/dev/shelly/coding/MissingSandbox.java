package dev.shelly.coding;

import java.util.List;

/** The default on a system with no built-in sandbox: refuses every command, saying why. */
final class MissingSandbox implements Sandbox {
    private final String os;

    MissingSandbox(String os) {
        this.os = os;
    }

    @Override
    public String name() {
        return "unavailable";
    }

    @Override
    public void verify() {
        throw new IllegalStateException("no command sandbox is built in for '" + os + "'; the coding tools confine "
                + "commands with bubblewrap on Linux. Plug in a Sandbox of your own with CodingTools.Builder.sandbox(...)");
    }

    @Override
    public List<String> command(Launch launch) {
        verify();
        return launch.command();
    }

    @Override
    public String toString() {
        return "Sandbox[unavailable on " + os + "]";
    }
}
