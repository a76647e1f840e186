package dev.shelly.agent.internal;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Calls that the JIT compilers never inline into their caller: how the frames that wait under a
 * model call do what comes before and after it.
 *
 * <p>A virtual thread that waits keeps its whole stack on the heap until it runs again, so a
 * waiting agent costs what its frames cost. A compiled frame is as large as the busiest point of
 * everything the compiler inlined into it: a frame that waits under a model call, and inlined
 * making the agent, entering its context, building the first request or taking the reply, keeps
 * room for all of that while it waits. Which of those a compiler inlines depends on what it saw
 * and in what order, so the same program kept 1.6 KB per waiting agent in one JVM and 2.1 KB in
 * another. A call made here stays a call in every JVM: the handle it goes through is read from a
 * field that is not final, which no compiler may take for a constant, so none can see what it
 * calls. It costs a few nanoseconds more than a direct call.
 *
 * <p>Pass a method reference that captures nothing ({@code Run::first}), so that the call makes
 * no object; the arguments travel beside it. What the step throws comes out as it was.
 */
public final class OutOfLine {
    // Not final, and that is the point: the compilers inline through a static final handle as
    // through a direct call. Written once, here.
    private static MethodHandle function = handle(Function.class, "apply", Object.class, Object.class);
    private static MethodHandle biFunction = handle(BiFunction.class, "apply", Object.class, Object.class, Object.class);
    private static MethodHandle consumer = handle(Consumer.class, "accept", void.class, Object.class);
    private static MethodHandle biConsumer = handle(BiConsumer.class, "accept", void.class, Object.class, Object.class);

    private OutOfLine() {}

    /**
     * Throws what a step threw, as it was: a step's checked exception (one thrown past the
     * compiler) passes as it would through a direct call.
     */
    @SuppressWarnings("unchecked")
    private static <E extends Throwable> E thrown(Throwable e) throws E {
        throw (E) e;
    }

    private static MethodHandle handle(Class<?> type, String name, Class<?> returns, Class<?>... parameters) {
        try {
            return MethodHandles.publicLookup().findVirtual(type, name, MethodType.methodType(returns, parameters));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * Applies a function, out of line.
     *
     * @param step the function; best one that captures nothing
     * @param a its argument
     * @param <A> the argument's type
     * @param <R> what it returns
     * @return what it returned
     */
    @SuppressWarnings("unchecked")
    public static <A, R> R call(Function<? super A, ? extends R> step, A a) {
        try {
            return (R) (Object) function.invokeExact((Function<?, ?>) step, (Object) a);
        } catch (Throwable e) {
            throw OutOfLine.<RuntimeException>thrown(e);
        }
    }

    /**
     * Applies a function of two arguments, out of line.
     *
     * @param step the function; best one that captures nothing
     * @param a its first argument
     * @param b its second argument
     * @param <A> the first argument's type
     * @param <B> the second argument's type
     * @param <R> what it returns
     * @return what it returned
     */
    @SuppressWarnings("unchecked")
    public static <A, B, R> R call(BiFunction<? super A, ? super B, ? extends R> step, A a, B b) {
        try {
            return (R) (Object) biFunction.invokeExact((BiFunction<?, ?, ?>) step, (Object) a, (Object) b);
        } catch (Throwable e) {
            throw OutOfLine.<RuntimeException>thrown(e);
        }
    }

    /**
     * Runs a step on one argument, out of line.
     *
     * @param step the step; best one that captures nothing
     * @param a its argument
     * @param <A> the argument's type
     */
    public static <A> void run(Consumer<? super A> step, A a) {
        try {
            consumer.invokeExact((Consumer<?>) step, (Object) a);
        } catch (Throwable e) {
            throw OutOfLine.<RuntimeException>thrown(e);
        }
    }

    /**
     * Runs a step on two arguments, out of line.
     *
     * @param step the step; best one that captures nothing
     * @param a its first argument
     * @param b its second argument
     * @param <A> the first argument's type
     * @param <B> the second argument's type
     */
    public static <A, B> void run(BiConsumer<? super A, ? super B> step, A a, B b) {
        try {
            biConsumer.invokeExact((BiConsumer<?, ?>) step, (Object) a, (Object) b);
        } catch (Throwable e) {
            throw OutOfLine.<RuntimeException>thrown(e);
        }
    }
}
