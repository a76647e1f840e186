package dev.shelly.agent.workflow;

import dev.shelly.chats.ShellyException;

/** How the workflows put a failure into words. */
final class Failures {
    private Failures() {}

    /** The exception's own message when it says something (Shelly's always do), else its class and message. */
    static String describe(Throwable e) {
        String message = e.getMessage();
        if (message != null && !message.isBlank() && (e instanceof ShellyException || e instanceof IllegalArgumentException
                || e instanceof IllegalStateException)) {
            return message;
        }
        return e.toString();
    }

    /** Text cut to one line of at most 120 characters, in quotes. */
    static String abbreviate(String text) {
        String oneLine = text.replace('\n', ' ').strip();
        return oneLine.length() <= 120 ? "'" + oneLine + "'" : "'" + oneLine.substring(0, 117) + "...'";
    }
}
