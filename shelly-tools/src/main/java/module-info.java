/**
 * The tool model. Tool input arrives as a Jackson tree, so Jackson is part of its API.
 */
module dev.shelly.tools {
    requires transitive dev.shelly.chats;
    requires transitive tools.jackson.databind;

    exports dev.shelly.tools;
}
