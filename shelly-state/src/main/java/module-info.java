/**
 * The blackboard and the task board agents share.
 */
module dev.shelly.state {
    requires transitive dev.shelly.tools;
    requires org.slf4j;

    exports dev.shelly.state;
    exports dev.shelly.state.tasks;
    exports dev.shelly.state.spi;
}
