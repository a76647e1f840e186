package dev.shelly.coding;

import dev.shelly.tools.ToolOutput;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The git tools, run through the command runner (same environment, timeout and output cap) with
 * fixed arguments: hooks, pagers and the user's global configuration are off.
 */
final class GitOps {
    private final Workspace ws;
    private final CodingTools.Settings settings;
    private final CommandRunner runner;

    GitOps(Workspace ws, CodingTools.Settings settings, CommandRunner runner) {
        this.ws = ws;
        this.settings = settings;
        this.runner = runner;
    }

    ToolOutput status(Args a) throws Exception {
        return git(List.of("status", "--porcelain=v1", "--branch"));
    }

    ToolOutput diff(Args a) throws Exception {
        List<String> args = new ArrayList<>(List.of("diff", "--no-color", "--no-ext-diff"));
        if (a.bool("staged")) {
            args.add("--cached");
        }
        List<String> paths = paths(a.strings("paths", false));
        if (!paths.isEmpty()) {
            args.add("--");
            args.addAll(paths);
        }
        return git(args);
    }

    ToolOutput log(Args a) throws Exception {
        int n = a.integer("max_count", 20, 1, 1000);
        return git(List.of("log", "--no-color", "--format=%h %ad %an%n    %s", "--date=short", "-n", String.valueOf(n)));
    }

    ToolOutput add(Args a) throws Exception {
        List<String> paths = paths(a.strings("paths", true));
        if (paths.isEmpty()) {
            throw new RefusedException("tool '" + CodingTools.GIT_ADD + "' needs at least one path");
        }
        List<String> args = new ArrayList<>(List.of("add", "--"));
        args.addAll(paths);
        return git(args);
    }

    ToolOutput commit(Args a) throws Exception {
        String message = a.string("message");
        if (message.isBlank()) {
            throw new RefusedException("the commit message is empty");
        }
        if (message.indexOf(0) >= 0) {
            throw new RefusedException("the commit message holds a NUL character");
        }
        return git(List.of("commit", "--no-verify", "-m", message));
    }

    ToolOutput push(Args a) throws Exception {
        if (!settings.pushAllowed()) {
            throw new RefusedException("'git push' is not allowed for the coding tools");
        }
        return git(List.of("push"));
    }

    /** Each path must resolve inside the workspace and not be sensitive; git gets it relative. */
    private List<String> paths(List<String> asked) {
        List<String> out = new ArrayList<>();
        for (String p : asked) {
            out.add(ws.relative(ws.resolve(p)));
        }
        return out;
    }

    private ToolOutput git(List<String> args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("git", "-c", "core.hooksPath=/dev/null", "-c", "core.pager=cat",
                "-c", "core.fsmonitor=false", "-c", "credential.helper="));
        cmd.addAll(args);
        Map<String, String> identity = Map.of(
                "GIT_AUTHOR_NAME", settings.gitName(), "GIT_AUTHOR_EMAIL", settings.gitEmail(),
                "GIT_COMMITTER_NAME", settings.gitName(), "GIT_COMMITTER_EMAIL", settings.gitEmail());
        CommandRunner.Outcome o = runner.run(cmd, identity, settings.timeout());
        String text = o.render("git " + args.getFirst(), settings.timeout());
        return o.timedOut() || o.exitCode() != 0 ? ToolOutput.error(text) : ToolOutput.text(text);
    }
}
