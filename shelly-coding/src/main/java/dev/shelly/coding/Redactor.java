package dev.shelly.coding;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Takes credentials out of what a command printed before it goes back to the model: the user
 * part of URLs ({@code https://user:token@host}), {@code Authorization} header values (as
 * {@code git config -l} prints an {@code extraheader}), and the value of every variable of this
 * JVM's environment whose name looks like a secret. The sandbox already keeps the JVM's
 * environment out of reach; this is the second line, for what a repository or a tool holds.
 */
final class Redactor {
    static final String MARK = "[redacted]";

    /** Values shorter than this are not searched for: they cannot be real keys, and would garble text. */
    static final int MIN_SECRET_CHARS = 8;

    private static final Pattern USERINFO = Pattern.compile("(?i)\\b([a-z][a-z0-9+.-]*://)[^/@\\s\"'<>]+@");
    private static final Pattern AUTHORIZATION = Pattern.compile(
            "(?i)(authorization\\s*[:=]\\s*(?:(?:basic|bearer|token|digest)\\s+)?)[^\\s\"']+");

    private final List<String> secrets;

    private Redactor(List<String> secrets) {
        this.secrets = secrets;
    }

    /** A redactor for the secret-looking variables of an environment. */
    static Redactor of(Map<String, String> environment) {
        List<String> s = new ArrayList<>();
        environment.forEach((name, value) -> {
            if (CommandRunner.secretName(name) && value != null && value.length() >= MIN_SECRET_CHARS) {
                s.add(value);
            }
        });
        // The longest first, so that a value holding another is taken out whole.
        s.sort(Comparator.comparingInt(String::length).reversed());
        return new Redactor(List.copyOf(s));
    }

    String redact(String text) {
        String out = USERINFO.matcher(text).replaceAll("$1" + MARK + "@");
        out = AUTHORIZATION.matcher(out).replaceAll("$1" + MARK);
        for (String s : secrets) {
            if (out.contains(s)) {
                out = out.replace(s, MARK);
            }
        }
        return out;
    }
}
