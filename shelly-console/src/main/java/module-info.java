/**
 * A browser console on an engine: watch sessions and their run trees, tokens and cost, and answer
 * the decisions they wait for. Served by the JDK's own HTTP server; no front-end build, no network.
 */
module dev.shelly.console {
    requires transitive dev.shelly.engine;
    requires jdk.httpserver;
    requires tools.jackson.databind;
    requires org.slf4j;

    exports dev.shelly.console;

    // The engine starts the console of a configuration's console: section through this.
    provides dev.shelly.engine.Engine.Extension with dev.shelly.console.internal.ConsoleExtension;
}
