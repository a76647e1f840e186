package dev.shelly.agent.internal;

import tools.jackson.core.StreamReadConstraints;

/**
 * Reads the tasks of a {@code delegate} call from the text of its arguments, in the one shape a
 * model sends them: {@code {"tasks":[{"agent":"a","task":"t","context":"c"}, ...]}}. A model may
 * send ten thousand tasks in one call, and no child may start before every task is read and
 * checked, so the delegating thread reads them with no general parser, no token objects and no
 * tree: about a third of what Jackson's streaming parser takes for the same text.
 *
 * <p>It reads a strict subset of JSON: one object whose only member is {@code tasks}, an array of
 * at least one object; each of those has the members {@code agent} and {@code task}, strings, and
 * may have {@code context}, a string or {@code null}, each at most once, in any order, and no
 * other. Strings may hold any escape JSON allows ({@code \n}, {@code \"}, Unicode escapes, ...)
 * and no control character; JSON's whitespace may come between tokens. Whatever falls outside
 * (another member, a number, a malformed escape, text after the object, a string longer than
 * Jackson's limit) makes it answer false having given what it read so far, which the caller then
 * drops: the arguments go the way of any tool's, through a tree, which says what is wrong or
 * reads what is valid and unusual.
 */
final class TaskReader {
    /** Where the tasks go, in order, as they are read. */
    @FunctionalInterface
    interface Tasks {
        /**
         * One task, as sent (not stripped).
         *
         * @param agent the agent it names
         * @param task what it asks
         * @param context its context, or null when it gives none or {@code null}
         * @return false to stop the reading, which then answers false
         */
        boolean task(String agent, String task, String context);
    }

    /** The members of a task, as {@link #member()} names them. */
    private static final int AGENT = 0;
    private static final int TASK = 1;
    private static final int CONTEXT = 2;

    private final String text;
    private final int end;
    /** The longest string Jackson reads by default; a longer one is refused, as Jackson refuses it. */
    private final int maxString;
    private int at;
    /** The agent and the context of the previous task: the next task's equal text is given as the same string. */
    private String lastAgent;
    private String lastContext;

    private TaskReader(String text, int maxString) {
        this.text = text;
        this.end = text.length();
        this.maxString = maxString;
    }

    /**
     * Reads the tasks.
     *
     * @param arguments the call's arguments, as the model sent them
     * @param tasks where each task goes
     * @return true when the arguments are in the shape read here and {@code tasks} took every task
     */
    static boolean read(String arguments, Tasks tasks) {
        // Jackson's limits, as a parser made now would apply them: a string too long is refused by
        // this reader too; a limit on the document or on its tokens (none by default) leaves the
        // arguments to Jackson.
        StreamReadConstraints limits = StreamReadConstraints.defaults();
        if (limits.getMaxDocumentLength() > 0 || limits.getMaxTokenCount() > 0) {
            return false;
        }
        return new TaskReader(arguments, limits.getMaxStringLength()).tasks(tasks);
    }

    private boolean tasks(Tasks tasks) {
        if (!next('{') || !next('"') || !text.startsWith("tasks\"", at)) {
            return false;
        }
        at += 6;
        if (!next(':') || !next('[')) {
            return false;
        }
        do {
            if (!next('{')) {
                return false;
            }
            String agent = null;
            String task = null;
            String context = null;
            boolean hasContext = false;
            do {
                switch (member()) {
                    case AGENT -> {
                        if (agent != null || (agent = string(lastAgent)) == null) {
                            return false;
                        }
                        lastAgent = agent;
                    }
                    case TASK -> {
                        if (task != null || (task = string(null)) == null) {
                            return false;
                        }
                    }
                    case CONTEXT -> {
                        if (hasContext) {
                            return false;
                        }
                        hasContext = true;
                        skipSpace();
                        if (text.startsWith("null", at)) {
                            at += 4;
                        } else if ((context = string(lastContext)) == null) {
                            return false;
                        } else {
                            lastContext = context;
                        }
                    }
                    default -> {
                        return false; // another member
                    }
                }
            } while (next(','));
            if (!next('}') || agent == null || task == null || !tasks.task(agent, task, context)) {
                return false;
            }
        } while (next(','));
        if (!next(']') || !next('}')) {
            return false;
        }
        skipSpace();
        return at == end;
    }

    /** The member whose name comes next, and its colon: {@link #AGENT}, {@link #TASK}, {@link #CONTEXT} or -1. */
    private int member() {
        if (!next('"')) {
            return -1;
        }
        int member;
        if (text.startsWith("agent\"", at)) {
            member = AGENT;
            at += 6;
        } else if (text.startsWith("task\"", at)) {
            member = TASK;
            at += 5;
        } else if (text.startsWith("context\"", at)) {
            member = CONTEXT;
            at += 8;
        } else {
            return -1;
        }
        return next(':') ? member : -1;
    }

    /**
     * The string that comes next, or null when none does or it is not valid JSON; {@code previous}
     * itself when it has the same text.
     */
    private String string(String previous) {
        if (!next('"')) {
            return null;
        }
        int from = at;
        for (int i = from; i < end; i++) {
            char c = text.charAt(i);
            if (c == '"') {
                at = i + 1;
                int length = i - from;
                if (length > maxString) {
                    return null;
                }
                return previous != null && previous.length() == length && text.regionMatches(from, previous, 0, length)
                        ? previous : text.substring(from, i);
            }
            if (c == '\\') {
                return escaped(from, i);
            }
            if (c < 0x20) {
                return null;
            }
        }
        return null;
    }

    /** The rest of a string that has an escape at {@code i}; null when it is not valid JSON. */
    private String escaped(int from, int i) {
        StringBuilder out = new StringBuilder(i - from + 16).append(text, from, i);
        while (i < end) {
            char c = text.charAt(i++);
            if (c == '"') {
                at = i;
                return out.length() > maxString ? null : out.toString();
            }
            if (c < 0x20) {
                return null;
            }
            if (c != '\\') {
                out.append(c);
                continue;
            }
            if (i == end) {
                return null;
            }
            char e = text.charAt(i++);
            switch (e) {
                case '"', '\\', '/' -> out.append(e);
                case 'b' -> out.append('\b');
                case 'f' -> out.append('\f');
                case 'n' -> out.append('\n');
                case 'r' -> out.append('\r');
                case 't' -> out.append('\t');
                case 'u' -> {
                    if (end - i < 4) {
                        return null;
                    }
                    int unit = 0;
                    for (int k = 0; k < 4; k++) {
                        int digit = hex(text.charAt(i++));
                        if (digit < 0) {
                            return null;
                        }
                        unit = unit << 4 | digit;
                    }
                    out.append((char) unit);
                }
                default -> {
                    return null;
                }
            }
        }
        return null;
    }

    private static int hex(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        if (c >= 'A' && c <= 'F') {
            return c - 'A' + 10;
        }
        return -1;
    }

    /** Whether {@code c} comes next, after any whitespace; if so, it is passed. */
    private boolean next(char c) {
        skipSpace();
        if (at < end && text.charAt(at) == c) {
            at++;
            return true;
        }
        return false;
    }

    /** Passes JSON's whitespace: space, tab, line feed, carriage return. */
    private void skipSpace() {
        while (at < end) {
            char c = text.charAt(at);
            if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
                return;
            }
            at++;
        }
    }
}
