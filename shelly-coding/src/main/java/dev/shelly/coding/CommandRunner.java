package dev.shelly.coding;

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
 * Runs one program with arguments in the workspace: no shell unless allowed, the allow- and
 * denylists, metacharacters refused, a timeout that kills the whole process tree, an output cap
 * and a minimal environment. The git tools run through it too.
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

    private final Workspace workspace;
    private final CodingTools.Settings settings;

    CommandRunner(Workspace workspace, CodingTools.Settings settings) {
        this.workspace = workspace;
        this.settings = settings;
    }

    /** Checks a model's command against the rules; throws a RefusedException saying why. */
    void check(String program, List<String> args) {
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
        if (!settings.allow().isEmpty() && !settings.allow().contains(name)) {
            throw new RefusedException("program '" + name + "' is not on the allowlist of the coding tools; allowed: "
                    + String.join(", ", settings.allow().stream().sorted().toList()));
        }
        if (program.indexOf('/') >= 0 || program.indexOf('\\') >= 0) {
            if (!program.startsWith("./")) {
                throw new RefusedException("program '" + Workspace.shown(program)
                        + "' must be a name found on the search path, or './' and a path inside the workspace");
            }
            workspace.resolve(program.substring(2));
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
        if (!settings.pushAllowed() && name.equals("git") && args.contains("push")) {
            throw new RefusedException("'git push' is not allowed for the coding tools");
        }
    }

    /**
     * An argument must not name a place outside the workspace or a sensitive file: no absolute
     * path, no {@code ~}, no {@code ..} segment, no sensitive segment, also after an option's
     * {@code =}.
     */
    private void checkPathLike(String where, String arg) {
        String value = arg;
        int eq = arg.indexOf('=');
        if (arg.startsWith("-") && eq > 0) {
            value = arg.substring(eq + 1);
        }
        for (String v : List.of(arg, value)) {
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

    /** Runs a checked command (or, with a shell, a command line) and waits for it. */
    Outcome run(List<String> command, Map<String, String> extraEnv, Duration timeout) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(command);
        String program = cmd.getFirst();
        if (program.startsWith("./")) {
            cmd.set(0, workspace.resolve(program.substring(2)).toString());
        } else {
            cmd.set(0, locate(program));
        }
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(workspace.root().toFile()).redirectErrorStream(true);
        Map<String, String> env = pb.environment();
        env.clear();
        env.putAll(environment());
        env.putAll(extraEnv);
        Process process = pb.start();
        process.getOutputStream().close();
        int cap = settings.maxOutputChars();
        Capture capture = new Capture(process.getInputStream(), cap * 4L);
        Thread reader = Thread.ofVirtual().name("shelly-coding-output").start(capture);
        boolean finished;
        try {
            finished = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            killTree(process);
            throw e;
        }
        if (!finished) {
            killTree(process);
        } else {
            // The program ended; children it left running would hold the output open.
            process.descendants().forEach(ProcessHandle::destroyForcibly);
        }
        reader.join(Duration.ofSeconds(5));
        String text = capture.text();
        long omitted = capture.dropped();
        if (text.length() > cap) {
            omitted += text.length() - cap;
            text = text.substring(0, cap);
        }
        return new Outcome(finished ? process.exitValue() : -1, text, !finished, omitted);
    }

    /** The child's whole environment: nothing of the parent's but a search path and locale. */
    Map<String, String> environment() {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("PATH", searchPath());
        env.put("HOME", workspace.root().toString());
        env.put("LANG", "C.UTF-8");
        env.put("LC_ALL", "C.UTF-8");
        env.put("TERM", "dumb");
        env.put("NO_COLOR", "1");
        env.put("GIT_TERMINAL_PROMPT", "0");
        env.put("GIT_CONFIG_NOSYSTEM", "1");
        env.put("GIT_CONFIG_GLOBAL", "/dev/null");
        env.putAll(settings.environment());
        return env;
    }

    private String searchPath() {
        List<String> dirs = new ArrayList<>();
        for (Path p : settings.searchPath()) {
            dirs.add(p.toString());
        }
        return String.join(File.pathSeparator, dirs);
    }

    private String locate(String program) {
        for (Path dir : settings.searchPath()) {
            Path candidate = dir.resolve(program);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return candidate.toString();
            }
        }
        throw new RefusedException("program '" + program + "' was not found on the search path of the coding tools");
    }

    static String baseName(String program) {
        int slash = Math.max(program.lastIndexOf('/'), program.lastIndexOf('\\'));
        return program.substring(slash + 1);
    }

    static void killTree(Process process) {
        List<ProcessHandle> all = new ArrayList<>();
        process.toHandle().descendants().forEach(all::add);
        process.destroyForcibly();
        for (ProcessHandle h : all) {
            h.destroyForcibly();
        }
        // A child started while we collected them: look again.
        process.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
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
