package dev.shelly.coding;

import dev.shelly.tools.ToolOutput;
import java.io.IOException;
import java.nio.file.attribute.PosixFileAttributes;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The git tools, run through the command runner, so inside the sandbox, with fixed arguments:
 * system and global configuration, hooks, fsmonitor, pagers, credential helpers and signing
 * are off, and only the {@code file} protocol is allowed unless pushing is. Before an operation
 * the repository's own configuration is read (by git, in the sandbox): one that defines a
 * program git would run for that operation (a filter, a textconv or external diff driver,
 * fsmonitor, an ssh command, a hooks path, an alias) is refused, naming the setting. What git
 * prints comes back with credentials taken out, and a diff leaves sensitive files out.
 */
final class GitOps {
    /** The operations a repository's configuration can make run a program. */
    enum Op { STATUS, DIFF, LOG, ADD, COMMIT, PUSH, COMMAND }

    private final Workspace ws;
    private final CodingTools.Settings settings;
    private final CommandRunner runner;
    private final FileOpener opener;

    GitOps(Workspace ws, CodingTools.Settings settings, CommandRunner runner, FileOpener opener) {
        this.ws = ws;
        this.settings = settings;
        this.runner = runner;
        this.opener = opener;
    }

    ToolOutput status(Args a) throws Exception {
        return git(Op.STATUS, List.of("status", "--porcelain=v1", "--branch"));
    }

    ToolOutput diff(Args a) throws Exception {
        List<String> args = new ArrayList<>(List.of("diff", "--no-color", "--no-ext-diff", "--no-textconv"));
        if (a.bool("staged")) {
            args.add("--cached");
        }
        List<String> paths = paths(a.strings("paths", false));
        args.add("--");
        args.addAll(paths);
        args.addAll(exclusions());
        return git(Op.DIFF, args);
    }

    ToolOutput log(Args a) throws Exception {
        int n = a.integer("max_count", 20, 1, 1000);
        return git(Op.LOG, List.of("log", "--no-color", "--format=%h %ad %an%n    %s", "--date=short", "-n",
                String.valueOf(n)));
    }

    ToolOutput add(Args a) throws Exception {
        List<String> paths = paths(a.strings("paths", true));
        if (paths.isEmpty()) {
            throw new RefusedException("tool '" + CodingTools.GIT_ADD + "' needs at least one path");
        }
        List<String> args = new ArrayList<>(List.of("add", "--"));
        args.addAll(paths);
        // A folder named here never stages a sensitive file below it.
        args.addAll(exclusions());
        return git(Op.ADD, args);
    }

    ToolOutput commit(Args a) throws Exception {
        String message = a.string("message");
        if (message.isBlank()) {
            throw new RefusedException("the commit message is empty");
        }
        if (message.indexOf(0) >= 0) {
            throw new RefusedException("the commit message holds a NUL character");
        }
        return git(Op.COMMIT, List.of("commit", "--no-verify", "-m", message));
    }

    ToolOutput push(Args a) throws Exception {
        if (!settings.pushAllowed()) {
            throw new RefusedException("'git push' is not allowed for the coding tools");
        }
        return git(Op.PUSH, List.of("push", "--no-verify"));
    }

    /** A {@value CodingTools#RUN} call of git: refused when the repository's configuration would run a program. */
    void checkCommand(CommandRunner.Checked command) throws Exception {
        if (CommandRunner.baseName(command.executable()).equals("git")) {
            refuseDangers(Op.COMMAND);
        }
    }

    /** Each path must resolve inside the workspace and not be sensitive; git gets it relative. */
    private List<String> paths(List<String> asked) {
        List<String> out = new ArrayList<>();
        for (String p : asked) {
            out.add(ws.relative(ws.resolve(p)));
        }
        return out;
    }

    /** Pathspecs that leave every sensitive file and folder out. */
    private List<String> exclusions() {
        List<String> out = new ArrayList<>();
        for (String pattern : ws.sensitive()) {
            if (pattern.equals(".git")) {
                continue;
            }
            if (pattern.indexOf('/') >= 0) {
                out.add(":(exclude,glob,icase)" + pattern);
                out.add(":(exclude,glob,icase)" + pattern + "/**");
            } else {
                out.add(":(exclude,glob,icase)**/" + pattern);
                out.add(":(exclude,glob,icase)**/" + pattern + "/**");
            }
        }
        return out;
    }

    private ToolOutput git(Op op, List<String> args) throws Exception {
        refuseDangers(op);
        CommandRunner.Outcome o = run(args, settings.timeout());
        String text = o.render("git " + args.getFirst(), settings.timeout());
        if (op == Op.DIFF) {
            text = withoutSensitive(text);
        }
        return o.timedOut() || o.exitCode() != 0 ? ToolOutput.error(text) : ToolOutput.text(text);
    }

