package dev.shelly.providers.testlog;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentMap;
import org.slf4j.ILoggerFactory;
import org.slf4j.IMarkerFactory;
import org.slf4j.Logger;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.AbstractLogger;
import org.slf4j.helpers.BasicMDCAdapter;
import org.slf4j.helpers.BasicMarkerFactory;
import org.slf4j.helpers.MessageFormatter;
import org.slf4j.spi.MDCAdapter;
import org.slf4j.spi.SLF4JServiceProvider;

/**
 * The slf4j binding of this module's tests: every line at every level, formatted with its
 * arguments and its throwable's whole stack trace, is kept so that a test can read what the
 * SDK logged. Registered in {@code META-INF/services}.
 */
public final class CapturedLogs {
    private static final ConcurrentLinkedQueue<String> LINES = new ConcurrentLinkedQueue<>();

    private CapturedLogs() {}

    /**
     * The lines logged so far, oldest first.
     *
     * @return a copy
     */
    public static List<String> lines() {
        return List.copyOf(LINES);
    }

    /** Forgets the lines logged so far. */
    public static void clear() {
        LINES.clear();
    }

    /** Keeps every call at every level. */
    static final class CapturingLogger extends AbstractLogger {
        private static final long serialVersionUID = 1L;

        CapturingLogger(String name) {
            this.name = name;
        }

        @Override
        public boolean isTraceEnabled() {
            return true;
        }

        @Override
        public boolean isTraceEnabled(Marker marker) {
            return true;
        }

        @Override
        public boolean isDebugEnabled() {
            return true;
        }

        @Override
        public boolean isDebugEnabled(Marker marker) {
            return true;
        }

        @Override
        public boolean isInfoEnabled() {
            return true;
        }

        @Override
        public boolean isInfoEnabled(Marker marker) {
            return true;
        }

        @Override
        public boolean isWarnEnabled() {
            return true;
        }

        @Override
        public boolean isWarnEnabled(Marker marker) {
            return true;
        }

        @Override
        public boolean isErrorEnabled() {
            return true;
        }

        @Override
        public boolean isErrorEnabled(Marker marker) {
            return true;
        }

        @Override
        protected String getFullyQualifiedCallerName() {
            return null;
        }

        @Override
        protected void handleNormalizedLoggingCall(Level level, Marker marker, String messagePattern, Object[] arguments,
                Throwable throwable) {
            StringBuilder line = new StringBuilder().append(level).append(' ').append(name).append(" - ")
                    .append(MessageFormatter.basicArrayFormat(messagePattern, arguments));
            if (throwable != null) {
                StringWriter trace = new StringWriter();
                throwable.printStackTrace(new PrintWriter(trace));
                line.append('\n').append(trace);
            }
            LINES.add(line.toString());
        }
    }

    /** The service provider slf4j finds. */
    public static final class Provider implements SLF4JServiceProvider {
        private final ConcurrentMap<String, Logger> loggers = new ConcurrentHashMap<>();
        private final ILoggerFactory factory = name -> loggers.computeIfAbsent(name, CapturingLogger::new);
        private final IMarkerFactory markers = new BasicMarkerFactory();
        private final MDCAdapter mdc = new BasicMDCAdapter();

        /** Creates the provider; slf4j calls it. */
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
}
