package dev.shelly.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The official MCP conformance suite's client scenarios against {@link McpToolClient}, run as
 * {@link ConformanceClient} in a JVM of its own per scenario (the suite starts a server per
 * scenario and runs the client with its URL). Every scenario not in the expected-failures file
 * must pass, and every scenario in it must still fail.
 */
@Timeout(300)
class ClientConformanceTest {

    @Test
    void passesTheSuiteButTheExpectedFailures() throws Exception {
        Path work = Path.of("target/conformance/client").toAbsolutePath();
        Files.createDirectories(work);
        // the suite splits the command at spaces: the class path goes in an argument file
        Path argFile = work.resolve("client.args");
        Files.writeString(argFile, "-cp \"" + System.getProperty("java.class.path") + "\"\n-XX:TieredStopAtLevel=1\n"
                + "-Xshare:auto\n" + ConformanceClient.class.getName() + "\n", StandardCharsets.UTF_8);
        String command = McpPeers.java() + " @" + argFile;
        ConformanceSuite.Outcome outcome = ConformanceSuite.run(List.of("client", "--suite", "all", "--command", command,
                "-o", "results", "--timeout", "60000", "--expected-failures", ConformanceSuite.expectedFailures().toString()),
                work, 280);
        System.out.println(outcome.counts("client (McpToolClient)"));
        assertThat(outcome.scenarios()).as(outcome.output()).hasSize(26);
        assertThat(outcome.exitCode()).as(outcome.output()).isZero();
    }
}
