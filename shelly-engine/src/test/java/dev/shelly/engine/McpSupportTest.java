package dev.shelly.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.engine.config.ConfigException;
import dev.shelly.engine.config.ConfigLoader;
import dev.shelly.engine.config.EngineConfig;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * shelly-mcp is an optional dependency of the engine: without it, an engine whose config lists
 * no MCP server works, and one whose config lists MCP servers fails with a ConfigException that
 * names the field and the dependency to add.
 */
class McpSupportTest {
    private static final String WITH_MCP = """
            providers: [{ name: m, kind: openai, model: x, api_key: k }]
            mcp_servers:
              - name: files
                command: npx
              - name: search
                url: "http://127.0.0.1:1/mcp"
            agents: [{ name: a }]
            """;
    private static final String WITHOUT_MCP = """
            providers: [{ name: m, kind: openai, model: x, api_key: k }]
            agents: [{ name: a }]
            """;
    private static final String MISSING = "config.yaml:3: mcp_servers: MCP servers are configured (files, search), "
            + "but shelly-mcp is not on the class path; add the dependency dev.shelly:shelly-mcp (the engine "
            + "depends on it as optional, so that applications without MCP servers do not carry it)";

    /** A class loader that sees the JDK only: shelly-mcp is not there. */
    private static final ClassLoader WITHOUT_SHELLY_MCP = new ClassLoader(null) {};

    private static void require(EngineConfig config, ClassLoader loader) {
        McpSupport.require(config.mcpServers(), "MCP servers are configured", loader,
                message -> config.errorAt("mcp_servers", message));
    }

    @Test
    void mcpServersWithoutShellyMcpAreAConfigErrorNamingTheFieldAndTheDependency() {
        EngineConfig config = ConfigLoader.parse(WITH_MCP, "config.yaml", name -> null);

        assertThatThrownBy(() -> require(config, WITHOUT_SHELLY_MCP))
                .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.path()).isEqualTo("mcp_servers"))
                .hasMessage(MISSING);
    }

    @Test
    void mcpServersWithShellyMcpPass() {
        EngineConfig config = ConfigLoader.parse(WITH_MCP, "config.yaml", name -> null);

        assertThatCode(() -> require(config, McpSupport.class.getClassLoader())).doesNotThrowAnyException();
    }

    @Test
    void noMcpServersNeedNoShellyMcp() {
        EngineConfig config = ConfigLoader.parse(WITHOUT_MCP, "config.yaml", name -> null);

        assertThatCode(() -> require(config, WITHOUT_SHELLY_MCP)).doesNotThrowAnyException();
    }

    /**
     * The whole engine in a JVM whose class path lacks shelly-mcp and the jars it brings: a
     * session runs when no MCP server is configured, and MCP servers give the config error, not a
     * NoClassDefFoundError.
     */
    @Test
    void theEngineRunsWithoutShellyMcpOnTheClassPath(@TempDir Path tmp) throws Exception {
        List<String> full = Arrays.asList(System.getProperty("java.class.path").split(File.pathSeparator));
        List<String> kept = full.stream().filter(entry -> !isMcp(entry)).toList();
        assertThat(full).as("the test's own class path has shelly-mcp").anyMatch(McpSupportTest::isMcp);
        Path without = Files.createDirectories(tmp.resolve("without/.shelly"));
        Files.writeString(without.resolve("config.yaml"), WITHOUT_MCP);
        Path with = Files.createDirectories(tmp.resolve("with/.shelly"));
        Files.writeString(with.resolve("config.yaml"), WITH_MCP);

        Process child = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"),
                "-cp", String.join(File.pathSeparator, kept), NoMcpMain.class.getName(),
                without.toString(), with.toString())
                .redirectErrorStream(true).start();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        child.getInputStream().transferTo(out);
        assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String output = out.toString(StandardCharsets.UTF_8);

        assertThat(child.exitValue()).as(output).isZero();
        assertThat(output.lines().collect(Collectors.toList())).as(output).containsSubsequence(
                "shelly-mcp: absent",
                "reply: hello",
                "error: " + with.resolve("config.yaml") + MISSING.substring("config.yaml".length()));
    }

    private static boolean isMcp(String entry) {
        String path = entry.replace(File.separatorChar, '/');
        return path.contains("/shelly-mcp/") || path.contains("/shelly-mcp-") || path.contains("/io/modelcontextprotocol/")
                || path.contains("/io/projectreactor/") || path.contains("/com/networknt/");
    }
}
