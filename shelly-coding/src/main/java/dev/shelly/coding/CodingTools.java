package dev.shelly.coding;

import dev.shelly.agent.ToolPolicy;
import dev.shelly.agent.ToolPolicy.Permission;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolOutput;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A coding toolbox rooted at a workspace directory: files, search, commands and git, none of
 * which can reach outside the workspace.
 *
 * <pre>{@code
 * CodingTools coding = CodingTools.builder(Path.of("repo"))
 *         .allowCommands("java", "mvn", "git")
 *         .build();
 * Agent coder = Agent.builder("coder").completer(model).toolboxes(coding.toolBox()).build();
 * Approvals approvals = Approvals.builder().policy("coder", coding.policy()).build();
 * }</pre>
 *
 * <p>Every refused call (a path outside the workspace or sensitive, a command the rules do not
 * allow, an edit whose text is ambiguous) is an error result whose text says why; nothing a
 * model sends makes a tool throw past the toolbox. Calls that change the same file are
 * serialised, and every write goes to a temporary file renamed over the target, so no reader
 * sees a half-written file.
 *
 * <p><b>Approval defaults</b> ({@link #policy()}): the tools that only look ({@value #READ},
 * {@value #LIST}, {@value #STAT}, {@value #SEARCH}, {@value #GIT_STATUS}, {@value #GIT_DIFF},
 * {@value #GIT_LOG}) are allowed; every tool that changes something or runs a program is asked
 * about. {@link Builder#permission} changes one; {@link #policyOver} lays the defaults under an
 * agent's own policy, whose rules win.
 */
public final class CodingTools {
    private static final Logger LOG = LoggerFactory.getLogger(CodingTools.class);

    /** Reads a text file, with line numbers, optionally a range of lines. */
    public static final String READ = "fs_read";
    /** Writes a whole file. */
    public static final String WRITE = "fs_write";
    /** Replaces an exact piece of text in a file. */
    public static final String EDIT = "fs_edit";
    /** Applies a unified diff. */
    public static final String PATCH = "fs_patch";
    /** Lists a directory, or the files matching a glob. */
    public static final String LIST = "fs_list";
    /** Tells a file's type, size and time of change. */
    public static final String STAT = "fs_stat";
    /** Moves or renames a file or directory. */
    public static final String MOVE = "fs_move";
    /** Copies a file. */
    public static final String COPY = "fs_copy";
    /** Deletes a file or directory. */
    public static final String DELETE = "fs_delete";
    /** Makes a directory and its parents. */
    public static final String MKDIR = "fs_mkdir";
    /** Searches files for a regular expression. */
    public static final String SEARCH = "search_files";
    /** Runs a program. */
    public static final String RUN = "run_command";
    /** {@code git status}. */
    public static final String GIT_STATUS = "git_status";
    /** {@code git diff}. */
    public static final String GIT_DIFF = "git_diff";
    /** {@code git log}. */
    public static final String GIT_LOG = "git_log";
    /** {@code git add}. */
    public static final String GIT_ADD = "git_add";
    /** {@code git commit}. */
    public static final String GIT_COMMIT = "git_commit";
    /** {@code git push}: offered only when {@linkplain Builder#pushAllowed allowed}. */
    public static final String GIT_PUSH = "git_push";

    /** How long a command may run unless configured otherwise. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

    /**
     * Programs refused unless configured otherwise: privilege changes, network clients, process
     * killers, disk and system tools.
     */
    public static final List<String> DEFAULT_DENIED = List.of("sudo", "su", "doas", "ssh", "scp", "sftp", "rsync",
            "curl", "wget", "nc", "ncat", "netcat", "telnet", "ftp", "dd", "mkfs", "mount", "umount", "shutdown",
            "reboot", "halt", "poweroff", "kill", "killall", "pkill", "crontab", "chown");

    /** Settings shared by the tools. */
    record Settings(List<Allowlist.Entry> allow, Set<String> deny, boolean shellAllowed, boolean pushAllowed, Duration timeout,
            int maxOutputChars, int maxReadChars, long maxEditBytes, int maxMatches, int maxListEntries,
            List<Path> searchPath, Map<String, String> environment, String gitName, String gitEmail, Sandbox sandbox,
            boolean network, List<Path> hidden) {}

    private final Workspace workspace;
    private final Settings settings;
    private final Map<String, Permission> permissions;
    private final ToolBox toolBox;

    private CodingTools(Builder b) {
        this.workspace = Workspace.of(b.root, b.sensitive);
        Settings draft = new Settings(List.of(), Set.copyOf(b.deny), b.shellAllowed, b.pushAllowed, b.timeout,
                b.maxOutputChars, b.maxReadChars, b.maxEditBytes, b.maxMatches, b.maxListEntries,
                List.copyOf(b.searchPath), Map.copyOf(b.environment), b.gitName, b.gitEmail, b.sandbox, b.network,
                List.copyOf(b.hidden));
        List<Allowlist.Entry> allowed = Allowlist.resolve(b.allow, workspace, new CommandRunner(workspace, draft));
        this.settings = new Settings(allowed, draft.deny(), b.shellAllowed, b.pushAllowed, b.timeout, b.maxOutputChars,
                b.maxReadChars, b.maxEditBytes, b.maxMatches, b.maxListEntries, draft.searchPath(), draft.environment(),
                b.gitName, b.gitEmail, b.sandbox, b.network, draft.hidden());
        if (!b.sandbox.confines()) {
            LOG.warn("coding tools in {}: commands and git run WITHOUT a sandbox (sandbox: none); a model can read and "
                    + "change everything this JVM can", workspace.root().getFileName());
        }
        Map<String, Permission> p = new LinkedHashMap<>(defaults(b.pushAllowed));
        p.putAll(b.permissions);
        if (!b.pushAllowed) {
            p.remove(GIT_PUSH);
        }
        this.permissions = Map.copyOf(p);
        this.toolBox = ToolBox.of(tools().toArray(Tool[]::new));
    }

    /**
     * Starts building a toolbox rooted at a directory.
     *
     * @param workspace an existing directory
     * @return a builder
     */
    public static Builder builder(Path workspace) {
        return new Builder(Checks.notNull(workspace, "CodingTools.builder workspace"));
    }

    /**
     * The tools, for an agent's toolboxes.
     *
     * @return the toolbox
     */
    public ToolBox toolBox() {
        return toolBox;
    }

    /**
     * The workspace the tools stay in.
     *
     * @return the workspace
     */
    public Workspace workspace() {
        return workspace;
    }

    /**
     * The approval defaults of these tools: ask before anything that changes a file or runs a
     * program, allow the rest; every other tool is allowed.
     *
     * @return the policy
     */
    public ToolPolicy policy() {
        return policyOver(ToolPolicy.ALLOW_ALL);
    }

    /**
     * An agent's own policy with the approval defaults of these tools beneath it: for a coding
     * tool that none of the agent's rules (exact or glob) names, the default applies; everything
     * else the agent's policy decides, its default included.
     *
     * @param agentPolicy the agent's policy
     * @return the combined policy
     */
    public ToolPolicy policyOver(ToolPolicy agentPolicy) {
        Checks.notNull(agentPolicy, "CodingTools.policyOver agentPolicy");
        return over(agentPolicy, permissions);
    }

    /**
     * The approval default of each tool, as {@link #policy()} applies them.
     *
     * @return tool name to permission
     */
    public Map<String, Permission> permissions() {
        return permissions;
    }

    /**
     * Lays per-tool defaults beneath a policy.
     *
     * @param base the policy whose rules win
     * @param defaults the permission of each tool no rule of {@code base} names
     * @return the combined policy
     */
    static ToolPolicy over(ToolPolicy base, Map<String, Permission> defaults) {
        ToolPolicy.Builder allowing = ToolPolicy.builder();
        ToolPolicy.Builder denying = ToolPolicy.builder();
        for (ToolPolicy.Rule r : base.rules()) {
            allowing.rule(r.pattern(), r.permission());
            denying.rule(r.pattern(), r.permission());
        }
        ToolPolicy a = allowing.otherwise(Permission.ALLOW).build();
        ToolPolicy d = denying.otherwise(Permission.DENY).build();
        ToolPolicy.Builder out = ToolPolicy.builder();
        defaults.forEach((tool, dflt) -> {
            Permission x = a.decide(tool);
            // The same answer under both defaults: one of the agent's rules names the tool.
            out.rule(tool, x == d.decide(tool) ? x : dflt);
        });
        for (ToolPolicy.Rule r : base.rules()) {
            if (!(r.exact() && defaults.containsKey(r.pattern()))) {
                out.rule(r.pattern(), r.permission());
            }
        }
        return out.otherwise(base.otherwise()).build();
    }

    private static Map<String, Permission> defaults(boolean push) {
        Map<String, Permission> m = new LinkedHashMap<>();
        for (String t : List.of(READ, LIST, STAT, SEARCH, GIT_STATUS, GIT_DIFF, GIT_LOG)) {
            m.put(t, Permission.ALLOW);
        }
        for (String t : List.of(WRITE, EDIT, PATCH, MOVE, COPY, DELETE, MKDIR, RUN, GIT_ADD, GIT_COMMIT)) {
            m.put(t, Permission.ASK);
        }
        if (push) {
            m.put(GIT_PUSH, Permission.ASK);
        }
        return m;
    }

    @FunctionalInterface
    private interface Op {
        ToolOutput run(Args args) throws Exception;
    }

    private Tool tool(String name, String description, String schema, Op op) {
        return Tool.of(name, description, schema, (input, ctx) -> {
            try {
                return op.run(new Args(name, input));
            } catch (RefusedException e) {
                return ToolOutput.error(workspace.withoutRoot(e.getMessage()));
            } catch (IOException | UncheckedIOException e) {
                // An I/O error's message names the absolute path: the model sees paths relative to the workspace.
                return ToolOutput.error("tool '" + name + "' failed: "
                        + workspace.withoutRoot(String.valueOf(e.getMessage())));
            }
        });
    }

    private List<Tool> tools() {
        PathLocks locks = new PathLocks();
        FileOpener opener = new FileOpener();
        FileOps files = new FileOps(workspace, settings, locks, opener);
        SearchOps search = new SearchOps(workspace, settings, opener);
        CommandRunner runner = new CommandRunner(workspace, settings);
        GitOps git = new GitOps(workspace, settings, runner, opener);
        String path = "\"path\":{\"type\":\"string\",\"description\":\"relative to the workspace root\"}";
        List<Tool> t = new ArrayList<>();
        t.add(tool(READ, "Read a text file of the workspace. Lines come numbered (number, tab, text); "
                + "read part of a long file with start_line and end_line (1-based, inclusive).",
                "{\"type\":\"object\",\"properties\":{" + path + ",\"start_line\":{\"type\":\"integer\",\"minimum\":1},"
                        + "\"end_line\":{\"type\":\"integer\",\"minimum\":1}},\"required\":[\"path\"]}", files::read));
        t.add(tool(WRITE, "Write a whole file (created with its directories, or replaced).",
                "{\"type\":\"object\",\"properties\":{" + path + ",\"content\":{\"type\":\"string\"}},"
                        + "\"required\":[\"path\",\"content\"]}", files::write));
        t.add(tool(EDIT, "Replace an exact piece of a file's text (whitespace included, no line numbers). old_text "
                + "must occur exactly once unless replace_all is true.",
                "{\"type\":\"object\",\"properties\":{" + path + ",\"old_text\":{\"type\":\"string\"},"
                        + "\"new_text\":{\"type\":\"string\"},\"replace_all\":{\"type\":\"boolean\"}},"
                        + "\"required\":[\"path\",\"old_text\",\"new_text\"]}", files::edit));
        t.add(tool(PATCH, "Apply a unified diff (as 'diff -u' or 'git diff' print it) to one or more files; "
                + "nothing is written unless every hunk applies.",
                "{\"type\":\"object\",\"properties\":{\"patch\":{\"type\":\"string\"}},\"required\":[\"patch\"]}",
                files::patch));
        t.add(tool(LIST, "List a directory (default: the workspace root), or with glob (e.g. '**/*.java') every file "
                + "below it that matches; .git, sensitive and .gitignore'd files are left out.",
                "{\"type\":\"object\",\"properties\":{" + path + ",\"glob\":{\"type\":\"string\"},"
                        + "\"max_entries\":{\"type\":\"integer\",\"minimum\":1}}}", files::list));
        t.add(tool(STAT, "Tell whether a path exists, its type, size and time of change.",
                "{\"type\":\"object\",\"properties\":{" + path + "},\"required\":[\"path\"]}", files::stat));
        t.add(tool(MOVE, "Move or rename a file or directory.", fromTo(), files::move));
        t.add(tool(COPY, "Copy a file.", fromTo(), files::copy));
        t.add(tool(DELETE, "Delete a file, or a directory (with recursive for a non-empty one).",
                "{\"type\":\"object\",\"properties\":{" + path + ",\"recursive\":{\"type\":\"boolean\"}},"
                        + "\"required\":[\"path\"]}", files::delete));
        t.add(tool(MKDIR, "Make a directory and its missing parents.",
                "{\"type\":\"object\",\"properties\":{" + path + "},\"required\":[\"path\"]}", files::mkdir));
        t.add(tool(SEARCH, "Search the workspace's text files for a Java regular expression; prints path:line: text. "
                + "Honours .gitignore; path and glob narrow the search.",
                "{\"type\":\"object\",\"properties\":{\"pattern\":{\"type\":\"string\"}," + path
                        + ",\"glob\":{\"type\":\"string\"},\"ignore_case\":{\"type\":\"boolean\"},"
                        + "\"max_matches\":{\"type\":\"integer\",\"minimum\":1}},\"required\":[\"pattern\"]}",
                search::search));
        t.add(tool(RUN, runDescription(), runSchema(), args -> runCommand(runner, git, args)));
        t.add(tool(GIT_STATUS, "git status of the workspace.", "{\"type\":\"object\",\"properties\":{}}", git::status));
        t.add(tool(GIT_DIFF, "git diff of the working tree, or with staged the index; paths narrow it.",
                "{\"type\":\"object\",\"properties\":{\"staged\":{\"type\":\"boolean\"},\"paths\":{\"type\":\"array\","
                        + "\"items\":{\"type\":\"string\"}}}}", git::diff));
        t.add(tool(GIT_LOG, "The latest commits, newest first.",
                "{\"type\":\"object\",\"properties\":{\"max_count\":{\"type\":\"integer\",\"minimum\":1}}}", git::log));
        t.add(tool(GIT_ADD, "Stage files for the next commit.",
                "{\"type\":\"object\",\"properties\":{\"paths\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}}},"
                        + "\"required\":[\"paths\"]}", git::add));
        t.add(tool(GIT_COMMIT, "Commit the staged changes.",
                "{\"type\":\"object\",\"properties\":{\"message\":{\"type\":\"string\"}},\"required\":[\"message\"]}",
                git::commit));
        if (settings.pushAllowed()) {
            t.add(tool(GIT_PUSH, "Push the current branch to its upstream.", "{\"type\":\"object\",\"properties\":{}}",
                    git::push));
        }
        return t;
    }

    private static String fromTo() {
        return "{\"type\":\"object\",\"properties\":{\"from\":{\"type\":\"string\"},\"to\":{\"type\":\"string\"},"
                + "\"overwrite\":{\"type\":\"boolean\"}},\"required\":[\"from\",\"to\"]}";
    }

    private String runDescription() {
        StringBuilder b = new StringBuilder("Run a program in the workspace root and get its exit code and output "
                + "(stdout and stderr together). ");
        if (settings.shellAllowed()) {
            b.append("Give either program and args, or command: a line run by sh -c. ");
        } else {
            b.append("There is no shell: give the program and each argument separately; pipes, redirections, ';', "
                    + "'&', '$' and backticks are refused. ");
        }
        if (!settings.allow().isEmpty()) {
            b.append("Allowed programs: ").append(String.join(", ", settings.allow().stream().map(Allowlist.Entry::entry).sorted()
                    .toList())).append(". ");
        }
        if (settings.sandbox().confines()) {
            b.append("Commands run in a sandbox: only the workspace can be changed, ")
                    .append(settings.network() ? "" : "there is no network, ").append("and /tmp is private. ");
        }
        b.append("Paths in arguments are relative to the workspace. The command is killed after ")
                .append(settings.timeout().toSeconds()).append(" s unless timeout_seconds says otherwise.");
        return b.toString();
    }

    private String runSchema() {
        return "{\"type\":\"object\",\"properties\":{\"program\":{\"type\":\"string\"},\"args\":{\"type\":\"array\","
                + "\"items\":{\"type\":\"string\"}},"
                + (settings.shellAllowed() ? "\"command\":{\"type\":\"string\"}," : "")
                + "\"timeout_seconds\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":" + MAX_TIMEOUT.toSeconds()
                + "}}" + (settings.shellAllowed() ? "}" : ",\"required\":[\"program\"]}");
    }

    /** The longest timeout a model may ask for. */
    static final Duration MAX_TIMEOUT = Duration.ofMinutes(10);

    private ToolOutput runCommand(CommandRunner runner, GitOps git, Args a) throws Exception {
        String command = settings.shellAllowed() ? a.optString("command") : null;
        String program = a.optString("program");
        List<String> args = a.strings("args", false);
        Duration timeout = Duration.ofSeconds(a.integer("timeout_seconds", (int) settings.timeout().toSeconds(), 1,
                (int) MAX_TIMEOUT.toSeconds()));
        List<String> cmd = new ArrayList<>();
        String shown;
        if (command != null) {
            if (program != null) {
                throw new RefusedException("give either command or program, not both");
            }
            if (command.indexOf(0) >= 0) {
                throw new RefusedException("command holds a NUL character");
            }
            cmd.addAll(List.of(runner.locate("sh").toString(), "-c", command));
            shown = command;
        } else {
            if (program == null) {
                throw new RefusedException("tool '" + RUN + "' needs the string parameter 'program'");
            }
            CommandRunner.Checked checked = runner.check(program, args);
            git.checkCommand(checked);
            cmd.addAll(checked.argv());
            shown = program + (args.isEmpty() ? "" : " " + String.join(" ", args));
        }
        boolean isGit = command == null && CommandRunner.baseName(cmd.getFirst()).equals("git");
        CommandRunner.Outcome o = runner.run(cmd, Map.of(), timeout, isGit);
        String text = o.render(Workspace.shown(shown), timeout);
        return o.timedOut() || o.exitCode() != 0 ? ToolOutput.error(text) : ToolOutput.text(text);
    }

    @Override
    public String toString() {
        return "CodingTools[" + workspace.root() + ", " + toolBox.names().size() + " tools]";
    }

    /** Collects a coding toolbox's settings. */
    public static final class Builder {
        private final Path root;
        private final List<String> sensitive = new ArrayList<>(Workspace.DEFAULT_SENSITIVE);
        private final List<String> allow = new ArrayList<>();
        private final Set<String> deny = new LinkedHashSet<>(DEFAULT_DENIED);
        private boolean shellAllowed;
        private boolean pushAllowed;
        private Duration timeout = DEFAULT_TIMEOUT;
        private int maxOutputChars = 30_000;
        private int maxReadChars = 60_000;
        private long maxEditBytes = 4L * 1024 * 1024;
        private int maxMatches = 200;
        private int maxListEntries = 500;
        private final List<Path> searchPath = new ArrayList<>();
        private final Map<String, String> environment = new LinkedHashMap<>();
        private final Map<String, Permission> permissions = new LinkedHashMap<>();
        private String gitName = "Shelly coding agent";
        private String gitEmail = "coding-agent@shelly.dev";
        private Sandbox sandbox = Sandbox.platformDefault();
        private boolean network;
        private final List<Path> hidden = new ArrayList<>();

        private Builder(Path root) {
            this.root = root;
            String path = System.getenv("PATH");
            if (path != null) {
                for (String dir : path.split(File.pathSeparator)) {
                    if (!dir.isBlank() && Path.of(dir).isAbsolute() && Files.isDirectory(Path.of(dir))) {
                        searchPath.add(Path.of(dir));
                    }
                }
            }
        }

        /**
         * More sensitive patterns, beside {@link Workspace#DEFAULT_SENSITIVE}.
         *
         * @param patterns globs: without {@code /} matched against every segment of a path,
         *     with {@code /} against the whole path relative to the root
         * @return this builder
         */
        public Builder sensitive(String... patterns) {
            Checks.notNull(patterns, "CodingTools.Builder.sensitive patterns");
            for (int i = 0; i < patterns.length; i++) {
                sensitive.add(Checks.notNull(patterns[i], "CodingTools.Builder.sensitive patterns[" + i + "]"));
            }
            return this;
        }

        /**
         * Replaces the sensitive patterns, defaults included.
         *
         * @param patterns the only sensitive patterns
         * @return this builder
         */
        public Builder sensitiveOnly(List<String> patterns) {
            Checks.notNull(patterns, "CodingTools.Builder.sensitiveOnly patterns");
            sensitive.clear();
            sensitive.addAll(patterns);
            return this;
        }

        /**
         * Restricts commands to these programs. An entry is a program name, resolved once on the
         * search path commands see ({@code ls} becomes {@code /usr/bin/ls}), or an absolute
         * path, optionally followed by the arguments every call must start with
         * ({@code "python3 -m pytest"}). A file in the workspace is never allowed, whatever its
         * name. An interpreter (python, node, perl, ruby, awk, ...) must name its arguments, and
         * may not then take {@code -c}/{@code -e} code. Without any entry, every program not
         * denied may run (in the sandbox, after approval).
         *
         * @param entries program names or paths, each with optional leading arguments
         * @return this builder
         * @throws IllegalArgumentException at {@link #build()} when an entry cannot be resolved,
         *     names a file in the workspace, or is an interpreter without arguments
         */
        public Builder allowCommands(String... entries) {
            Checks.notNull(entries, "CodingTools.Builder.allowCommands entries");
            for (int i = 0; i < entries.length; i++) {
                String p = Checks.notNull(entries[i], "CodingTools.Builder.allowCommands entries[" + i + "]");
                if (p.isBlank() || p.indexOf('\\') >= 0) {
                    throw new IllegalArgumentException("CodingTools.Builder.allowCommands: '" + p
                            + "' must be a program name or an absolute path, with optional arguments");
                }
                allow.add(p.strip());
            }
            return this;
        }

        /**
         * The sandbox commands and git run in: {@link Sandbox#platformDefault()} (bubblewrap on
         * Linux) unless set. {@link Sandbox#NONE} runs them unconfined, on purpose; the toolbox
         * logs a WARN once when built so.
         *
         * @param value the sandbox
         * @return this builder
         */
        public Builder sandbox(Sandbox value) {
            this.sandbox = Checks.notNull(value, "CodingTools.Builder.sandbox value");
            return this;
        }

        /**
         * Whether sandboxed commands may reach the network (off by default).
         *
         * @param value true to share the host's network
         * @return this builder
         */
        public Builder network(boolean value) {
            this.network = value;
            return this;
        }

        /**
         * More paths a sandboxed command must not see at all, beside the defaults (home
         * directories, this JVM's working and temporary directories, the workspace's parent and
         * the top-level tree it lies in unless a system directory, {@code /run}, {@code /var/tmp}).
         *
         * @param paths absolute paths outside the workspace
         * @return this builder
         */
        public Builder hide(Path... paths) {
            Checks.notNull(paths, "CodingTools.Builder.hide paths");
            for (int i = 0; i < paths.length; i++) {
                Path p = Checks.notNull(paths[i], "CodingTools.Builder.hide paths[" + i + "]");
                if (!p.isAbsolute()) {
                    throw new IllegalArgumentException("CodingTools.Builder.hide path '" + p + "' must be absolute");
                }
                hidden.add(p);
            }
            return this;
        }

        /**
         * Refuses these programs, beside {@link #DEFAULT_DENIED}.
         *
         * @param programs program names
         * @return this builder
         */
        public Builder denyCommands(String... programs) {
            for (String p : Checks.notNull(programs, "CodingTools.Builder.denyCommands programs")) {
                deny.add(name(p, "denyCommands programs"));
            }
            return this;
        }

        /**
         * Takes programs off the denylist, the defaults included.
         *
         * @param programs program names
         * @return this builder
         */
        public Builder undenyCommands(String... programs) {
            for (String p : Checks.notNull(programs, "CodingTools.Builder.undenyCommands programs")) {
                deny.remove(name(p, "undenyCommands programs"));
            }
            return this;
        }

        /**
         * Whether {@value #RUN} may take a command line run by {@code sh -c} (off by default).
         *
         * @param value true to allow a shell
         * @return this builder
         */
        public Builder shellAllowed(boolean value) {
            this.shellAllowed = value;
            return this;
        }

        /**
         * Whether the toolbox offers {@value #GIT_PUSH} and lets commands run {@code git push}
         * (off by default).
         *
         * @param value true to allow pushing
         * @return this builder
         */
        public Builder pushAllowed(boolean value) {
            this.pushAllowed = value;
            return this;
        }

        /**
         * How long a command may run before it and its children are killed.
         *
         * @param value at least one second, at most ten minutes
         * @return this builder
         */
        public Builder timeout(Duration value) {
            Checks.notNull(value, "CodingTools.Builder.timeout value");
            if (value.toSeconds() < 1 || value.compareTo(MAX_TIMEOUT) > 0) {
                throw new IllegalArgumentException("CodingTools.Builder.timeout must be from 1 s to 10 min, got " + value);
            }
            this.timeout = value;
            return this;
        }

        /**
         * The most characters of a command's output, and of a search's result, kept.
         *
         * @param value at least 100
         * @return this builder
         */
        public Builder maxOutputChars(int value) {
            this.maxOutputChars = atLeast(value, 100, "maxOutputChars");
            return this;
        }

        /**
         * The most characters one {@value #READ} returns.
         *
         * @param value at least 100
         * @return this builder
         */
        public Builder maxReadChars(int value) {
            this.maxReadChars = atLeast(value, 100, "maxReadChars");
            return this;
        }

        /**
         * The most matches one search lists.
         *
         * @param value at least 1
         * @return this builder
         */
        public Builder maxMatches(int value) {
            this.maxMatches = atLeast(value, 1, "maxMatches");
            return this;
        }

        /**
         * The directories programs are looked up in (and the child's {@code PATH}), replacing
         * those of this process's {@code PATH}.
         *
         * @param dirs absolute directories
         * @return this builder
         */
        public Builder searchPath(List<Path> dirs) {
            Checks.notNull(dirs, "CodingTools.Builder.searchPath dirs");
            List<Path> copy = new ArrayList<>();
            for (Path d : dirs) {
                if (d == null || !d.isAbsolute()) {
                    throw new IllegalArgumentException("CodingTools.Builder.searchPath entry '" + d + "' must be absolute");
                }
                copy.add(d);
            }
            searchPath.clear();
            searchPath.addAll(copy);
            return this;
        }

        /**
         * Puts a directory first on the search path.
         *
         * @param dir an absolute directory
         * @return this builder
         */
        public Builder prependSearchPath(Path dir) {
            if (dir == null || !dir.isAbsolute()) {
                throw new IllegalArgumentException("CodingTools.Builder.prependSearchPath dir '" + dir + "' must be absolute");
            }
            searchPath.addFirst(dir);
            return this;
        }

        /**
         * An environment variable for every command. Names that look like secrets (holding
         * KEY, TOKEN, SECRET, PASSWORD, CREDENTIAL or AUTH, or starting with a provider's
         * prefix) are refused: the environment of a command never carries a key.
         *
         * @param name the variable's name
         * @param value its value
         * @return this builder
         */
        public Builder environment(String name, String value) {
            if (name == null || name.isBlank() || name.indexOf('=') >= 0) {
                throw new IllegalArgumentException("CodingTools.Builder.environment name '" + name + "' is not valid");
            }
            Checks.notNull(value, "CodingTools.Builder.environment value of '" + name + "'");
            if (CommandRunner.secretName(name)) {
                throw new IllegalArgumentException("CodingTools.Builder.environment '" + name
                        + "' looks like a secret; commands run without keys");
            }
            environment.put(name, value);
            return this;
        }

        /**
         * The author and committer of {@value #GIT_COMMIT}'s commits.
         *
         * @param name the name
         * @param email the address
         * @return this builder
         */
        public Builder gitIdentity(String name, String email) {
            this.gitName = Checks.notNull(name, "CodingTools.Builder.gitIdentity name");
            this.gitEmail = Checks.notNull(email, "CodingTools.Builder.gitIdentity email");
            return this;
        }

        /**
         * Changes the approval default of one tool.
         *
         * @param tool one of this class's tool names
         * @param permission its default
         * @return this builder
         */
        public Builder permission(String tool, Permission permission) {
            Checks.notNull(tool, "CodingTools.Builder.permission tool");
            Checks.notNull(permission, "CodingTools.Builder.permission of '" + tool + "'");
            if (!defaults(true).containsKey(tool)) {
                throw new IllegalArgumentException("CodingTools.Builder.permission: '" + tool
                        + "' is not a coding tool; the tools: " + String.join(", ", defaults(true).keySet()));
            }
            permissions.put(tool, permission);
            return this;
        }

        /**
         * Builds the toolbox.
         *
         * @return the toolbox
         * @throws IllegalArgumentException when the workspace is not an existing directory or a
         *     sensitive pattern is not valid
         */
        public CodingTools build() {
            return new CodingTools(this);
        }

        private static String name(String program, String where) {
            if (program == null || program.isBlank() || program.indexOf('/') >= 0 || program.indexOf('\\') >= 0) {
                throw new IllegalArgumentException("CodingTools.Builder." + where + ": '" + program
                        + "' must be a program name without a directory");
            }
            return program.strip();
        }

        private static int atLeast(int value, int min, String what) {
            if (value < min) {
                throw new IllegalArgumentException("CodingTools.Builder." + what + " must be at least " + min + ", got "
                        + value);
            }
            return value;
        }
    }
}
