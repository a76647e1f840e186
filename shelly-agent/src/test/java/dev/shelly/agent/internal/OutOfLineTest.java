package dev.shelly.agent.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class OutOfLineTest {

    @Test
    void eachKindOfCallReachesItsStepWithItsArgumentsAndGivesBackWhatItReturned() {
        List<String> seen = new ArrayList<>();
        assertThat(OutOfLine.call(String::length, "four")).isEqualTo(4);
        assertThat(OutOfLine.call(String::repeat, "ab", 3)).isEqualTo("ababab");
        assertThat(OutOfLine.<String, Integer>call(s -> null, "x")).isNull();
        OutOfLine.run(seen::add, "one");
        OutOfLine.run(List::add, seen, "two");
        assertThat(seen).containsExactly("one", "two");
    }

    @Test
    void whatTheStepThrowsComesOutAsItWas() {
        CancellationException cancelled = new CancellationException("stop");
        assertThatThrownBy(() -> OutOfLine.call((String s) -> {
            throw cancelled;
        }, "x")).isSameAs(cancelled);
        StackOverflowError error = new StackOverflowError();
        assertThatThrownBy(() -> OutOfLine.run((String a, String b) -> {
            throw error;
        }, "a", "b")).isSameAs(error);
        assertThatThrownBy(() -> OutOfLine.call((String a, String b) -> {
            throw new IllegalStateException(a + b);
        }, "bad ", "input")).isInstanceOf(IllegalStateException.class).hasMessage("bad input");
    }

    @Test
    void aCheckedExceptionThrownPastTheCompilerComesOutAsItWouldFromADirectCall() {
        IOException io = new IOException("disk");
        Function<String, String> sneaky = s -> OutOfLineTest.<RuntimeException>sneak(io);
        assertThatThrownBy(() -> OutOfLine.call(sneaky, "x")).isSameAs(io);
        assertThatThrownBy(() -> OutOfLine.run((String a, String b) -> sneak(io), "a", "b")).isSameAs(io);
    }

    /**
     * The handles must stay non-final: a final static handle is a constant the compilers inline
     * through, and the waiting frames would again make room for what they call.
     */
    @Test
    void theHandlesAreReadFromFieldsThatAreNotFinal() {
        List<Field> handles = new ArrayList<>();
        for (Field f : OutOfLine.class.getDeclaredFields()) {
            if (f.getType() == MethodHandle.class) {
                handles.add(f);
            }
        }
        assertThat(handles).hasSize(4).allSatisfy(f -> {
            assertThat(Modifier.isStatic(f.getModifiers())).as(f.getName()).isTrue();
            assertThat(Modifier.isFinal(f.getModifiers())).as(f.getName()).isFalse();
        });
    }

    @SuppressWarnings("unchecked")
    private static <E extends Throwable> String sneak(Throwable e) throws E {
        throw (E) e;
    }
}
