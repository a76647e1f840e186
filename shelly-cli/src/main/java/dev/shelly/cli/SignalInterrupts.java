package dev.shelly.cli;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;

/**
 * Ctrl-C as the operating system sends it: {@code SIGINT}. The JDK has no supported API to
 * handle a signal; {@code sun.misc.Signal} (module {@code jdk.unsupported}) is the one every JDK
 * ships for it. It is reached by reflection, so the build compiles against no internal API and
 * warns about none. Where the signal cannot be handled (a JVM started with {@code -Xrs}, a JDK
 * without {@code jdk.unsupported}), Ctrl-C keeps ending the program.
 */
final class SignalInterrupts implements Interrupts {
    private static final String INT = "INT";

    private SignalInterrupts() {}

    static Interrupts create() {
        return new SignalInterrupts();
    }

    @Override
    public Trap trap(Runnable action) {
        try {
            Class<?> signalType = Class.forName("sun.misc.Signal");
            Class<?> handlerType = Class.forName("sun.misc.SignalHandler");
            Object signal = signalType.getConstructor(String.class).newInstance(INT);
            Method handle = signalType.getMethod("handle", signalType, handlerType);
            Object handler = Proxy.newProxyInstance(handlerType.getClassLoader(), new Class<?>[] {handlerType},
                    (proxy, method, args) -> switch (method.getName()) {
                        case "handle" -> {
                            action.run();
                            yield null;
                        }
                        case "hashCode" -> System.identityHashCode(proxy);
                        case "equals" -> proxy == args[0];
                        default -> "Ctrl-C handler";
                    });
            Object previous = handle.invoke(null, signal, handler);
            return () -> {
                try {
                    handle.invoke(null, signal, previous);
                } catch (ReflectiveOperationException e) {
                    // The handler stays; it only cancels a turn that is no longer running.
                }
            };
        } catch (InvocationTargetException e) {
            return () -> {}; // the JVM refuses to handle SIGINT (-Xrs, or the platform)
        } catch (ReflectiveOperationException | RuntimeException e) {
            return () -> {}; // no sun.misc.Signal in this JDK
        }
    }
}
