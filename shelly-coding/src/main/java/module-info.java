/**
 * A coding toolbox confined to a workspace: files, search, commands and git, with approval defaults.
 */
module dev.shelly.coding {
    requires transitive dev.shelly.tools;
    requires transitive dev.shelly.agent;
    requires org.slf4j;

    exports dev.shelly.coding;
}
