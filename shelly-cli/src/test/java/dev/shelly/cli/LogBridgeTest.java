package dev.shelly.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The JDK's System.Logger reaches slf4j, with slf4j's levels (warnings and errors only). */
class LogBridgeTest {

    @Test
    void theJdkFindsTheBridgeAndItsLevelsAreSlf4jsLevels() {
        System.Logger retries = System.getLogger("dev.shelly.modeladapter.RetryingCompleter");

        assertThat(System.LoggerFinder.getLoggerFinder()).isInstanceOf(LogBridge.class);
        assertThat(retries.getName()).isEqualTo("dev.shelly.modeladapter.RetryingCompleter");
        assertThat(retries.isLoggable(System.Logger.Level.WARNING)).isTrue();
        assertThat(retries.isLoggable(System.Logger.Level.ERROR)).isTrue();
        assertThat(retries.isLoggable(System.Logger.Level.INFO)).isFalse();
        assertThat(retries.isLoggable(System.Logger.Level.DEBUG)).isFalse();
        assertThat(retries.isLoggable(System.Logger.Level.OFF)).isFalse();
    }
}
