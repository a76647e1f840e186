package dev.shelly.state.spi;

import dev.shelly.state.Watchable;
import java.time.Duration;

/**
 * A {@link Watchable} whose changes are those of the cells it keeps its values in: a backend built
 * on {@link VersionedCells} (or on cells of another medium) names them once, in {@link #changes()},
 * and is watched through them.
 */
public interface WatchedCells extends Watchable {

    /**
     * What watchers wait on: the changes of the cells.
     *
     * @return the cells' changes
     */
    Watchable changes();

    @Override
    default long revision() {
        return changes().revision();
    }

    @Override
    default long awaitChange(long seen, Duration timeout) throws InterruptedException {
        return changes().awaitChange(seen, timeout);
    }
}
