package dev.shelly.state.tasks;

/** Runs {@link TaskBoardContentionContract} on {@link InMemoryTaskBackend}. */
class InMemoryTaskBoardContentionTest extends TaskBoardContentionContract {
    @Override
    protected TaskBackend newBackend() {
        return new InMemoryTaskBackend();
    }
}
