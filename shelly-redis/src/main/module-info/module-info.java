/**
 * Redis backends for the storage, state and model adapter SPIs: state, tasks, sessions, rate
 * limits. It never sees the engine: the engine finds it with ServiceLoader.
 */
// Lettuce has no module descriptor: its automatic module name is stable (Automatic-Module-Name).
@SuppressWarnings("requires-automatic")
module dev.shelly.redis {
    requires transitive dev.shelly.storage;
    requires lettuce.core;
    requires org.slf4j;

    exports dev.shelly.redis;

    provides dev.shelly.storage.spi.SharedBackendsProvider with dev.shelly.redis.internal.RedisSharedBackendsProvider;
}
