package dev.shelly.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

@Timeout(60)
class ProcessTransportTest {

    private static ProcessTransport transport(McpEndpoint.Stdio endpoint, Duration grace) {
        return new ProcessTransport(endpoint, new JacksonMcpJsonMapper(JsonMapper.builder().build()), "test", grace, null);
    }

    @Test
    void aServerIgnoringEofAndSigtermIsKilledWithItsChildren() throws Exception {
        McpEndpoint.Stdio stubborn = new McpEndpoint.Stdio("sh",
                List.of("-c", "trap '' TERM; sleep 300 & while true; do sleep 1; done"), Map.of(), null, false);
        ProcessTransport transport = transport(stubborn, Duration.ofMillis(300));
        transport.connect(message -> message).block();
        Process process = transport.process();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (process.descendants().findAny().isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        List<ProcessHandle> children = process.descendants().toList();
        assertThat(children).isNotEmpty();
        long start = System.nanoTime();
        transport.terminate();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        assertThat(process.isAlive()).isFalse();
        // Killed children of a killed parent are reaped by init; give it a moment.
        deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (children.stream().anyMatch(ProcessHandle::isAlive) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(children).noneMatch(ProcessHandle::isAlive);
        assertThat(transport.ended().get(5, TimeUnit.SECONDS)).isEqualTo(ProcessTransport.CLOSED);
    }

    @Test
    void theChildGetsAMinimalEnvironmentItsOwnVariablesAndItsWorkingDirectory(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("env.txt");
        McpEndpoint.Stdio printer = new McpEndpoint.Stdio("sh", List.of("-c", "{ pwd; env; } > \"$0\"", out.toString()),
                Map.of("SHELLY_TEST", "yes"), dir, false);
        ProcessTransport transport = transport(printer, Duration.ofSeconds(1));
        transport.connect(message -> message).block();
        assertThat(transport.process().waitFor(10, TimeUnit.SECONDS)).isTrue();
        List<String> lines = Files.readAllLines(out);
        assertThat(lines.get(0)).isEqualTo(dir.toRealPath().toString());
        List<String> names = lines.subList(1, lines.size()).stream().map(line -> line.substring(0, line.indexOf('='))).toList();
        assertThat(names).contains("SHELLY_TEST", "PATH")
                .allMatch(name -> List.of("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "SHELLY_TEST", "PWD", "SHLVL", "_")
                        .contains(name));
        assertThat(lines).contains("SHELLY_TEST=yes");
        transport.terminate();
    }
}
