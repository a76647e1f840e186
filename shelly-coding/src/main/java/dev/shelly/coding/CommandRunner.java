package dev.shelly.coding;

import dev.shelly.tools.internal.ChildProcesses;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Runs one program with arguments in the workspace, inside the toolbox's {@link Sandbox}: the
 * allow- and denylists, no shell unless allowed, a timeout that kills the whole sandbox, an
 * output cap with credentials taken out, and an environment built from an allowlist. The git
 * tools run through it too. The argument checks are hints for the model; the sandbox is what
 * confines.
 */
final class CommandRunner {
    /** Programs that are shells: refused unless a shell is allowed, since they would run one. */
    static final Set<String> SHELLS = Set.of("sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "csh", "tcsh",
            "ash", "busybox", "env", "xargs", "eval", "exec", "nohup", "setsid", "timeout", "nice", "script",
            "cmd", "cmd.exe", "powershell", "pwsh");

    /** Characters a shell would interpret; refused in a program or argument when no shell is allowed. */
    static final String METACHARACTERS = ";|&$`<>\n\r";

    /** Environment variable names that look like secrets; never passed to a child. */
    static boolean secretName(String name) {
        String n = name.toUpperCase(Locale.ROOT);
        return n.contains("KEY") || n.contains("TOKEN") || n.contains("SECRET") || n.contains("PASSWORD")
                || n.contains("PASSWD") || n.contains("CREDENTIAL") || n.contains("AUTH") || n.startsWith("ANTHROPIC_")
                || n.startsWith("OPENAI_") || n.startsWith("XAI_") || n.startsWith("GEMINI_") || n.startsWith("GOOGLE_")
                || n.startsWith("AWS_") || n.startsWith("AZURE_") || n.startsWith("SHELLY_");
    }

    /** The outcome of a command. */
    record Outcome(int exitCode, String output, boolean timedOut, long omittedChars) {
        String render(String command, Duration timeout) {
            StringBuilder b = new StringBuilder();
            if (timedOut) {
                b.append("command '").append(command).append("' did not finish within ").append(timeout.toSeconds())
                        .append(" s; it and every process it started were killed\n");
            } else {
                b.append("exit code ").append(exitCode).append('\n');
            }
            b.append(output);
            if (omittedChars > 0) {
                b.append("\n[output truncated: ").append(omittedChars).append(" more characters omitted]");
            }
            return b.toString();
        }
    }

    /**
     * Configuration that git takes from its environment as if given with {@code -c}: for every
     * git any command starts, hooks, fsmonitor, pagers, credential helpers and signing
     * programs are off, whatever the repository's own configuration says.
     */
    static final List<String[]> GIT_HARDENING = List.of(
            new String[] {"core.hooksPath", "/dev/null"},
            new String[] {"core.fsmonitor", "false"},
            new String[] {"core.pager", "cat"},
            new String[] {"credential.helper", ""},
            new String[] {"commit.gpgSign", "false"},
            new String[] {"tag.gpgSign", "false"},
            new String[] {"protocol.ext.allow", "never"});

    private final Workspace workspace;
    private final CodingTools.Settings settings;
    private final Redactor redactor;
    private final List<Path> hidden;
    private final List<Path> searchPath;

    CommandRunner(Workspace workspace, CodingTools.Settings settings) {
        this.workspace = workspace;
        this.settings = settings;
        this.redactor = Redactor.of(System.getenv());
        this.hidden = hidden(workspace, settings);
        List<Path> visible = new ArrayList<>();
        for (Path dir : settings.searchPath()) {
            if (!settings.sandbox().confines() || hidden.stream().noneMatch(h -> dir.startsWith(h) && !dir.startsWith(workspace.root()))) {
                visible.add(dir);
            }
        }
        this.searchPath = List.copyOf(visible);
    }

