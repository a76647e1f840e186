/**
 * Redis backends for the engine's SPIs: state, tasks, sessions, rate limits.
 */
module dev.shelly.redis {
    requires transitive dev.shelly.engine;
    requires lettuce.core;
    requires org.slf4j;

    exports dev.shelly.redis;

    provides dev.shelly.engine.spi.SharedBackendsProvider with dev.shelly.redis.internal.RedisSharedBackendsProvider;
}
