package dev.shelly.state.tasks;

/** Runs {@link TaskBoardContract} on {@link InMemoryTaskBackend}. */
class InMemoryTaskBoardTest extends TaskBoardContract {
    @Override
    protected TaskBackend newBackend() {
        return new InMemoryTaskBackend();
    }
}
