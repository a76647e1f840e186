/**
 * The HTTP base providers build on. OkHttp is used here but shown in no signature.
 */
// Its internal package is exported to a module built after it, which javac does not see yet.
@SuppressWarnings("module")
module dev.shelly.provider.spi {
    requires transitive dev.shelly.modeladapter;
    requires okhttp3;
    requires org.slf4j;

    exports dev.shelly.provider.spi;
    // The bytes of each stream event, for the providers Shelly ships.
    exports dev.shelly.provider.spi.internal to dev.shelly.providers;
}