    private CommandRunner.Outcome run(List<String> args, java.time.Duration timeout) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("git", "-c", "core.hooksPath=/dev/null", "-c", "core.pager=cat",
                "-c", "core.fsmonitor=false", "-c", "credential.helper=", "-c", "core.quotePath=false"));
        cmd.addAll(args);
        return runner.run(cmd, Map.of(), timeout, true);
    }

    /**
     * Reads the repository's configuration (git itself reads it, includes and all, in the
     * sandbox) and refuses the operation when a setting would make git run a program for it.
     */
    private void refuseDangers(Op op) throws Exception {
        CommandRunner.Outcome o = run(List.of("config", "--list", "--show-scope", "-z"), settings.timeout());
        if (o.timedOut()) {
            throw new RefusedException("git could not read the repository's configuration within "
                    + settings.timeout().toSeconds() + " s");
        }
        if (o.exitCode() != 0) {
            // Not a repository, or no configuration: nothing to run.
            return;
        }
        String[] items = o.output().split("\0");
        for (int i = 0; i + 1 < items.length; i += 2) {
            String scope = items[i];
            if (scope.equals("command")) {
                continue; // the toolbox's own hardening
            }
            String entry = items[i + 1];
            int nl = entry.indexOf('\n');
            // As git prints it: section and name in lower case, a subsection as written.
            String key = nl < 0 ? entry : entry.substring(0, nl);
            String value = nl < 0 ? "" : entry.substring(nl + 1);
            Set<Op> affected = affected(key.toLowerCase(Locale.ROOT), value);
            if (affected.contains(op) || (op == Op.COMMAND && !affected.isEmpty())) {
                throw new RefusedException("the repository's configuration sets '" + key + "' (" + scope + "), which "
                        + "makes git run a program for " + describe(op) + "; the coding tools refuse it. Remove the "
                        + "setting (git config --" + (scope.equals("worktree") ? "worktree" : "local") + " --unset "
                        + key + ") if you trust it and want the tool");
            }
        }
    }

    private static String describe(Op op) {
        return op == Op.COMMAND ? "some commands" : "'git " + op.name().toLowerCase(Locale.ROOT) + "'";
    }

    /** The operations for which a configuration setting makes git run a program. */
    static Set<Op> affected(String key, String value) {
        String[] parts = key.split("\\.");
        String section = parts[0];
        String last = parts[parts.length - 1];
        if (section.equals("filter") && parts.length >= 3 && Set.of("clean", "smudge", "process").contains(last)) {
            return EnumSet.of(Op.STATUS, Op.DIFF, Op.ADD, Op.COMMIT);
        }
        if ((section.equals("diff") && parts.length >= 3 && Set.of("textconv", "command").contains(last))
                || key.equals("diff.external")) {
            return EnumSet.of(Op.DIFF, Op.LOG);
        }
        if (key.equals("core.fsmonitor") && !value.isBlank() && !value.equalsIgnoreCase("false")) {
            return EnumSet.of(Op.STATUS, Op.DIFF, Op.ADD, Op.COMMIT, Op.LOG);
        }
        if (key.equals("core.hookspath") && !value.equals("/dev/null")) {
            return EnumSet.of(Op.COMMIT, Op.PUSH);
        }
        if (key.equals("core.sshcommand") || key.equals("core.gitproxy") || key.equals("core.askpass")
                || (section.equals("remote") && Set.of("uploadpack", "receivepack", "vcs", "proxy").contains(last))
                || (section.equals("url") && (last.equals("insteadof") || last.equals("pushinsteadof")))
                || (section.equals("credential") && last.equals("helper") && !value.isBlank())
                || (section.equals("protocol") && last.equals("allow"))) {
            return EnumSet.of(Op.PUSH);
        }
        if (section.equals("alias")) {
            return EnumSet.of(Op.COMMAND);
        }
        return EnumSet.noneOf(Op.class);
    }

    /** Leaves out the part of a diff about a sensitive file, saying so. */
    String withoutSensitive(String diff) {
        StringBuilder out = new StringBuilder(diff.length());
        boolean skipping = false;
        for (String line : diff.split("\n", -1)) {
            if (line.startsWith("diff --git ")) {
                String file = sensitiveIn(line.substring("diff --git ".length()));
                skipping = file != null;
                if (skipping) {
                    out.append("[the diff of the sensitive file '").append(Workspace.shown(file))
                            .append("' is left out]\n");
                    continue;
                }
            }
            if (!skipping) {
                out.append(line).append('\n');
            }
        }
        return out.substring(0, Math.max(0, out.length() - 1));
    }

    /** The sensitive file a {@code diff --git a/X b/Y} header names, or null. */
    private String sensitiveIn(String names) {
        int b = names.lastIndexOf(" b/");
        List<String> candidates = new ArrayList<>(2);
        if (names.startsWith("a/") && b > 0) {
            candidates.add(names.substring(2, b));
            candidates.add(names.substring(b + 3));
        } else {
            candidates.add(names);
        }
        for (String c : candidates) {
            if (ws.isSensitive(c) || sensitiveTwin(c)) {
                return c;
            }
        }
        return null;
    }

    /** Whether a path of the workspace is a hard link to a sensitive file. */
    private boolean sensitiveTwin(String rel) {
        try (Handles h = Handles.open(ws, new ReentrantLock(), opener)) {
            Handles.Entry e = h.entry(rel);
            PosixFileAttributes attrs = e == null ? null : h.stat(e);
            return attrs != null && h.sensitiveTwin(e, attrs) != null;
        } catch (IOException | RuntimeException e) {
            // Gone or unreadable: no content of it to show either.
            return false;
        }
    }
}
