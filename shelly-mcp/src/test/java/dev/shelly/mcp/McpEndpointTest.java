package dev.shelly.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class McpEndpointTest {

    @Test
    void stdioEndpointsCopyTheirSettings() {
        McpEndpoint.Stdio stdio = McpEndpoint.stdio("npx", "-y", "@modelcontextprotocol/server-everything")
                .withEnv(Map.of("API_KEY", "secret")).withWorkingDirectory(Path.of("/srv")).withInheritedEnvironment(true);
        assertThat(stdio.commandLine()).containsExactly("npx", "-y", "@modelcontextprotocol/server-everything");
        assertThat(stdio.env()).containsExactly(Map.entry("API_KEY", "secret"));
        assertThat(stdio.workingDirectory()).isEqualTo(Path.of("/srv"));
        assertThat(stdio.inheritEnvironment()).isTrue();
        assertThat(stdio.toString()).isEqualTo("stdio:npx -y @modelcontextprotocol/server-everything");
        assertThatThrownBy(() -> McpEndpoint.stdio(" ")).hasMessage("McpEndpoint.Stdio.command must not be null or blank");
        assertThatThrownBy(() -> McpEndpoint.stdio("x", "a", null)).hasMessage("McpEndpoint.Stdio.args[1] must not be null");
    }

    @Test
    void httpEndpointsNeverShowHeaderValues() {
        McpEndpoint.Http http = McpEndpoint.http("https://mcp.example.com/mcp").withHeader("Authorization", "Bearer secret");
        assertThat(http.headers()).containsExactly(Map.entry("Authorization", "Bearer secret"));
        assertThat(http.toString()).isEqualTo("http:https://mcp.example.com/mcp (headers: Authorization)").doesNotContain("secret");
        assertThatThrownBy(() -> McpEndpoint.http("ftp://example.com/mcp"))
                .hasMessage("McpEndpoint.Http.url must be an http or https URL, got ftp://example.com/mcp");
        assertThatThrownBy(() -> new McpEndpoint.Http(java.net.URI.create("http://example.com"), Map.of("", "x")))
                .hasMessage("McpEndpoint.Http.headers must not hold a blank name or a null value");
    }

    @Test
    void recordsAreValues() {
        assertThat(McpEndpoint.stdio("node", "server.js"))
                .isEqualTo(new McpEndpoint.Stdio("node", List.of("server.js"), Map.of(), null, false));
    }
}
