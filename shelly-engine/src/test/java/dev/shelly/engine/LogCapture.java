package dev.shelly.engine;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ConcurrentHashMap;
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
 * The engine tests' slf4j binding: keeps log lines in memory while a capture is open, so a test
 * can read what a run logged, at which level and with which MDC. Every level is enabled, so the
 * DEBUG paths run in every test; lines are dropped when no capture is open.
 */
final class LogCapture implements AutoCloseable {
    private static volatile ConcurrentLinkedQueue<Line> active;

    private final ConcurrentLinkedQueue<Line> lines = new ConcurrentLinkedQueue<>();

    private LogCapture() {}

    /** One line logged. */
    record Line(Level level, String logger, String message, Map<String, String> mdc, String thread) {}

    static LogCapture start() {
        LogCapture capture = new LogCapture();
        active = capture.lines;
        return capture;
    }

    List<Line> lines() {
        return List.copyOf(lines);
    }

    @Override
    public void close() {
        active = null;
    }

    /** Registered in META-INF/services for slf4j 2 to find. */
    public static final class Provider implements SLF4JServiceProvider {
        private final BasicMDCAdapter mdc = new BasicMDCAdapter();
        private final BasicMarkerFactory markers = new BasicMarkerFactory();
        private final ConcurrentMap<String, Logger> loggers = new ConcurrentHashMap<>();
        private final ILoggerFactory factory = name -> loggers.computeIfAbsent(name, CapturingLogger::new);

        /** Made by the service loader. */
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

    private static final class CapturingLogger extends LegacyAbstractLogger {
        private static final long serialVersionUID = 1L;

        CapturingLogger(String name) {
            this.name = name;
        }

        @Override
        public boolean isTraceEnabled() {
            return false;
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
            ConcurrentLinkedQueue<Line> sink = active;
            if (sink == null) {
                return;
            }
            String text = MessageFormatter.basicArrayFormat(pattern, arguments);
            Map<String, String> context = MDC.getCopyOfContextMap();
            sink.add(new Line(level, name, throwable == null ? text : text + " " + throwable,
                    context == null ? Map.of() : Map.copyOf(context), Thread.currentThread().getName()));
        }
    }
}
