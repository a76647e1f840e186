package dev.shelly.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Where the interop tests' npm peers and this JVM are, for tests that start processes. */
final class McpPeers {
    private McpPeers() {}

    /** The directory the build ran {@code npm ci} in. */
    static Path dir() {
        Path dir = Path.of(System.getProperty("shelly.mcp.peers", "target/mcp-peers")).toAbsolutePath();
        assertThat(dir.resolve("node_modules/@modelcontextprotocol"))
                .as("the MCP peers are installed by the Maven build (npm ci in process-test-resources);"
                        + " run the tests through ./mvnw, with node and npm on the PATH")
                .isDirectory();
        return dir;
    }

    static String everything() {
        return dir().resolve("node_modules/@modelcontextprotocol/server-everything/dist/index.js").toString();
    }

    static String filesystem() {
        return dir().resolve("node_modules/@modelcontextprotocol/server-filesystem/dist/index.js").toString();
    }

    static String tsClient() {
        return dir().resolve("ts-client.mjs").toString();
    }

    /** The java launcher of this JVM. */
    static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** The command line that starts {@link DemoServer} as a stdio MCP server. */
    static List<String> demoServer() {
        List<String> line = new ArrayList<>();
        line.add(java());
        line.add("-cp");
        line.add(System.getProperty("java.class.path"));
        line.add(DemoServer.class.getName());
        return line;
    }

    static McpEndpoint.Stdio demoServerEndpoint() {
        List<String> line = demoServer();
        return new McpEndpoint.Stdio(line.get(0), line.subList(1, line.size()), Map.of(), null, false);
    }

    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    /** Waits until something listens on the port. */
    static void awaitListening(int port, Duration limit) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (System.nanoTime() < deadline) {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return;
            } catch (IOException e) {
                Thread.sleep(50);
            }
        }
        throw new AssertionError("nothing listens on port " + port + " after " + limit);
    }
}
