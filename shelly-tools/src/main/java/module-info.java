/**
 * The tool model. Tool input arrives as a Jackson tree, so Jackson is part of its API.
 */
// Its internal package is exported to modules built after it, which javac does not see yet.
@SuppressWarnings("module")
module dev.shelly.tools {
    requires transitive dev.shelly.chats;
    requires transitive tools.jackson.databind;

    exports dev.shelly.tools;
    // Starting and killing programs, shared by the modules that run them for tools; and the
    // handlers that read a call's arguments as text (an agent's delegate call).
    exports dev.shelly.tools.internal to dev.shelly.agent, dev.shelly.mcp, dev.shelly.coding, dev.shelly.engine;
}
