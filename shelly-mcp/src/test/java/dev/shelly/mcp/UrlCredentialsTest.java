package dev.shelly.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import dev.shelly.chats.internal.Redaction;
import dev.shelly.tools.ToolContext;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Credentials in an MCP server's URL never appear in what the client prints. */
@Timeout(60)
class UrlCredentialsTest {
    private static final String TOKEN = "s3cr3t-t0ken-QUERY";
    private static final String PASSWORD = "hunter2-PASSWORD";
    private static final String PATH_TOKEN = "sk_live_4eC39HqLyjWDarjtT1zdp7dc";

    @Test
    void theMaskHidesUserInfoQueryValuesFragmentsAndTokenLikePathSegments() {
        assertThat(Redaction.maskUrl(URI.create("https://alice:" + PASSWORD + "@mcp.example.com:8443/v1/mcp?token=" + TOKEN
                + "&debug&x=1#frag"))).isEqualTo("https://***@mcp.example.com:8443/v1/mcp?token=***&debug&x=***#***");
        assertThat(Redaction.maskUrl(URI.create("https://hooks.example.com/mcp/" + PATH_TOKEN + "/tools")))
                .isEqualTo("https://hooks.example.com/mcp/***/tools");
        assertThat(Redaction.maskUrl(URI.create("http://127.0.0.1:3001/mcp"))).isEqualTo("http://127.0.0.1:3001/mcp");
        assertThat(Redaction.maskUrl(URI.create("http://localhost/servers/filesystem-and-more")))
                .as("a long segment without digits is a name, not a token")
                .isEqualTo("http://localhost/servers/filesystem-and-more");
    }

    @Test
    void scrubbingRemovesTheSecretsWhereverALibraryQuotesThem() {
        URI url = URI.create("https://bob:" + PASSWORD + "@h.example.com/a/" + PATH_TOKEN + "?token=" + TOKEN + "&v=1");
        String text = "failed: " + url + " / token=" + TOKEN + " / " + PATH_TOKEN + " / user bob:" + PASSWORD + " v1";
        String scrubbed = Redaction.scrub(text, url);
        assertThat(scrubbed).doesNotContain(TOKEN, PASSWORD, PATH_TOKEN).contains("v1")
                .startsWith("failed: https://***@h.example.com/a/***?token=***&v=***");
    }

    @Test
    void theEndpointsToStringAndErrorsNeverShowTheCredentials() {
        McpEndpoint.Http http = McpEndpoint.http("https://alice:" + PASSWORD + "@mcp.example.com/mcp/" + PATH_TOKEN
                + "?token=" + TOKEN).withHeader("Authorization", "Bearer x");
        assertThat(http.toString()).isEqualTo("http:https://***@mcp.example.com/mcp/***?token=*** (headers: Authorization)");
        assertThatThrownBy(() -> McpEndpoint.http("ftp://alice:" + PASSWORD + "@example.com/mcp?token=" + TOKEN))
                .hasMessage("McpEndpoint.Http.url must be an http or https URL, got ftp://***@example.com/mcp?token=***");
        assertThatThrownBy(() -> McpEndpoint.http("http://example.com/a b?token=" + TOKEN))
                .hasMessage("McpEndpoint.http url is not a valid URL: Illegal character in path at index 20");
    }

    @Test
    void aServerThatCannotBeReachedIsReportedWithoutTheCredentials() throws Exception {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        McpEndpoint endpoint = McpEndpoint.http("http://alice:" + PASSWORD + "@127.0.0.1:" + port + "/mcp/" + PATH_TOKEN
                + "?token=" + TOKEN);
        assertThatThrownBy(() -> McpToolClient.builder(endpoint).connectTimeout(Duration.ofSeconds(5)).connect())
                .isInstanceOf(McpException.class)
                .satisfies(e -> assertThat(e.toString()).doesNotContain(TOKEN, PASSWORD, PATH_TOKEN)
                        .contains("MCP server 'http://***@127.0.0.1:" + port + "/mcp/***?token=***'"))
                .satisfies(e -> {
                    for (Throwable c = e.getCause(); c != null; c = c.getCause()) {
                        assertThat(c.toString()).doesNotContain(TOKEN, PASSWORD, PATH_TOKEN);
                    }
                });
    }

    @Test
    void aConnectedClientsNameToStringAndToolErrorsNeverShowTheCredentials() {
        McpToolServer server = McpToolServer.builder(DemoTools.box()).build().startHttp(0);
        try {
            URI url = server.url().orElseThrow();
            McpEndpoint endpoint = McpEndpoint.http("http://alice:" + PASSWORD + "@" + url.getAuthority() + url.getPath()
                    + "?token=" + TOKEN);
            try (McpToolClient client = McpToolClient.builder(endpoint).callTimeout(Duration.ofSeconds(2)).connect()) {
                assertThat(client.name()).isEqualTo("http://***@" + url.getAuthority() + url.getPath() + "?token=***");
                assertThat(client.toString()).doesNotContain(TOKEN, PASSWORD).contains("?token=***");
                server.close();   // the server goes away while the client is connected
                ToolResult result = client.toolBox().call(new ToolCall("c1", "echo", "{\"message\":\"hi\"}"),
                        ToolContext.of("assistant"));
                assertThat(result.isError()).isTrue();
                assertThat(result.text()).doesNotContain(TOKEN, PASSWORD);
            }
        } finally {
            server.close();
        }
    }
}
