/**
 * The unified {@code Agent} and the workflows beside it.
 */
module dev.shelly.agent {
    requires transitive dev.shelly.modeladapter;
    requires transitive dev.shelly.tools;
    requires transitive dev.shelly.skills;
    // RunInterceptor.logging takes an slf4j Logger.
    requires transitive org.slf4j;

    exports dev.shelly.agent;
    exports dev.shelly.agent.workflow;
    exports dev.shelly.agent.context;

    // Jackson binds a coordinator's decision onto a record of this package.
    opens dev.shelly.agent.workflow to tools.jackson.databind;
}
