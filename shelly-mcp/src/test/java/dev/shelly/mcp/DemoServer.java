package dev.shelly.mcp;

/** Serves {@link DemoTools} over stdio: the server process the interop tests spawn. */
public final class DemoServer {
    private DemoServer() {}

    /**
     * Serves until stdin closes, then exits.
     *
     * @param args ignored
     */
    public static void main(String[] args) {
        McpToolServer.builder(DemoTools.box()).serverInfo("shelly-demo", "1.0.0").build().serveStdio();
        System.exit(0);
    }
}
