package dev.shelly.redis;

import dev.shelly.state.Watchable;
import dev.shelly.state.spi.WatchedCells;

/**
 * What the Redis blackboard and task board share: the {@link RedisCells} they keep their values
 * in, through which they are watched and which closing stops listening to.
 */
abstract sealed class CellsBackend implements WatchedCells, AutoCloseable permits RedisStateBackend, RedisTaskBackend {
    /** The cells: every write of the backend goes through their one compare-and-set. */
    final RedisCells cells;

    CellsBackend(RedisCells cells) {
        this.cells = cells;
    }

    @Override
    public final Watchable changes() {
        return cells.changes();
    }

    /** Stops listening for changes; reads and writes still work, a watcher wakes only by timeout. */
    @Override
    public final void close() {
        cells.close();
    }
}
