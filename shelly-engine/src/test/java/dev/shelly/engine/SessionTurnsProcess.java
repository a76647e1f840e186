package dev.shelly.engine;

import java.nio.file.Path;
import java.time.Duration;

/**
 * A second JVM for the session tests: resumes one session again and again, one turn per
 * resume, as a service replica would per request, then prints how many turns it sent.
 *
 * <p>Arguments: the sessions folder, the session id, the number of turns, a prefix for the texts.
 */
public final class SessionTurnsProcess {
    private SessionTurnsProcess() {}

    /** A client's pause between two requests, so the two processes take turns on the session. */
    static void pauseBetweenRequests() {
        try {
            Thread.sleep(5);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Runs the turns.
     *
     * @param args folder, id, count, prefix
     */
    public static void main(String[] args) {
        Path dir = Path.of(args[0]);
        String id = args[1];
        int count = Integer.parseInt(args[2]);
        String prefix = args[3];
        try (Engine engine = EchoEngines.builder(dir, Duration.ofMillis(5)).build()) {
            System.out.println("ready");
            System.out.flush();
            int sent = 0;
            for (int i = 0; i < count; i++) {
                try (Session session = engine.resume(id)) {
                    session.send(prefix + i);
                    sent++;
                }
                pauseBetweenRequests();
            }
            System.out.println("sent " + sent);
        }
    }
}
