/**
 * Test utilities: a scripted {@code Completer} and an in-memory log capture. For test scope.
 */
module dev.shelly.testing {
    requires transitive dev.shelly.modeladapter;
    requires transitive org.slf4j;

    exports dev.shelly.testing;
    exports dev.shelly.testing.logs;
}
