package dev.shelly.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.chats.ToolCall;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolContext;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The stdio server, byte for byte: one JSON-RPC message per line on stdout, nothing else. */
@Timeout(60)
class StdioServerTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String INITIALIZE = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
            + "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}";
    private static final String INITIALIZED = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";

    @Test
    void aSubprocessServerWritesOnlyProtocolToStdoutAndExitsWhenStdinCloses() throws Exception {
        Process server = new ProcessBuilder(McpPeers.demoServer()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        OutputStream in = server.getOutputStream();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8))) {
            send(in, INITIALIZE);
            JsonNode init = JSON.readTree(out.readLine());
            assertThat(init.get("id").asInt()).isEqualTo(1);
            assertThat(init.at("/result/serverInfo/name").asString()).isEqualTo("shelly-demo");
            send(in, INITIALIZED);
            send(in, call(2, "print"));
            send(in, call(3, "boom"));
            List<JsonNode> answers = new ArrayList<>();
            answers.add(JSON.readTree(out.readLine()));
            answers.add(JSON.readTree(out.readLine()));
            answers.sort((a, b) -> a.get("id").asInt() - b.get("id").asInt());
            assertThat(answers.get(0).toString()).isEqualTo(
                    "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"printed\"}],\"isError\":false}}");
            assertThat(answers.get(1).toString()).isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"content\":"
                    + "[{\"type\":\"text\",\"text\":\"tool 'boom' failed: kaboom\"}],\"isError\":true}}");
            in.close();
            assertThat(out.lines().toList()).as("nothing but protocol on stdout").isEmpty();
        }
        assertThat(server.waitFor(20, TimeUnit.SECONDS)).as("the server exits when its stdin closes").isTrue();
        assertThat(server.exitValue()).isZero();
    }

    @Test
    void anEmbeddedServerAnswersOnGivenStreamsAndStopsWhenInputEnds() throws Exception {
        PipedOutputStream clientOut = new PipedOutputStream();
        PipedInputStream serverIn = new PipedInputStream(clientOut, 1 << 16);
        ByteArrayOutputStream serverOut = new ByteArrayOutputStream();
        ToolBox box = DemoTools.box();
        McpToolServer server = McpToolServer.builder(box).serverInfo("embedded", "2.0").build().startStdio(serverIn, serverOut);
        send(clientOut, INITIALIZE);
        send(clientOut, INITIALIZED);
        send(clientOut, call(2, "whoami"));
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (serverOut.toString(StandardCharsets.UTF_8).lines().count() < 2 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        clientOut.close();
        server.awaitTermination();
        server.close();
        List<String> lines = serverOut.toString(StandardCharsets.UTF_8).lines().toList();
        assertThat(lines).hasSize(2);
        assertThat(JSON.readTree(lines.get(0)).at("/result/serverInfo").toString())
                .isEqualTo("{\"name\":\"embedded\",\"version\":\"2.0\"}");
        assertThat(lines.get(1)).isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":"
                + "[{\"type\":\"text\",\"text\":\"agent=raw depth=0\"}],\"isError\":false}}");
        assertThat(box.call(new ToolCall("c", "whoami", "{}"), ToolContext.of("x")).text()).isEqualTo("agent=x depth=0");
    }

    private static String call(int id, String tool) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool
                + "\",\"arguments\":{}}}";
    }

    private static void send(OutputStream out, String line) throws Exception {
        out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }
}
