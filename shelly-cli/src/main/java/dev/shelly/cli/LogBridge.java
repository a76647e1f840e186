package dev.shelly.cli;

import java.text.MessageFormat;
import java.util.ResourceBundle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends what the JDK's {@link System.Logger} is told to slf4j, so that the modules that log
 * through it (the model adapter's retries and fallbacks, which need no logging jar) write the same
 * one-line, level-filtered messages on standard error as the rest, instead of
 * {@code java.util.logging}'s two-line records. Found by the JDK through
 * {@code META-INF/services/java.lang.System$LoggerFinder}, so it must be public.
 */
public final class LogBridge extends System.LoggerFinder {
    /** For the JDK's service loader. */
    public LogBridge() {}

    @Override
    public System.Logger getLogger(String name, Module module) {
        return new Bridged(LoggerFactory.getLogger(name));
    }

    /** One logger, forwarding each level to slf4j's nearest. */
    private record Bridged(Logger log) implements System.Logger {
        @Override
        public String getName() {
            return log.getName();
        }

        @Override
        public boolean isLoggable(Level level) {
            return switch (level) {
                case ALL, TRACE -> log.isTraceEnabled();
                case DEBUG -> log.isDebugEnabled();
                case INFO -> log.isInfoEnabled();
                case WARNING -> log.isWarnEnabled();
                case ERROR -> log.isErrorEnabled();
                case OFF -> false;
            };
        }

        @Override
        public void log(Level level, ResourceBundle bundle, String message, Throwable thrown) {
            switch (level) {
                case ALL, TRACE -> log.trace(message, thrown);
                case DEBUG -> log.debug(message, thrown);
                case INFO -> log.info(message, thrown);
                case WARNING -> log.warn(message, thrown);
                case ERROR -> log.error(message, thrown);
                case OFF -> {
                    // Nothing is logged at OFF.
                }
            }
        }

        @Override
        public void log(Level level, ResourceBundle bundle, String format, Object... params) {
            if (isLoggable(level)) {
                log(level, bundle, params == null || params.length == 0 ? format : MessageFormat.format(format, params),
                        (Throwable) null);
            }
        }
    }
}
