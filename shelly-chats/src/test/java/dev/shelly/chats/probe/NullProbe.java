package dev.shelly.chats.probe;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Parameter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.provider.Arguments;

/**
 * Finds every public constructor and method of the given public types, and makes one test case
 * per reference-typed parameter: call it with null there (valid samples elsewhere) and expect an
 * IllegalArgumentException whose message names the parameter (in any case, so that
 * {@code callTimeout} names {@code timeout}). Parameters documented as nullable
 * are listed by the test as {@code Type.member.parameter}.
 *
 * <p>Shared with the other modules' null-input tests through this module's test jar.
 */
public final class NullProbe {
    private NullProbe() {}

    /**
     * Valid arguments: by parameter name first (for parameters whose type says too little, such
     * as JSON text or base64), else by type; instance methods are called on the sample of their type.
     */
    public record Samples(Map<Class<?>, Supplier<Object>> byType, Map<String, Supplier<Object>> byName) {}

    public static List<Arguments> cases(List<Class<?>> types, Samples samples, Set<String> nullable) {
        List<Arguments> cases = new ArrayList<>();
        for (Class<?> type : types) {
            List<Executable> members = new ArrayList<>(Arrays.asList(type.getConstructors()));
            for (Method m : type.getDeclaredMethods()) {
                if (Modifier.isPublic(m.getModifiers()) && !m.isSynthetic() && !m.isBridge()
                        && !(m.getName().equals("equals") && m.getParameterCount() == 1)
                        && !(type.isEnum() && m.getName().equals("valueOf"))
                        && !(type.isInterface() && Modifier.isAbstract(m.getModifiers()))) {
                    members.add(m);
                }
            }
            members.sort(Comparator.comparing(Executable::toGenericString));
            for (Executable member : members) {
                Parameter[] params = member.getParameters();
                for (int i = 0; i < params.length; i++) {
                    if (params[i].getType().isPrimitive()) {
                        continue;
                    }
                    String memberName = member instanceof Constructor<?> ? "new" : member.getName();
                    String key = type.getSimpleName() + "." + memberName + "." + params[i].getName();
                    if (nullable.contains(key)) {
                        continue;
                    }
                    int slot = i;
                    cases.add(Arguments.of(Named.of(key + " " + signature(member),
                            (Runnable) () -> check(type, member, slot, false, samples)), params[i].getName()));
                    if (params[i].getType().isArray() && !params[i].getType().getComponentType().isPrimitive()) {
                        cases.add(Arguments.of(Named.of(key + "[0] " + signature(member),
                                (Runnable) () -> check(type, member, slot, true, samples)), params[i].getName()));
                    }
                }
            }
        }
        return cases;
    }

    private static String signature(Executable member) {
        return "(" + String.join(", ", Arrays.stream(member.getParameterTypes()).map(Class::getSimpleName).toList()) + ")";
    }

    private static void check(Class<?> type, Executable member, int slot, boolean element,
            Samples samples) {
        Parameter[] params = member.getParameters();
        Object[] args = new Object[params.length];
        for (int i = 0; i < params.length; i++) {
            args[i] = i != slot ? sample(params[i], samples, member)
                    : element ? java.lang.reflect.Array.newInstance(params[i].getType().getComponentType(), 1) : null;
        }
        Throwable thrown = null;
        try {
            if (member instanceof Constructor<?> c) {
                c.newInstance(args);
            } else {
                Method m = (Method) member;
                Object target = Modifier.isStatic(m.getModifiers()) ? null : sample(type, samples, member);
                m.invoke(target, args);
            }
        } catch (InvocationTargetException e) {
            thrown = e.getCause();
        } catch (ReflectiveOperationException | IllegalArgumentException e) {
            throw new AssertionError("cannot call " + member + " with " + Arrays.toString(args), e);
        }
        String name = params[slot].getName();
        assertThat(thrown).as("%s with null %s%s threw %s", member, name, element ? "[0]" : "", thrown)
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(thrown.getMessage()).as("%s with null %s%s", member, name, element ? "[0]" : "").containsIgnoringCase(name);
    }

    private static Object sample(Parameter parameter, Samples samples, Executable member) {
        Supplier<Object> named = samples.byName().get(parameter.getName());
        Object value = named == null ? null : named.get();
        return parameter.getType().isInstance(value) ? value : sample(parameter.getType(), samples, member);
    }

    private static Object sample(Class<?> type, Samples samples, Executable member) {
        if (type.isPrimitive()) {
            if (type == boolean.class) {
                return Boolean.FALSE;
            }
            if (type == long.class) {
                return 1L;
            }
            if (type == double.class) {
                return 1.0;
            }
            return 1;
        }
        Supplier<Object> s = samples.byType().get(type);
        if (s != null) {
            return s.get();
        }
        if (type.isArray()) {
            return java.lang.reflect.Array.newInstance(type.getComponentType(), 0);
        }
        if (type.isEnum()) {
            return type.getEnumConstants()[0];
        }
        throw new AssertionError("the test has no sample of " + type.getName() + " for " + member);
    }
}
