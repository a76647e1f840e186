package dev.shelly.testing.logs;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.text.MessageFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.ResourceBundle;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Consumer;
import org.slf4j.ILoggerFactory;
import org.slf4j.IMarkerFactory;
import org.slf4j.Logger;
import org.slf4j.MDC;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.BasicMDCAdapter;
import org.slf4j.helpers.BasicMarkerFactory;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;
import org.slf4j.spi.MDCAdapter;
import org.slf4j.spi.SLF4JServiceProvider;

/**
 * Keeps log lines in memory so that a test can read what the code under test logged: at which
 * level, from which logger, with which exception, MDC and thread. Every level is enabled, so the
 * DEBUG and TRACE paths run too.
 *
 * <pre>{@code
 * try (LogCapture logs = LogCapture.start()) {
 *     engine.newSession().send("hi");
 *     assertThat(logs.lines()).extracting(LogCapture.Line::message).contains("...");
 * }
 * }</pre>
 *
 * <p>Lines reach an open capture in two ways:
 * <ul>
 *   <li>through {@link #logger(String)}, a logger that writes to this capture alone, whatever
 *       slf4j binding the test runs with (for code that takes a {@link Logger});</li>
 *   <li>from every logger of the process, when the test module makes this class its logging
 *       back end: the slf4j binding {@link Provider}, named in
 *       {@code src/test/resources/META-INF/services/org.slf4j.spi.SLF4JServiceProvider} as
 *       {@code dev.shelly.testing.logs.LogCapture$Provider}, and for {@link System.Logger} the
 *       {@link Finder}, named in {@code META-INF/services/java.lang.System$LoggerFinder} as
 *       {@code dev.shelly.testing.logs.LogCapture$Finder}. This jar registers neither itself, so
 *       it never competes with another binding on a class path.</li>
 * </ul>
 * Several captures may be open at once (tests running concurrently); each sees every line logged
 * while it is open. Lines logged while no capture is open are dropped.
 */
public final class LogCapture implements AutoCloseable {
    private static final Set<LogCapture> OPEN = ConcurrentHashMap.newKeySet();

    private final ConcurrentLinkedQueue<Line> lines = new ConcurrentLinkedQueue<>();

    private LogCapture() {}

    /**
     * One line logged.
     *
     * @param level the level, System.Logger's mapped onto slf4j's (WARNING is WARN)
     * @param logger the logger's name
     * @param message the message with its arguments put in
     * @param error the exception logged with the line, or null when none was
     * @param mdc the slf4j MDC of the logging thread at that moment
     * @param thread the name of the logging thread
     */
    public record Line(Level level, String logger, String message, Throwable error, Map<String, String> mdc,
            String thread) {
        /**
         * Checks the parts.
         *
         * @throws NullPointerException when a part other than {@code error} is null
         */
        public Line {
            Objects.requireNonNull(level, "level");
            Objects.requireNonNull(logger, "logger");
            Objects.requireNonNull(message, "message");
            mdc = Map.copyOf(Objects.requireNonNull(mdc, "mdc"));
            Objects.requireNonNull(thread, "thread");
        }

        /**
         * The line in full, as a console would print it: level, logger, message and, when an
         * exception was logged, its whole stack trace (causes and suppressed ones included).
         *
         * @return {@code "WARN dev.shelly.X - message"}, then the stack trace on the next lines
         */
        public String render() {
            StringBuilder text = new StringBuilder().append(level).append(' ').append(logger).append(" - ")
                    .append(message);
            if (error != null) {
                StringWriter trace = new StringWriter();
                error.printStackTrace(new PrintWriter(trace));
                text.append('\n').append(trace);
            }
            return text.toString();
        }

        /**
         * The level and the message.
         *
         * @return for example {@code "INFO agent 'a' started"}
         */
        @Override
        public String toString() {
            return level + " " + message;
        }
    }

    /**
     * Opens a capture: from now until {@link #close()} it keeps every line logged through the
     * process-wide back ends ({@link Provider}, {@link Finder}) when they are registered, and every
     * line of its own {@link #logger(String) loggers}.
     *
     * @return the open capture
     */
    public static LogCapture start() {
        LogCapture capture = new LogCapture();
        OPEN.add(capture);
        return capture;
    }

    /**
     * A logger, every level enabled, whose lines go to this capture alone (also after
     * {@link #close()}); for code under test that is given a {@link Logger}.
     *
     * @param name the logger's name, as lines report it
     * @return the logger
     * @throws NullPointerException when name is null
     */
    public Logger logger(String name) {
        return new CapturingLogger(Objects.requireNonNull(name, "name"), lines::add);
    }

