package dev.shelly.cli;

import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * Ctrl-C as the operating system sends it: {@code SIGINT}. The JDK has no supported API to
 * handle a signal; {@code sun.misc.Signal} (module {@code jdk.unsupported}) is the one every JDK
 * ships for it. Where the signal cannot be handled (a JVM started with {@code -Xrs}, a platform
 * without it), Ctrl-C keeps ending the program.
 */
final class SignalInterrupts implements Interrupts {
    private static final String INT = "INT";

    private SignalInterrupts() {}

    static Interrupts create() {
        return new SignalInterrupts();
    }

    @Override
    public Trap trap(Runnable action) {
        Signal signal = new Signal(INT);
        SignalHandler previous;
        try {
            previous = Signal.handle(signal, s -> action.run());
        } catch (IllegalArgumentException | UnsupportedOperationException e) {
            return () -> {};
        }
        return () -> Signal.handle(signal, previous);
    }
}