    /**
     * What a sandboxed command must not see: home directories (the root user's included), this
     * JVM's working directory and temporary directory, the workspace's parent (sibling projects)
     * and the top-level tree it lies in unless that is a system directory, {@code /run} (sockets
     * of the machine's services), {@code /var/tmp} and the configured paths.
     */
    private static List<Path> hidden(Workspace ws, CodingTools.Settings settings) {
        List<Path> h = new ArrayList<>();
        h.add(Path.of("/root"));
        h.add(Path.of("/home"));
        h.add(Path.of("/run"));
        h.add(Path.of("/var/tmp"));
        addIfSet(h, System.getProperty("user.home"));
        addIfSet(h, System.getProperty("user.dir"));
        addIfSet(h, System.getProperty("java.io.tmpdir"));
        Path parent = ws.root().getParent();
        if (parent != null && parent.getParent() != null) {
            h.add(parent);
        }
        // The tree the workspace sits in (/work, /srv, /data, ...), unless it is the system's own.
        if (ws.root().getNameCount() > 1 && !SYSTEM_ROOTS.contains(ws.root().getName(0).toString())) {
            h.add(ws.root().getRoot().resolve(ws.root().getName(0)));
        }
        h.addAll(settings.hidden());
        List<Path> all = new ArrayList<>();
        for (Path p : h) {
            Path n = p.toAbsolutePath().normalize();
            if (n.getNameCount() > 0 && !all.contains(n)) {
                all.add(n);
            }
        }
        // A path inside another hidden one (or inside the private /tmp) is covered already: one mount fewer.
        List<Path> out = new ArrayList<>();
        for (Path p : all) {
            if (p.startsWith("/tmp") && !p.equals(Path.of("/tmp"))) {
                continue;
            }
            if (all.stream().noneMatch(q -> !q.equals(p) && p.startsWith(q))) {
                out.add(p);
            }
        }
        return List.copyOf(out);
    }

    /** Top-level directories programs need: never hidden, even when the workspace lies below one. */
    static final Set<String> SYSTEM_ROOTS = Set.of("usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "etc", "var",
            "opt", "nix", "snap", "gnu", "proc", "sys", "dev", "boot");

    private static void addIfSet(List<Path> out, String dir) {
        if (dir != null && !dir.isBlank()) {
            try {
                out.add(Path.of(dir));
            } catch (RuntimeException e) {
                // Not a path this file system takes: nothing to hide.
            }
        }
    }

    /**
     * A command checked against the rules, its program located.
     *
     * @param executable the program to start (absolute)
     * @param args its arguments
     */
    record Checked(String executable, List<String> args) {
        List<String> argv() {
            List<String> all = new ArrayList<>(args.size() + 1);
            all.add(executable);
            all.addAll(args);
            return all;
        }
    }

    /** Checks a model's command against the rules and locates its program; throws a RefusedException saying why. */
    Checked check(String program, List<String> args) {
        if (program == null || program.isBlank()) {
            throw new RefusedException("a program is required");
        }
        String name = baseName(program);
        if (settings.deny().contains(name)) {
            throw new RefusedException("program '" + name + "' is on the denylist of the coding tools");
        }
        if (!settings.shellAllowed() && SHELLS.contains(name)) {
            throw new RefusedException("program '" + name + "' runs a shell or another program, and no shell is allowed");
        }
        boolean inWorkspace = program.indexOf('/') >= 0 || program.indexOf('\\') >= 0;
        if (inWorkspace && !program.startsWith("./")) {
            throw new RefusedException("program '" + Workspace.shown(program)
                    + "' must be a name found on the search path, or './' and a path inside the workspace");
        }
        List<String> all = new ArrayList<>(args.size() + 1);
        all.add(program);
        all.addAll(args);
        for (int i = 0; i < all.size(); i++) {
            String a = all.get(i);
            String where = i == 0 ? "program" : "argument " + i;
            if (a == null) {
                throw new RefusedException(where + " is null");
            }
            if (a.indexOf(0) >= 0) {
                throw new RefusedException(where + " '" + Workspace.shown(a) + "' holds a NUL character");
            }
            if (!settings.shellAllowed()) {
                for (int k = 0; k < a.length(); k++) {
                    if (METACHARACTERS.indexOf(a.charAt(k)) >= 0) {
                        throw new RefusedException(where + " '" + Workspace.shown(a) + "' holds the shell metacharacter '"
                                + Workspace.shown(String.valueOf(a.charAt(k))) + "'; commands run without a shell, so "
                                + "pass each argument on its own and use no pipes, redirections or substitutions");
                    }
                }
            }
            if (i > 0) {
                checkPathLike(where, a);
            }
        }
        Path located = inWorkspace ? workspace.resolve(program.substring(2)) : locate(program);
        Path real = realPath(located, program);
        if (settings.deny().contains(real.getFileName().toString())) {
            throw new RefusedException("program '" + name + "' is '" + real.getFileName()
                    + "', which is on the denylist of the coding tools");
        }
        if (!settings.allow().isEmpty()) {
            checkAllowed(program, real, args);
        }
        if (!settings.pushAllowed() && name.equals("git") && args.contains("push")) {
            throw new RefusedException("'git push' is not allowed for the coding tools");
        }
        return new Checked(located.toString(), List.copyOf(args));
    }

    private Path realPath(Path located, String program) {
        try {
            return located.toRealPath();
        } catch (IOException e) {
            throw new RefusedException("program '" + Workspace.shown(program) + "' cannot be resolved: "
                    + e.getClass().getSimpleName());
        }
    }

