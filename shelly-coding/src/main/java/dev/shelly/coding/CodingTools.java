package dev.shelly.coding;

import dev.shelly.agent.ToolPolicy;
import dev.shelly.agent.ToolPolicy.Permission;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import java.io.File;
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
            boolean network, List<Path> hidden) {
        /** The same settings with the allowlist resolved. */
        Settings withAllow(List<Allowlist.Entry> resolved) {
            return new Settings(resolved, deny, shellAllowed, pushAllowed, timeout, maxOutputChars, maxReadChars,
                    maxEditBytes, maxMatches, maxListEntries, searchPath, environment, gitName, gitEmail, sandbox, network,
                    hidden);
        }
    }

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
        this.settings = draft.withAllow(allowed);
        if (!b.sandbox.confines()) {
            LOG.warn("coding tools in {}: commands and git run WITHOUT a sandbox (sandbox: none); a model can read and "
                    + "change everything this JVM can", workspace.root().getFileName());
        }
        Map<String, Permission> p = new LinkedHashMap<>(ApprovalDefaults.of(b.pushAllowed));
        p.putAll(b.permissions);
        if (!b.pushAllowed) {
            p.remove(GIT_PUSH);
        }
        this.permissions = Map.copyOf(p);
        this.toolBox = ToolBox.of(new ToolCatalog(workspace, settings).tools().toArray(Tool[]::new));
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
        return ApprovalDefaults.over(agentPolicy, permissions);
    }

    /**
     * The approval default of each tool, as {@link #policy()} applies them.
     *
     * @return tool name to permission
     */
    public Map<String, Permission> permissions() {
        return permissions;
    }

    /** The longest timeout a model may ask for. */
    static final Duration MAX_TIMEOUT = Duration.ofMinutes(10);

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
                deny.add(Checks.programName(p, "denyCommands programs"));
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
                deny.remove(Checks.programName(p, "undenyCommands programs"));
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
            this.maxOutputChars = Checks.atLeast(value, 100, "maxOutputChars");
            return this;
        }

        /**
         * The most characters one {@value #READ} returns.
         *
         * @param value at least 100
         * @return this builder
         */
        public Builder maxReadChars(int value) {
            this.maxReadChars = Checks.atLeast(value, 100, "maxReadChars");
            return this;
        }

        /**
         * The most matches one search lists.
         *
         * @param value at least 1
         * @return this builder
         */
        public Builder maxMatches(int value) {
            this.maxMatches = Checks.atLeast(value, 1, "maxMatches");
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
            if (!ApprovalDefaults.of(true).containsKey(tool)) {
                throw new IllegalArgumentException("CodingTools.Builder.permission: '" + tool
                        + "' is not a coding tool; the tools: " + String.join(", ", ApprovalDefaults.of(true).keySet()));
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
    }
}