    /**
     * The lines kept so far, oldest first.
     *
     * @return a copy
     */
    public List<Line> lines() {
        return List.copyOf(lines);
    }

    /** Stops keeping the lines of the process-wide back ends; the lines kept stay readable. */
    @Override
    public void close() {
        OPEN.remove(this);
    }

    private static void publish(Line line) {
        for (LogCapture capture : OPEN) {
            capture.lines.add(line);
        }
    }

    private static Map<String, String> mdc() {
        Map<String, String> context = MDC.getCopyOfContextMap();
        return context == null ? Map.of() : context;
    }

    /** The slf4j 2 binding that sends every logger's lines to the open captures. */
    public static final class Provider implements SLF4JServiceProvider {
        private final BasicMDCAdapter mdc = new BasicMDCAdapter();
        private final BasicMarkerFactory markers = new BasicMarkerFactory();
        private final ConcurrentMap<String, Logger> loggers = new ConcurrentHashMap<>();
        private final ILoggerFactory factory =
                name -> loggers.computeIfAbsent(name, n -> new CapturingLogger(n, LogCapture::publish));

        /** Made by slf4j's service loader. */
        public Provider() {}

        @Override
        public ILoggerFactory getLoggerFactory() {
            return factory;
        }

        @Override
        public IMarkerFactory getMarkerFactory() {
            return markers;
        }

        @Override
        public MDCAdapter getMDCAdapter() {
            return mdc;
        }

        @Override
        public String getRequestedApiVersion() {
            return "2.0.99";
        }

        @Override
        public void initialize() {}
    }

    /**
     * The {@link System.LoggerFinder} that sends every {@link System.Logger}'s lines to the open
     * captures (code that logs without slf4j, such as the model adapter's retry warnings).
     */
    public static final class Finder extends System.LoggerFinder {
        /** Made by the JDK's service loader. */
        public Finder() {}

        @Override
        public System.Logger getLogger(String name, Module module) {
            return new CapturingSystemLogger(Objects.requireNonNull(name, "name"));
        }
    }

    private static final class CapturingLogger extends LegacyAbstractLogger {
        private static final long serialVersionUID = 1L;

        private final transient Consumer<Line> sink;

        CapturingLogger(String name, Consumer<Line> sink) {
            this.name = name;
            this.sink = sink;
        }

        @Override
        public boolean isTraceEnabled() {
            return true;
        }

        @Override
        public boolean isDebugEnabled() {
            return true;
        }

        @Override
        public boolean isInfoEnabled() {
            return true;
        }

        @Override
        public boolean isWarnEnabled() {
            return true;
        }

        @Override
        public boolean isErrorEnabled() {
            return true;
        }

        @Override
        protected String getFullyQualifiedCallerName() {
            return null;
        }

        @Override
        protected void handleNormalizedLoggingCall(Level level, Marker marker, String pattern, Object[] arguments,
                Throwable throwable) {
            sink.accept(new Line(level, name, String.valueOf(MessageFormatter.basicArrayFormat(pattern, arguments)),
                    throwable, mdc(), Thread.currentThread().getName()));
        }
    }

    private record CapturingSystemLogger(String name) implements System.Logger {
        @Override
        public String getName() {
            return name;
        }

        @Override
        public boolean isLoggable(System.Logger.Level level) {
            return level != System.Logger.Level.OFF;
        }

        @Override
        public void log(System.Logger.Level level, ResourceBundle bundle, String message, Throwable thrown) {
            if (isLoggable(level)) {
                publish(new Line(slf4jLevel(level), name, String.valueOf(localized(bundle, message)), thrown, mdc(),
                        Thread.currentThread().getName()));
            }
        }

        @Override
        public void log(System.Logger.Level level, ResourceBundle bundle, String format, Object... params) {
            if (isLoggable(level)) {
                String pattern = localized(bundle, format);
                String message = params == null || params.length == 0 || pattern == null
                        ? String.valueOf(pattern)
                        : new MessageFormat(pattern).format(params);
                publish(new Line(slf4jLevel(level), name, message, null, mdc(), Thread.currentThread().getName()));
            }
        }

        private static String localized(ResourceBundle bundle, String key) {
            return bundle != null && key != null && bundle.containsKey(key) ? bundle.getString(key) : key;
        }

        private static org.slf4j.event.Level slf4jLevel(System.Logger.Level level) {
            return switch (level) {
                case ALL, TRACE -> org.slf4j.event.Level.TRACE;
                case DEBUG -> org.slf4j.event.Level.DEBUG;
                case INFO -> org.slf4j.event.Level.INFO;
                case WARNING -> org.slf4j.event.Level.WARN;
                case ERROR, OFF -> org.slf4j.event.Level.ERROR;
            };
        }
    }
}