    /**
     * The program must be one the allowlist names, resolved; never a file of the workspace; and
     * the arguments must start with the entry's.
     */
    private void checkAllowed(String program, Path real, List<String> args) {
        String allowed = String.join(", ", settings.allow().stream().map(Allowlist.Entry::entry).sorted().toList());
        if (real.startsWith(workspace.root())) {
            throw new RefusedException("program '" + Workspace.shown(program) + "' is a file in the workspace; only the "
                    + "allowlist's programs may run: " + allowed);
        }
        boolean named = false;
        for (Allowlist.Entry a : settings.allow()) {
            if (!a.executable().equals(real)) {
                continue;
            }
            named = true;
            if (a.admits(args)) {
                return;
            }
        }
        if (named) {
            throw new RefusedException("program '" + Workspace.shown(program) + "' is allowed only with the arguments its "
                    + "allowlist entries name: " + String.join(", ", settings.allow().stream()
                            .filter(a -> a.executable().equals(real)).map(Allowlist.Entry::entry).sorted().toList()));
        }
        throw new RefusedException("program '" + Workspace.shown(program) + "' is not on the allowlist of the coding "
                + "tools; allowed: " + allowed);
    }

    /**
     * A hint, not the boundary (the sandbox is): an argument that names a place outside the
     * workspace or a sensitive file is refused with a clear reason, so a model learns early:
     * no absolute path, no {@code ~}, no {@code ..} segment, no sensitive segment, also after an
     * option's {@code =} or glued to a short option ({@code -t.git/hooks}).
     */
    private void checkPathLike(String where, String arg) {
        List<String> values = new ArrayList<>(3);
        values.add(arg);
        int eq = arg.indexOf('=');
        if (arg.startsWith("-") && eq > 0) {
            values.add(arg.substring(eq + 1));
        }
        if (arg.length() > 2 && arg.charAt(0) == '-' && arg.charAt(1) != '-') {
            values.add(arg.substring(2));
        }
        for (String v : values) {
            if (v.startsWith("/") || v.startsWith("~") || v.indexOf('\\') >= 0
                    || (v.length() >= 2 && v.charAt(1) == ':' && Character.isLetter(v.charAt(0)))) {
                throw new RefusedException(where + " '" + Workspace.shown(arg)
                        + "' names a path outside the workspace; use paths relative to it");
            }
            for (String seg : v.split("[/:,]")) {
                if (seg.equals("..")) {
                    throw new RefusedException(where + " '" + Workspace.shown(arg)
                            + "' holds '..'; paths stay inside the workspace");
                }
            }
            if (!v.startsWith("-") && workspace.isSensitive(v)) {
                throw new RefusedException(where + " '" + Workspace.shown(arg)
                        + "' names a sensitive file; the coding tools do not touch it");
            }
        }
    }

