package dev.shelly.tools.internal;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the modules that start programs for tools (MCP servers, a skill's scripts, the coding
 * toolbox's commands) share: the environment a program inherits, and killing a program together
 * with everything it started.
 */
public final class ChildProcesses {
    private static final boolean WINDOWS = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("win");
    /** What a child inherits from the JVM's environment by default, as in the MCP reference clients. */
    private static final Set<String> INHERITED = WINDOWS
            ? Set.of("APPDATA", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "PATH", "PATHEXT", "PROCESSOR_ARCHITECTURE",
                    "PROGRAMFILES", "SYSTEMDRIVE", "SYSTEMROOT", "TEMP", "USERNAME", "USERPROFILE")
            : Set.of("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER");
    private static final Path PROC = Path.of("/proc");
    /** The program that starts another in a session of its own, or null where there is none (or no /proc to find its members). */
    private static final Path SETSID = setsid();

    private ChildProcesses() {}

    /**
     * Keeps only the variables a child inherits by default (a search path, the user, home, shell
     * and terminal; on Windows their equivalents), and no exported shell function.
     *
     * @param env a process builder's environment, changed in place
     */
    public static void keepInherited(Map<String, String> env) {
        env.entrySet().removeIf(e -> !INHERITED.contains(WINDOWS ? e.getKey().toUpperCase(Locale.ROOT) : e.getKey())
                || e.getValue().startsWith("()"));
    }

    /**
     * Starts a process and records its tree. Where the system can start a session and list its
     * members ({@code setsid} and {@code /proc}), the program runs in a session of its own, so
     * that {@link Tree#kill()} also finds what it started after it exited; a program that cannot
     * be found is started as it is, so that starting it fails as without a session.
     *
     * @param builder the program, its environment and working directory
     * @return the started process's tree
     * @throws IOException when the program cannot be started
     */
    public static Tree start(ProcessBuilder builder) throws IOException {
        List<String> command = builder.command();
        if (SETSID == null || command.isEmpty() || !found(command.getFirst(), builder)) {
            return new Tree(builder.start(), false);
        }
        List<String> line = new ArrayList<>(command.size() + 1);
        line.add(SETSID.toString());
        line.addAll(command);
        return new Tree(builder.command(line).start(), true);
    }

    /** Whether a program names an executable file: a path (from the working directory) or a name on the search path. */
    private static boolean found(String program, ProcessBuilder builder) {
        if (program.indexOf('/') >= 0) {
            Path dir = builder.directory() == null ? Path.of("") : builder.directory().toPath();
            Path file = dir.resolve(program);
            return Files.isRegularFile(file) && Files.isExecutable(file);
        }
        String path = builder.environment().get("PATH");
        if (path == null) {
            return false;
        }
        for (String dir : path.split(File.pathSeparator)) {
            if (!dir.isEmpty()) {
                Path file = Path.of(dir, program);
                if (Files.isRegularFile(file) && Files.isExecutable(file)) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Kills a process and its descendants at once, without waiting.
     *
     * @param process the process
     */
    public static void killTree(Process process) {
        List<ProcessHandle> all = new ArrayList<>();
        process.toHandle().descendants().forEach(all::add);
        process.destroyForcibly();
        all.forEach(ProcessHandle::destroyForcibly);
        // A child started while they were collected: look again.
        process.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
    }

    private static Path setsid() {
        if (WINDOWS || !Files.isReadable(PROC.resolve("self").resolve("stat"))) {
            return null;
        }
        for (String dir : List.of("/usr/bin", "/bin")) {
            Path candidate = Path.of(dir, "setsid");
            if (Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        return null;
    }

    /**
     * A started process and every process it started: the descendants seen while it ran (a child
     * whose parent exits is handed to another parent and is no longer a descendant), and, for a
     * process {@linkplain #start started} in a session of its own, every process still in it.
     */
    public static final class Tree {
        private final Process process;
        private final boolean ownSession;
        private final Set<ProcessHandle> seen = ConcurrentHashMap.newKeySet();

        private Tree(Process process, boolean ownSession) {
            this.process = process;
            this.ownSession = ownSession;
            record();
        }

        /**
         * The process.
         *
         * @return the process
         */
        public Process process() {
            return process;
        }

        /** Adds the process's present descendants to the record. */
        public void record() {
            process.descendants().forEach(seen::add);
        }

        /** Kills the process and every process of its tree that is still alive, without waiting. */
        public void kill() {
            record();
            // Through its handle: Process.destroyForcibly would also close the streams, losing the
            // output a reader has not taken yet from a program that already ended.
            process.toHandle().destroyForcibly();
            seen.forEach(ProcessHandle::destroyForcibly);
            if (ownSession) {
                sessionMembers().forEach(ProcessHandle::destroyForcibly);
            }
            process.descendants().forEach(ProcessHandle::destroyForcibly);
        }

        /** The processes of the session the process leads, itself excluded (Linux: from {@code /proc}). */
        private List<ProcessHandle> sessionMembers() {
            String session = Long.toString(process.pid());
            List<ProcessHandle> members = new ArrayList<>();
            try (DirectoryStream<Path> all = Files.newDirectoryStream(PROC)) {
                for (Path dir : all) {
                    String name = dir.getFileName().toString();
                    if (name.isEmpty() || !Character.isDigit(name.charAt(0)) || name.equals(session)) {
                        continue;
                    }
                    if (session.equals(sessionOf(dir))) {
                        ProcessHandle.of(Long.parseLong(name)).ifPresent(members::add);
                    }
                }
            } catch (IOException | RuntimeException e) {
                // No listing: the recorded descendants are what can be killed.
            }
            return members;
        }

        /** The session id in a {@code /proc/PID/stat} (the sixth field; the second, the name, may hold spaces), or null. */
        private static String sessionOf(Path dir) {
            String stat;
            try {
                stat = Files.readString(dir.resolve("stat"), StandardCharsets.ISO_8859_1);
            } catch (IOException e) {
                return null; // The process ended while the folder was listed.
            }
            String[] fields = stat.substring(stat.lastIndexOf(')') + 1).trim().split(" ");
            return fields.length > 3 ? fields[3] : null;
        }
    }
}
