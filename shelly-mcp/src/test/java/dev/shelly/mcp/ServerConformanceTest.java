package dev.shelly.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The official MCP conformance suite's server scenarios against {@link ConformanceServer}, an
 * {@link McpToolServer} over streamable HTTP. Every scenario not in the expected-failures file
 * must pass, and every scenario in it must still fail (the suite's own rule).
 */
@Timeout(300)
class ServerConformanceTest {

    @Test
    void passesTheSuiteButTheExpectedFailures() throws Exception {
        try (McpToolServer server = ConformanceServer.build().startHttp(0)) {
            ConformanceSuite.Outcome outcome = ConformanceSuite.run(List.of("server", "--suite", "all", "-o", "results",
                    "--url", server.url().orElseThrow().toString().replace("127.0.0.1", "localhost"),
                    "--expected-failures", ConformanceSuite.expectedFailures().toString()),
                    Path.of("target/conformance/server").toAbsolutePath(), 240);
            System.out.println(outcome.counts("server (McpToolServer, streamable HTTP)"));
            assertThat(outcome.scenarios()).as(outcome.output()).hasSize(32);
            assertThat(outcome.exitCode()).as(outcome.output()).isZero();
        }
    }
}
