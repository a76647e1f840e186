/**
 * Redis backends for the storage, state and model adapter SPIs: state, tasks, sessions, rate
 * limits. It never sees the engine: the engine finds it with ServiceLoader.
 */
module dev.shelly.redis {
    requires transitive dev.shelly.storage;
    requires lettuce.core;
    requires org.slf4j;

    exports dev.shelly.redis;

    provides dev.shelly.storage.spi.SharedBackendsProvider with dev.shelly.redis.internal.RedisSharedBackendsProvider;
}
