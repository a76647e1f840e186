/**
 * Storage below the engine: the session store SPI and its file store, the session codec, and the
 * shared backends a storage module (shelly-redis) plugs into an engine without depending on it.
 */
// Its internal package is exported to modules built after it, which javac does not see yet.
@SuppressWarnings("module")
module dev.shelly.storage {
    requires transitive dev.shelly.agent;
    requires transitive dev.shelly.state;
    requires transitive tools.jackson.databind;
    requires org.slf4j;

    exports dev.shelly.storage;
    exports dev.shelly.storage.spi;
    // The session codec, session ids, the lease bookkeeping every session store shares and the
    // file of remembered decisions: for the modules that keep sessions, not for applications.
    exports dev.shelly.storage.internal to dev.shelly.redis, dev.shelly.engine;

    // The engine binds the redis: section of config.yaml onto RedisConfig with Jackson.
    opens dev.shelly.storage.spi to tools.jackson.databind;
}
