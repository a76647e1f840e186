package dev.shelly.state;

/** Runs {@link StoreContentionContract} on {@link InMemoryStateBackend}. */
class InMemoryStoreContentionTest extends StoreContentionContract {
    @Override
    protected StateBackend newBackend() {
        return new InMemoryStateBackend();
    }
}
