package dev.shelly.engine.config;

import java.util.function.Function;

/**
 * Replaces {@code ${VAR}} and {@code ${VAR:-default}} with values from the environment;
 * {@code $${} stands for a literal {@code ${}.
 */
final class Interpolation {
    private Interpolation() {}

    /** Why a value could not be interpolated; the caller adds the location. */
    static final class Failure extends Exception {
        private static final long serialVersionUID = 1L;

        Failure(String message) {
            super(message, null, false, false);
        }
    }

    static String apply(String text, Function<String, String> env) throws Failure {
        if (text.indexOf('$') < 0) {
            return text;
        }
        StringBuilder out = new StringBuilder(text.length());
        int i = 0;
        while (i < text.length()) {
            char c = text.charAt(i);
            if (c == '$' && text.startsWith("$${", i)) {
                out.append("${");
                i += 3;
            } else if (c == '$' && text.startsWith("${", i)) {
                int end = text.indexOf('}', i + 2);
                if (end < 0) {
                    throw new Failure("unclosed '${' in '" + text + "'; write ${NAME} or ${NAME:-default}");
                }
                out.append(resolve(text.substring(i + 2, end), env));
                i = end + 1;
            } else {
                out.append(c);
                i++;
            }
        }
        return out.toString();
    }

    private static String resolve(String expression, Function<String, String> env) throws Failure {
        int sep = expression.indexOf(":-");
        String name = sep < 0 ? expression : expression.substring(0, sep);
        if (!name.matches("[A-Za-z_][A-Za-z0-9_]*")) {
            throw new Failure("'${" + expression + "}' does not name an environment variable; write ${NAME} or ${NAME:-default}");
        }
        String value = env.apply(name);
        if (value != null && !value.isEmpty()) {
            return value;
        }
        if (sep >= 0) {
            return expression.substring(sep + 2);
        }
        throw new Failure("environment variable " + name + " is not set; set it, or give a default with ${"
                + name + ":-default}");
    }
}
