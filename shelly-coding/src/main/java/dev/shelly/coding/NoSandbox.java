package dev.shelly.coding;

import java.util.List;

/** {@link Sandbox#NONE}: the command as it is. */
final class NoSandbox implements Sandbox {
    NoSandbox() {}

    @Override
    public String name() {
        return "none";
    }

    @Override
    public boolean confines() {
        return false;
    }

    @Override
    public void verify() {}

    @Override
    public List<String> command(Launch launch) {
        return launch.command();
    }

    @Override
    public String toString() {
        return "Sandbox.NONE";
    }
}
