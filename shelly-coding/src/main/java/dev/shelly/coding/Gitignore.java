package dev.shelly.coding;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The rules of the {@code .gitignore} files met on the way down a tree: blank lines and
 * {@code #} comments skipped, {@code !} re-includes, a trailing {@code /} matches directories
 * only, a pattern holding a {@code /} other than at its end is anchored to its file's directory,
 * {@code *}, {@code ?}, {@code [...]} and {@code **} as git reads them. The last matching rule
 * wins. Immutable: {@link #enter} gives the rules for a subdirectory.
 */
final class Gitignore {
    private record Rule(String base, Pattern pattern, boolean negate, boolean dirOnly) {}

    static final Gitignore EMPTY = new Gitignore(List.of());

    private final List<Rule> rules;

    private Gitignore(List<Rule> rules) {
        this.rules = rules;
    }

    /**
     * The rules for a directory: these plus those of its own {@code .gitignore}.
     *
     * @param lines the lines of the directory's {@code .gitignore}, empty when it has none
     * @param relative its path relative to the root ("" for the root)
     */
    Gitignore enter(List<String> lines, String relative) {
        if (lines.isEmpty()) {
            return this;
        }
        List<Rule> all = new ArrayList<>(rules);
        String base = relative.isEmpty() ? "" : relative + "/";
        for (String raw : lines) {
            String line = raw.stripTrailing();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            boolean negate = line.startsWith("!");
            if (negate) {
                line = line.substring(1);
            }
            if (line.startsWith("\\")) {
                line = line.substring(1);
            }
            boolean dirOnly = line.endsWith("/");
            if (dirOnly) {
                line = line.substring(0, line.length() - 1);
            }
            if (line.isEmpty()) {
                continue;
            }
            boolean anchored = line.indexOf('/') >= 0;
            if (line.startsWith("/")) {
                line = line.substring(1);
            }
            String re = (anchored ? "" : "(?:.*/)?") + regex(line) + "(?:/.*)?";
            all.add(new Rule(base, Pattern.compile(re), negate, dirOnly));
        }
        return new Gitignore(List.copyOf(all));
    }

    /**
     * Whether a path is ignored.
     *
     * @param relative the path relative to the root
     * @param directory whether it is a directory
     */
    boolean ignored(String relative, boolean directory) {
        boolean ignored = false;
        for (Rule r : rules) {
            if (!relative.startsWith(r.base())) {
                continue;
            }
            String rest = relative.substring(r.base().length());
            if (r.dirOnly() && !directory && r.pattern().matcher(rest).matches()) {
                // A directory-only rule matches a file only through a directory above it.
                if (!matchesParent(r.pattern(), rest)) {
                    continue;
                }
            }
            if (r.pattern().matcher(rest).matches()) {
                ignored = !r.negate();
            }
        }
        return ignored;
    }

    private static boolean matchesParent(Pattern p, String rest) {
        int slash = rest.lastIndexOf('/');
        while (slash > 0) {
            rest = rest.substring(0, slash);
            if (p.matcher(rest).matches()) {
                return true;
            }
            slash = rest.lastIndexOf('/');
        }
        return false;
    }

    static String regex(String glob) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < glob.length(); i++) {
            char c = glob.charAt(i);
            if (c == '*' && i + 1 < glob.length() && glob.charAt(i + 1) == '*') {
                i++;
                if (i + 1 < glob.length() && glob.charAt(i + 1) == '/') {
                    i++;
                    b.append("(?:.*/)?");
                } else {
                    b.append(".*");
                }
            } else if (c == '*') {
                b.append("[^/]*");
            } else if (c == '?') {
                b.append("[^/]");
            } else if (c == '[') {
                int end = glob.indexOf(']', i + 1);
                if (end < 0) {
                    b.append("\\[");
                } else {
                    String set = glob.substring(i + 1, end);
                    if (set.startsWith("!")) {
                        set = "^" + set.substring(1);
                    }
                    b.append('[').append(set.replace("\\", "\\\\").replace("[", "\\[")).append(']');
                    i = end;
                }
            } else {
                b.append(Pattern.quote(String.valueOf(c)));
            }
        }
        return b.toString();
    }
}
