package dev.shelly.coding;

import static dev.shelly.coding.CodingTools.COPY;
import static dev.shelly.coding.CodingTools.DELETE;
import static dev.shelly.coding.CodingTools.EDIT;
import static dev.shelly.coding.CodingTools.GIT_ADD;
import static dev.shelly.coding.CodingTools.GIT_COMMIT;
import static dev.shelly.coding.CodingTools.GIT_DIFF;
import static dev.shelly.coding.CodingTools.GIT_LOG;
import static dev.shelly.coding.CodingTools.GIT_PUSH;
import static dev.shelly.coding.CodingTools.GIT_STATUS;
import static dev.shelly.coding.CodingTools.LIST;
import static dev.shelly.coding.CodingTools.MKDIR;
import static dev.shelly.coding.CodingTools.MOVE;
import static dev.shelly.coding.CodingTools.PATCH;
import static dev.shelly.coding.CodingTools.READ;
import static dev.shelly.coding.CodingTools.RUN;
import static dev.shelly.coding.CodingTools.SEARCH;
import static dev.shelly.coding.CodingTools.STAT;
import static dev.shelly.coding.CodingTools.WRITE;

import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolOutput;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The coding tools as a model sees them: each tool's name, description and input schema, and the
 * handler behind it. A refusal or an I/O failure becomes an error result told relative to the
 * workspace.
 */
final class ToolCatalog {
    private final Workspace workspace;
    private final CodingTools.Settings settings;

    ToolCatalog(Workspace workspace, CodingTools.Settings settings) {
        this.workspace = workspace;
        this.settings = settings;
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

    List<Tool> tools() {
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
                + "\"timeout_seconds\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":" + CodingTools.MAX_TIMEOUT.toSeconds()
                + "}}" + (settings.shellAllowed() ? "}" : ",\"required\":[\"program\"]}");
    }

    private ToolOutput runCommand(CommandRunner runner, GitOps git, Args a) throws Exception {
        String command = settings.shellAllowed() ? a.optString("command") : null;
        String program = a.optString("program");
        List<String> args = a.strings("args", false);
        Duration timeout = Duration.ofSeconds(a.integer("timeout_seconds", (int) settings.timeout().toSeconds(), 1,
                (int) CodingTools.MAX_TIMEOUT.toSeconds()));
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
}
