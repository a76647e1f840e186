package dev.shelly.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The MCP TypeScript SDK client ({@code @modelcontextprotocol/sdk}) against our server, over stdio
 * and streamable HTTP: {@code ts-client.mjs} prints what it sees, one line per step.
 */
@Timeout(120)
class TypeScriptClientInteropTest {

    /** What the TypeScript client must see from the demo toolbox, on either transport. */
    private static final List<String> EXPECTED = List.of(
            "server {\"name\":\"shelly-demo\",\"version\":\"1.0.0\"}",
            "capabilities {\"logging\":{},\"tools\":{\"listChanged\":true}}",
            "tools [\"get_weather\",\"fail\",\"boom\",\"tiny_image\",\"whoami\",\"print\",\"sleep\",\"exit\",\"add_tool\"]",
            "get_weather {\"name\":\"get_weather\",\"description\":\"Current weather for a city\",\"inputSchema\":"
                    + "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\",\"description\":\"city name\"},"
                    + "\"units\":{\"type\":\"string\",\"enum\":[\"CELSIUS\",\"FAHRENHEIT\"]}},\"required\":[\"city\"],"
                    + "\"additionalProperties\":false}}",
            "call get_weather {\"content\":[{\"type\":\"text\",\"text\":\"sunny in Paris, 70 F\"}],\"isError\":false}",
            "call get_weather {\"content\":[{\"type\":\"text\",\"text\":\"arguments for tool 'get_weather' do not match its schema:"
                    + " $.city is required; $.town is not allowed (allowed: city, units)\"}],\"isError\":true}",
            "call fail {\"content\":[{\"type\":\"text\",\"text\":\"this tool failed on purpose\"}],\"isError\":true}",
            "call boom {\"content\":[{\"type\":\"text\",\"text\":\"tool 'boom' failed: kaboom\"}],\"isError\":true}",
            "call tiny_image {\"content\":[{\"type\":\"text\",\"text\":\"a red dot\"},{\"type\":\"image\",\"data\":"
                    + "\"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==\","
                    + "\"mimeType\":\"image/png\"}],\"isError\":false}",
            "call whoami {\"content\":[{\"type\":\"text\",\"text\":\"agent=ts-interop-client depth=0\"}],\"isError\":false}",
            "call print {\"content\":[{\"type\":\"text\",\"text\":\"printed\"}],\"isError\":false}",
            "no_such_tool threw {\"code\":-32602,\"message\":\"MCP error -32602: Unknown tool: invalid_tool_name\"}",
            "call add_tool {\"content\":[{\"type\":\"text\",\"text\":\"registered late_tool\"}],\"isError\":false}",
            "tools after list_changed [\"get_weather\",\"fail\",\"boom\",\"tiny_image\",\"whoami\",\"print\",\"sleep\",\"exit\","
                    + "\"add_tool\",\"late_tool\"]",
            "call late_tool {\"content\":[{\"type\":\"text\",\"text\":\"late_tool called\"}],\"isError\":false}",
            "closed");

    @Test
    void overStdio(@TempDir Path tmp) throws Exception {
        List<String> command = new ArrayList<>(List.of("node", McpPeers.tsClient(), "stdio"));
        command.addAll(McpPeers.demoServer());
        Run run = run(command, tmp);
        assertThat(run.stdout()).as("stderr: %s", run.stderr()).containsExactlyElementsOf(EXPECTED);
        assertThat(run.stderr()).as("System.out of the server went to its stderr")
                .contains("stray output that must not reach the protocol stream");
    }

    @Test
    void overStreamableHttp(@TempDir Path tmp) throws Exception {
        try (McpToolServer server = McpToolServer.builder(DemoTools.box()).serverInfo("shelly-demo", "1.0.0").build()
                .startHttp(0)) {
            String url = server.url().orElseThrow().toString();
            assertThat(url).matches("http://127\\.0\\.0\\.1:\\d+/mcp");
            Run run = run(List.of("node", McpPeers.tsClient(), "http", url), tmp);
            assertThat(run.stdout()).as("stderr: %s", run.stderr()).containsExactlyElementsOf(EXPECTED);
        }
    }

    private record Run(List<String> stdout, String stderr) {}

    private static Run run(List<String> command, Path tmp) throws IOException, InterruptedException {
        Path out = tmp.resolve("stdout.txt");
        Path err = tmp.resolve("stderr.txt");
        Process process = new ProcessBuilder(command).directory(McpPeers.dir().toFile())
                .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        try {
            assertThat(process.waitFor(90, TimeUnit.SECONDS)).as("the TypeScript client finished").isTrue();
        } finally {
            process.destroyForcibly();
        }
        String stderr = Files.readString(err, StandardCharsets.UTF_8);
        assertThat(process.exitValue()).as("exit code; stderr: %s", stderr).isZero();
        return new Run(Files.readAllLines(out, StandardCharsets.UTF_8), stderr);
    }
}
