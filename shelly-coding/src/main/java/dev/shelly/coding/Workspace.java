package dev.shelly.coding;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The directory a coding agent works in, and the rule that keeps it there: every path a model
 * names is resolved against the root, symbolic links included, and refused unless the result
 * lies inside the root and is not a sensitive file.
 *
 * <pre>{@code
 * Workspace ws = Workspace.of(Path.of("repo"), Workspace.DEFAULT_SENSITIVE);
 * Path p = ws.resolve("src/Main.java");   // the real path inside the root
 * ws.resolve("../etc/passwd");            // RefusedException: path '../etc/passwd' ... '..'
 * }</pre>
 *
 * <p>Refused: an empty path, NUL and other control characters, backslashes and drive letters
 * (Windows separators), {@code ~}, any {@code ..} segment, paths longer than
 * {@value #MAX_PATH_CHARS} characters, absolute paths outside the root, a symbolic link (at any
 * depth) whose target lies outside the root or does not exist, and a path any of whose segments
 * (or, for a pattern holding {@code /}, the whole path relative to the root) matches a
 * {@linkplain #DEFAULT_SENSITIVE sensitive pattern}, compared without regard to case; the
 * sensitive check applies to the path as asked and as resolved.
 *
 * <p>The file tools then walk the resolved path again, one directory at a time from a handle on
 * the root and without following links, and open, create, delete or rename through the handle
 * of the verified parent: a directory swapped for a link after {@link #resolve} makes the call
 * fail instead of reaching outside. They read and write only regular files and directories,
 * and treat a hard link to a sensitive file as that file.
 *
 * <p>Immutable and safe for use by many threads.
 */
public final class Workspace {
    /** The longest path, in characters, a model may name. */
    public static final int MAX_PATH_CHARS = 1024;

    /**
     * Files no tool reads or writes unless configured otherwise: environment files, private keys
     * and key stores, anything named like a secret or a credential, credentials of common tools,
     * the {@code .shelly} folder (the engine's configuration and its permission store) and the
     * {@code .git} folder (its hooks run code).
     */
    public static final List<String> DEFAULT_SENSITIVE = List.of(
            ".env", ".env.*", "*secret*", "*credential*", "*.pem", "*.key", "*.p12", "*.pfx", "*.jks", "*.keystore",
            "id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*", ".ssh", ".aws", ".gnupg", ".netrc",
            ".npmrc", ".pypirc", ".git-credentials", ".shelly", ".git");

    private final Path root;
    private final List<String> sensitive;
    private final List<PathMatcher> names;
    private final List<PathMatcher> paths;

    private Workspace(Path root, List<String> sensitive) {
        this.root = root;
        this.sensitive = List.copyOf(sensitive);
        List<PathMatcher> n = new ArrayList<>();
        List<PathMatcher> p = new ArrayList<>();
        for (String s : this.sensitive) {
            PathMatcher m = FileSystems.getDefault().getPathMatcher("glob:" + s.toLowerCase(Locale.ROOT));
            (s.indexOf('/') >= 0 ? p : n).add(m);
        }
        this.names = n;
        this.paths = p;
    }

    /**
     * A workspace rooted at an existing directory.
     *
     * @param root the directory; its real path (links resolved) becomes the root
     * @param sensitive glob patterns of sensitive files: a pattern without {@code /} matches any
     *     segment of a path, one with {@code /} the whole path relative to the root
     * @return the workspace
     * @throws IllegalArgumentException when the root is not an existing directory or a pattern
     *     is blank or not a valid glob
     */
    public static Workspace of(Path root, List<String> sensitive) {
        Checks.notNull(root, "Workspace.of root");
        Checks.notNull(sensitive, "Workspace.of sensitive");
        for (int i = 0; i < sensitive.size(); i++) {
            String s = sensitive.get(i);
            if (s == null || s.isBlank()) {
                throw new IllegalArgumentException("Workspace.of sensitive[" + i + "] must not be null or blank");
            }
            try {
                FileSystems.getDefault().getPathMatcher("glob:" + s);
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("Workspace.of sensitive[" + i + "] '" + s + "' is not a valid glob: "
                        + e.getMessage(), e);
            }
        }
        if (!Files.isDirectory(root)) {
            throw new IllegalArgumentException("workspace root '" + root + "' is not an existing directory");
        }
        try {
            return new Workspace(root.toRealPath(), sensitive);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot resolve workspace root '" + root + "'", e);
        }
    }

    /**
     * The root: a real path, links resolved.
     *
     * @return the root
     */
    public Path root() {
        return root;
    }

    /**
     * The sensitive patterns.
     *
     * @return the patterns
     */
    public List<String> sensitive() {
        return sensitive;
    }

    /**
     * Resolves a path a model named to a real path inside the root.
     *
     * <p>Segments that exist are resolved with their links; the rest (a file about to be
     * created) are appended as they are. The result names no link at any depth that exists now.
     *
     * @param path the path as the model wrote it, relative to the root (or absolute inside it)
     * @return the resolved path inside the root
     * @throws RefusedException saying why the path is refused
     */
    public Path resolve(String path) {
        List<String> segments = segments(path);
        String shown = shown(path);
        Path start = root;
        checkSensitive(shown, String.join("/", segments));
        Path current = start;
        boolean exists = true;
        for (String s : segments) {
            Path next;
            try {
                next = current.resolve(s);
            } catch (RuntimeException e) {
                throw new RefusedException("path '" + shown + "' is not a valid path: " + e.getMessage());
            }
            if (exists && Files.isSymbolicLink(next)) {
                try {
                    next = next.toRealPath();
                } catch (IOException e) {
                    throw new RefusedException("path '" + shown + "' goes through the link '" + relative(current.resolve(s))
                            + "', whose target does not exist");
                }
                if (!next.startsWith(root)) {
                    throw new RefusedException("path '" + shown + "' goes through the link '" + relative(current.resolve(s))
                            + "', which points outside the workspace");
                }
            } else if (exists && !Files.exists(next, LinkOption.NOFOLLOW_LINKS)) {
                exists = false;
            }
            current = next;
        }
        if (!current.startsWith(root)) {
            throw new RefusedException("path '" + shown + "' is outside the workspace");
        }
        checkSensitive(shown, relative(current));
        return current;
    }

    private List<String> segments(String path) {
        if (path == null) {
            throw new RefusedException("a path is required");
        }
        String shown = shown(path);
        if (path.isEmpty()) {
            throw new RefusedException("the path is empty");
        }
        if (path.length() > MAX_PATH_CHARS) {
            throw new RefusedException("path '" + shown + "' is " + path.length() + " characters long; the limit is "
                    + MAX_PATH_CHARS);
        }
        for (int i = 0; i < path.length(); i++) {
            char c = path.charAt(i);
            if (c == 0) {
                throw new RefusedException("path '" + shown + "' holds a NUL character at " + i);
            }
            if (Character.isISOControl(c)) {
                throw new RefusedException("path '" + shown + "' holds a control character at " + i);
            }
            if (c == '\\') {
                throw new RefusedException("path '" + shown + "' holds a backslash at " + i
                        + "; use '/' to separate directories");
            }
        }
        if (path.length() >= 2 && path.charAt(1) == ':' && Character.isLetter(path.charAt(0))) {
            throw new RefusedException("path '" + shown + "' names a drive; use a path relative to the workspace");
        }
        if (path.startsWith("~")) {
            throw new RefusedException("path '" + shown + "' starts with '~'; use a path relative to the workspace");
        }
        List<String> segments = new ArrayList<>();
        for (String s : path.split("/")) {
            if (s.equals("..")) {
                throw new RefusedException("path '" + shown + "' holds '..'; paths stay inside the workspace");
            }
            if (!s.isEmpty() && !s.equals(".")) {
                segments.add(s);
            }
        }
        if (path.startsWith("/")) {
            Path asked;
            try {
                asked = Path.of(path).normalize();
            } catch (RuntimeException e) {
                throw new RefusedException("path '" + shown + "' is not a valid path: " + e.getMessage());
            }
            if (!asked.startsWith(root)) {
                throw new RefusedException("path '" + shown + "' is outside the workspace");
            }
            segments.clear();
            for (Path s : root.relativize(asked)) {
                if (!s.toString().isEmpty()) {
                    segments.add(s.toString());
                }
            }
        }
        return segments;
    }

    /**
     * Resolves a path to an entry of a directory inside the root without following the entry
     * itself when it is a link: what a delete or a move acts on.
     *
     * @param path the path as the model wrote it
     * @return the parent's real path with the last segment appended
     * @throws RefusedException saying why the path is refused
     */
    Path entry(String path) {
        List<String> segments = segments(path);
        String shown = shown(path);
        if (segments.isEmpty()) {
            throw new RefusedException("path '" + shown + "' is the workspace root itself");
        }
        Path parent = segments.size() == 1 ? root : resolve(String.join("/", segments.subList(0, segments.size() - 1)));
        Path p = parent.resolve(segments.getLast());
        if (!p.startsWith(root) || p.equals(root)) {
            throw new RefusedException("path '" + shown + "' is outside the workspace");
        }
        checkSensitive(shown, relative(p));
        return p;
    }

    /**
     * The path relative to the root, with {@code /} between segments; {@code .} for the root.
     *
     * @param path a path inside the root
     * @return the relative form
     */
    public String relative(Path path) {
        Checks.notNull(path, "Workspace.relative path");
        String r = root.relativize(path).toString().replace(java.io.File.separatorChar, '/');
        return r.isEmpty() ? "." : r;
    }

    /**
     * Whether a path relative to the root is sensitive.
     *
     * @param relative a path relative to the root, segments separated by {@code /}
     * @return true when one of the sensitive patterns matches it
     */
    public boolean isSensitive(String relative) {
        Checks.notNull(relative, "Workspace.isSensitive relative");
        return sensitivePattern(relative) != null;
    }

    /**
     * Whether an entry is sensitive by its own name, or by its whole path for the patterns that
     * hold {@code /}: for a walk that has checked the entry's parents already.
     *
     * @param relative the entry's path relative to the root
     * @param name its last segment
     * @return true when sensitive
     */
    boolean isSensitiveEntry(String relative, String name) {
        Path lower = Path.of(name.toLowerCase(Locale.ROOT));
        for (PathMatcher m : names) {
            if (m.matches(lower)) {
                return true;
            }
        }
        if (!paths.isEmpty()) {
            Path whole = Path.of(relative.toLowerCase(Locale.ROOT));
            for (PathMatcher m : paths) {
                if (m.matches(whole)) {
                    return true;
                }
            }
        }
        return false;
    }

    private String sensitivePattern(String relative) {
        if (relative.isEmpty() || relative.equals(".")) {
            return null;
        }
        String lower = relative.toLowerCase(Locale.ROOT);
        int k = 0;
        for (PathMatcher m : names) {
            for (String seg : lower.split("/")) {
                if (!seg.isEmpty() && m.matches(Path.of(seg))) {
                    return patternOf(k, true);
                }
            }
            k++;
        }
        k = 0;
        for (PathMatcher m : paths) {
            if (m.matches(Path.of(lower))) {
                return patternOf(k, false);
            }
            k++;
        }
        return null;
    }

    private String patternOf(int index, boolean name) {
        int k = 0;
        for (String s : sensitive) {
            if ((s.indexOf('/') < 0) == name) {
                if (k == index) {
                    return s;
                }
                k++;
            }
        }
        return "?";
    }

    private void checkSensitive(String shown, String relative) {
        String pattern = sensitivePattern(relative);
        if (pattern != null) {
            throw new RefusedException("path '" + shown + "' is a sensitive file (pattern '" + pattern
                    + "'); the coding tools do not touch it");
        }
    }

    /** A message with the root's absolute path taken out: tools name paths relative to the root. */
    String withoutRoot(String message) {
        String r = root.toString();
        return message.replace(r + "/", "").replace(r, ".");
    }

    static String shown(String path) {
        StringBuilder b = new StringBuilder(Math.min(path.length(), 120));
        for (int i = 0; i < path.length() && b.length() < 100; i++) {
            char c = path.charAt(i);
            b.append(Character.isISOControl(c) ? String.format("\\u%04x", (int) c) : String.valueOf(c));
        }
        if (path.length() > 100) {
            b.append("...");
        }
        return b.toString();
    }

    @Override
    public String toString() {
        return "Workspace[" + root + "]";
    }
}
