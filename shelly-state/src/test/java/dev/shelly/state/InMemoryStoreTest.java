package dev.shelly.state;

/** Runs {@link StoreContract} on {@link InMemoryStateBackend}. */
class InMemoryStoreTest extends StoreContract {
    @Override
    protected StateBackend newBackend() {
        return new InMemoryStateBackend();
    }
}
