package dev.shelly.engine;

import java.nio.file.Path;

/**
 * A JVM that starts a session, lets its turn pause for a decision, prints {@code PAUSED} and the
 * pending ids, and then waits to be killed with the decision pending.
 *
 * <p>Arguments: the test folder, the session id, the message.
 */
public final class ApprovalPauseProcess {
    private ApprovalPauseProcess() {}

    /**
     * Runs it.
     *
     * @param args folder, id, message
     * @throws Exception never on purpose
     */
    public static void main(String[] args) throws Exception {
        Engine engine = ApprovalEngines.builder(Path.of(args[0])).build();
        Session session = engine.newSession(args[1]);
        Turn turn = session.send(args[2]);
        System.out.println("PAUSED " + String.join(",", turn.pending().stream().map(p -> p.id()).toList()));
        System.out.flush();
        System.in.read(); // hold the session until killed
    }
}