    /**
     * Runs a command (a checked one, or with a shell a command line) in the sandbox and waits
     * for it. The output comes back with credentials taken out.
     *
     * @param command the program (absolute, or a name on the search path) and its arguments
     * @param extraEnv variables beside the built environment
     * @param timeout how long it may run
     * @param git whether the program is git, which may change the {@code .git} folder
     */
    Outcome run(List<String> command, Map<String, String> extraEnv, Duration timeout, boolean git)
            throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(command);
        String program = cmd.getFirst();
        if (!program.startsWith("/")) {
            cmd.set(0, locate(program).toString());
        }
        Sandbox sandbox = settings.sandbox();
        try {
            sandbox.verify();
        } catch (IllegalStateException e) {
            throw new RefusedException(e.getMessage() + ". To run commands without a sandbox on purpose, set "
                    + "'sandbox: none' (CodingTools.Builder.sandbox(Sandbox.NONE))");
        }
        Map<String, String> env = environment();
        env.putAll(extraEnv);
        Masks masks = sandbox.confines() ? Masks.of(workspace, git) : new Masks(List.of(), List.of());
        List<String> argv = sandbox.command(new Sandbox.Launch(workspace.root(), cmd, env, settings.network(), hidden,
                masks.readOnly(), masks.masked()));
        ProcessBuilder pb = new ProcessBuilder(argv).directory(workspace.root().toFile()).redirectErrorStream(true);
        // The sandbox program itself gets only the built environment too: its first process is
        // visible inside, and its environment with it.
        pb.environment().clear();
        pb.environment().putAll(env);
        Process process = pb.start();
        process.getOutputStream().close();
        int cap = settings.maxOutputChars();
        Capture capture = new Capture(process.getInputStream(), cap * 4L);
        Thread reader = Thread.ofVirtual().name("shelly-coding-output").start(capture);
        boolean finished;
        try {
            finished = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            ChildProcesses.killTree(process);
            throw e;
        }
        if (!finished) {
            ChildProcesses.killTree(process);
        } else {
            // The program ended; children it left running would hold the output open.
            process.descendants().forEach(ProcessHandle::destroyForcibly);
        }
        reader.join(Duration.ofSeconds(5));
        String text = redactor.redact(capture.text());
        long omitted = capture.dropped();
        if (text.length() > cap) {
            omitted += text.length() - cap;
            text = text.substring(0, cap);
        }
        return new Outcome(finished ? process.exitValue() : -1, text, !finished, omitted);
    }

    /** Takes credentials out of a text a command produced. */
    String redact(String text) {
        return redactor.redact(text);
    }

    /**
     * The command's whole environment, built from an allowlist and never inherited: a search
     * path, a home and temporary directory of its own, a locale, git's hardening, and what the
     * toolbox adds.
     */
    Map<String, String> environment() {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("PATH", searchPath());
        String home = settings.sandbox().confines() ? "/tmp" : workspace.root().toString();
        env.put("HOME", home);
        if (settings.sandbox().confines()) {
            env.put("TMPDIR", "/tmp");
        }
        env.put("LANG", "C.UTF-8");
        env.put("LC_ALL", "C.UTF-8");
        env.put("TERM", "dumb");
        env.put("NO_COLOR", "1");
        env.put("PAGER", "cat");
        env.put("GIT_PAGER", "cat");
        env.put("GIT_EDITOR", ":");
        env.put("GIT_SEQUENCE_EDITOR", ":");
        env.put("GIT_TERMINAL_PROMPT", "0");
        env.put("GIT_CONFIG_NOSYSTEM", "1");
        env.put("GIT_CONFIG_GLOBAL", "/dev/null");
        Path parent = workspace.root().getParent();
        if (parent != null) {
            // git looks for a repository no higher than the workspace.
            env.put("GIT_CEILING_DIRECTORIES", parent.toString());
        }
        if (!settings.pushAllowed()) {
            env.put("GIT_ALLOW_PROTOCOL", "file");
        }
        env.put("GIT_CONFIG_COUNT", String.valueOf(GIT_HARDENING.size()));
        for (int i = 0; i < GIT_HARDENING.size(); i++) {
            env.put("GIT_CONFIG_KEY_" + i, GIT_HARDENING.get(i)[0]);
            env.put("GIT_CONFIG_VALUE_" + i, GIT_HARDENING.get(i)[1]);
        }
        // The toolbox's git identity, so that a commit made through a command has an author too.
        env.put("GIT_AUTHOR_NAME", settings.gitName());
        env.put("GIT_AUTHOR_EMAIL", settings.gitEmail());
        env.put("GIT_COMMITTER_NAME", settings.gitName());
        env.put("GIT_COMMITTER_EMAIL", settings.gitEmail());
        env.putAll(settings.environment());
        return env;
    }

    private String searchPath() {
        List<String> dirs = new ArrayList<>();
        for (Path p : searchPath) {
            dirs.add(p.toString());
        }
        return String.join(File.pathSeparator, dirs);
    }

    /** Finds a program on the search path the command sees. */
    Path locate(String program) {
        for (Path dir : searchPath) {
            Path candidate = dir.resolve(program);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        throw new RefusedException("program '" + program + "' was not found on the search path of the coding tools");
    }

    static String baseName(String program) {
        int slash = Math.max(program.lastIndexOf('/'), program.lastIndexOf('\\'));
        return program.substring(slash + 1);
    }

    /** Reads a process's output, keeping at most a number of bytes and counting the rest. */
    private static final class Capture implements Runnable {
        private final InputStream in;
        private final long keep;
        private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
        private volatile long droppedBytes;

        Capture(InputStream in, long keep) {
            this.in = in;
            this.keep = keep;
        }

        @Override
        public void run() {
            byte[] buf = new byte[8192];
            long dropped = 0;
            try (in) {
                int n;
                while ((n = in.read(buf)) > 0) {
                    int room = (int) Math.max(0, Math.min(n, keep - kept.size()));
                    kept.write(buf, 0, room);
                    dropped += n - room;
                    droppedBytes = dropped;
                }
            } catch (IOException e) {
                // The stream closed because the process was killed: keep what arrived.
            }
        }

        String text() {
            return kept.toString(StandardCharsets.UTF_8);
        }

        long dropped() {
            return droppedBytes;
        }
    }
}
