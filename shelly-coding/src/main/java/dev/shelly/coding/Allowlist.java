package dev.shelly.coding;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The allowlist of {@link CodingTools.Builder#allowCommands}: each entry a program resolved once
 * to its real path, never a file of the workspace, with the arguments every call must start
 * with; an interpreter must name them.
 */
final class Allowlist {
    private Allowlist() {}

    /**
     * Programs that run code given on their command line ({@code -c}, {@code -e}, a script): on
     * an allowlist they must name the arguments they may take.
     */
    static final Pattern INTERPRETERS = Pattern.compile(
            "(python|pypy|perl|ruby|php|lua|luajit|tclsh|wish|expect|node|nodejs|deno|bun|awk|gawk|mawk|nawk|jshell|"
                    + "jrunscript|groovy|scala|julia|guile|racket|Rscript|R|osascript|irb)[0-9.]*");

    /** Options that make an interpreter run the text that follows as code. */
    static final Set<String> CODE_OPTIONS = Set.of("-c", "-e", "-E", "-p", "-r", "--eval", "--exec", "--print",
            "--require", "--import", "--command");

    /**
     * One allowlist entry: a program resolved to its real path, and the arguments every call of
     * it must start with.
     *
     * @param entry the entry as configured ({@code python3 -m pytest})
     * @param executable the program's real path
     * @param args the leading arguments a call must have
     * @param interpreter whether the program runs code given on its command line
     */
    record Entry(String entry, Path executable, List<String> args, boolean interpreter) {
        boolean admits(List<String> call) {
            if (call.size() < args.size() || !call.subList(0, args.size()).equals(args)) {
                return false;
            }
            if (!interpreter || args.contains("-m")) {
                return true;
            }
            for (String a : call.subList(args.size(), call.size())) {
                for (String o : CODE_OPTIONS) {
                    if (a.equals(o) || (o.length() == 2 && a.startsWith(o)) || a.startsWith(o + "=")) {
                        return false;
                    }
                }
            }
            return true;
        }
    }

    /** Resolves each allowlist entry once, on the search path commands see. */
    static List<Entry> resolve(List<String> entries, Workspace workspace, CommandRunner runner) {
        List<Entry> out = new ArrayList<>();
        for (String entry : entries) {
            String where = "CodingTools.Builder.allowCommands '" + entry + "'";
            List<String> parts = List.of(entry.strip().split("\\s+"));
            String program = parts.getFirst();
            Path located;
            if (program.startsWith("/")) {
                located = Path.of(program);
                if (!Files.isRegularFile(located) || !Files.isExecutable(located)) {
                    throw new IllegalArgumentException(where + ": '" + program + "' is not an executable file");
                }
            } else {
                try {
                    located = runner.locate(program);
                } catch (RefusedException e) {
                    throw new IllegalArgumentException(where + ": '" + program + "' was not found on the search path "
                            + "commands see; name the program by its absolute path");
                }
            }
            Path real;
            try {
                real = located.toRealPath();
            } catch (IOException e) {
                throw new IllegalArgumentException(where + ": '" + program + "' cannot be resolved", e);
            }
            if (real.startsWith(workspace.root())) {
                throw new IllegalArgumentException(where + ": '" + program + "' is a file in the workspace; an allowlist "
                        + "names programs installed outside it");
            }
            boolean interpreter = INTERPRETERS.matcher(located.getFileName().toString()).matches()
                    || INTERPRETERS.matcher(real.getFileName().toString()).matches();
            List<String> args = parts.subList(1, parts.size());
            if (interpreter && args.isEmpty()) {
                throw new IllegalArgumentException(where + ": '" + program + "' runs code given on its command line; "
                        + "allow it with the arguments it may take, e.g. '" + program + " -m pytest'");
            }
            if (interpreter) {
                for (String a : args) {
                    if (CODE_OPTIONS.contains(a)) {
                        throw new IllegalArgumentException(where + ": '" + a + "' makes '" + program
                                + "' run the text that follows as code; allow a module or a script instead");
                    }
                }
            }
            out.add(new Entry(entry.strip(), real, List.copyOf(args), interpreter));
        }
        return List.copyOf(out);
    }

}
