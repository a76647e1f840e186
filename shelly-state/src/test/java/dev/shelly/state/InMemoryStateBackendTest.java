package dev.shelly.state;

/** Runs {@link StateBackendContract} on {@link InMemoryStateBackend}. */
class InMemoryStateBackendTest extends StateBackendContract {
    @Override
    protected StateBackend newBackend() {
        return new InMemoryStateBackend();
    }
}
