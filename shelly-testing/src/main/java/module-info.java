/**
 * Test utilities: a scripted {@code Completer}. For test scope.
 */
module dev.shelly.testing {
    requires transitive dev.shelly.modeladapter;

    exports dev.shelly.testing;
}
