package dev.shelly.agent;

import java.util.ArrayList;
import java.util.List;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;

/** An slf4j logger that keeps what it is given, at every level. */
final class CapturingLogger extends LegacyAbstractLogger {
    private static final long serialVersionUID = 1L;

    /** One logged line. */
    record Line(Level level, String text, Throwable error) {
        @Override
        public String toString() {
            return level + " " + text;
        }
    }

    final List<Line> lines = new ArrayList<>();

    CapturingLogger() {
        this.name = "test";
    }

    @Override
    protected String getFullyQualifiedCallerName() {
        return null;
    }

    @Override
    protected synchronized void handleNormalizedLoggingCall(Level level, Marker marker, String pattern, Object[] args,
            Throwable t) {
        lines.add(new Line(level, MessageFormatter.basicArrayFormat(pattern, args), t));
    }

    synchronized List<String> texts() {
        List<String> out = new ArrayList<>();
        for (Line l : lines) {
            out.add(l.toString());
        }
        return out;
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
}
