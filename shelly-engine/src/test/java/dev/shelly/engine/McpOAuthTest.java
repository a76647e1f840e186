package dev.shelly.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.engine.config.ConfigException;
import dev.shelly.mcp.McpOAuth;
import dev.shelly.mcp.McpToolServer;
import dev.shelly.testing.ScriptedCompleter;
import dev.shelly.testing.Step;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolOutput;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * An MCP server behind a real OAuth authorization server ({@link OAuthGate}), used by the engine
 * as {@code oauth:} configures it: discovery, dynamic registration, the person's consent through
 * the application's callback with the redirect taken on the loopback address, PKCE, tokens kept in
 * {@code .shelly/mcp-tokens.json} (0600), refreshed when the server refuses them, and a restart
 * that goes on with the kept tokens without asking the person again.
 */
@Timeout(60)
class McpOAuthTest {
    @TempDir
    Path project;
    private McpToolServer mcp;
    private OAuthGate gate;
    private final List<URI> pages = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws IOException {
        ToolBox box = ToolBox.of(Tool.of("lookup", "Looks the docs up", "{\"type\":\"object\"}",
                (in, ctx) -> ToolOutput.text("the docs say hello")));
        mcp = McpToolServer.builder(box).build().startHttp(0);
        gate = new OAuthGate(mcp.url().orElseThrow(), 3600);
    }

    @AfterEach
    void stop() {
        gate.close();
        mcp.close();
    }

    /** Writes the project's config: one agent using the protected server's tools. */
    private void config(String oauth) throws IOException {
        Path shelly = Files.createDirectories(project.resolve(".shelly"));
        Files.writeString(shelly.resolve("config.yaml"), """
                providers:
                  - name: m
                    kind: openai
                    model: x
                    api_key: k
                mcp_servers:
                  - name: docs
                    url: %s
                    oauth:
                %s
                agents:
                  - name: helper
                    provider: m
                    toolboxes: [docs]
                """.formatted(gate.mcpUrl(), oauth.indent(6).stripTrailing()));
    }

    /** A person who agrees at once: the browser loads the page and follows the redirect, to wherever it points. */
    private URI browser(URI page) throws InterruptedException {
        pages.add(page);
        try (HttpClient browser = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build()) {
            HttpResponse<String> consent = browser.send(HttpRequest.newBuilder(page).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(consent.statusCode()).as(consent.body()).isEqualTo(302);
            URI back = URI.create(consent.headers().firstValue("Location").orElseThrow());
            HttpResponse<String> landed = browser.send(HttpRequest.newBuilder(back).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(landed.body()).contains("authorized");
            return null;   // the engine took the redirect on its loopback address
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String lookUp(Engine engine) {
        try (Session session = engine.newSession()) {
            return session.send("what do the docs say?").text();
        }
    }

    private static ScriptedCompleter model() {
        return ScriptedCompleter.of(Step.toolCall("lookup", "{}"),
                Step.reply(request -> "found: " + request.messages().getLast().toolResults().getFirst().text()),
                Step.toolCall("lookup", "{}"),
                Step.reply(request -> "again: " + request.messages().getLast().toolResults().getFirst().text()));
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    @Test
    void thePersonConsentsOnceAndTheKeptTokensAreRefreshedAndOutliveTheEngine() throws Exception {
        String redirect = "http://127.0.0.1:" + freePort() + "/callback";
        config("client_name: docs-agent\nscopes: [docs.read]\nredirect_uri: " + redirect + "\n");

        try (Engine engine = Engine.builder().dir(new ShellyDir(project.resolve(".shelly"))).completer("m", model())
                .mcpConsent(this::browser).build()) {
            assertThat(pages).singleElement().satisfies(page -> assertThat(page.toString())
                    .startsWith(gate.origin() + "/authorize?response_type=code&client_id=client-")
                    .contains("redirect_uri=" + java.net.URLEncoder.encode(redirect, java.nio.charset.StandardCharsets.UTF_8))
                    .contains("code_challenge_method=S256"));
            assertThat(gate.registered).containsExactly("docs-agent");
            assertThat(gate.authorizations).singleElement().satisfies(a -> {
                assertThat(a.get("resource")).isEqualTo(gate.mcpUrl());
                assertThat(a.get("scope")).isEqualTo("docs.read");
            });
            assertThat(lookUp(engine)).isEqualTo("found: the docs say hello");

            gate.revokeAccessTokens();   // the server refuses the token now: the client refreshes it and retries
            try (Session session = engine.newSession()) {
                assertThat(session.send("and now?").text()).isEqualTo("again: the docs say hello");
            }
            assertThat(gate.grants).containsExactly("authorization_code", "refresh_token");
        }
        Path file = project.resolve(".shelly/mcp-tokens.json");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
        assertThat(Files.readString(file)).contains(gate.mcpUrl(), "\"refresh_token\" : \"rt-", gate.origin(), "client-");

        gate.revokeAccessTokens();   // the next run starts with a token the server no longer takes
        AtomicInteger asked = new AtomicInteger();
        try (Engine engine = Engine.builder().dir(new ShellyDir(project.resolve(".shelly"))).completer("m", model())
                .mcpConsent(page -> {
                    asked.incrementAndGet();
                    return null;
                }).build()) {
            assertThat(lookUp(engine)).isEqualTo("found: the docs say hello");
        }
        assertThat(asked).as("the kept refresh token and registration spare the person").hasValue(0);
        assertThat(gate.registered).hasSize(1);
        assertThat(gate.grants).containsExactly("authorization_code", "refresh_token", "refresh_token");
    }

    @Test
    void withConsentApplicationTheCallbackReturnsTheRedirectItself() throws Exception {
        config("consent: application\nredirect_uri: https://app.example.com/oauth/back\n");
        McpOAuth.Consent app = page -> {
            pages.add(page);
            try (HttpClient browser = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build()) {
                return URI.create(browser.send(HttpRequest.newBuilder(page).build(), HttpResponse.BodyHandlers.discarding())
                        .headers().firstValue("Location").orElseThrow());
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        };
        try (Engine engine = Engine.builder().dir(new ShellyDir(project.resolve(".shelly"))).completer("m", model())
                .mcpConsent(app).build()) {
            assertThat(lookUp(engine)).isEqualTo("found: the docs say hello");
        }
        assertThat(pages).singleElement().asString().contains("redirect_uri=https%3A%2F%2Fapp.example.com%2Foauth%2Fback");
    }

    @Test
    void withoutAConsentStepTheBuildFailsNamingTheBuildersMethod() throws Exception {
        config("redirect_uri: http://127.0.0.1:" + freePort() + "/callback\n");
        assertThatThrownBy(() -> Engine.builder().dir(new ShellyDir(project.resolve(".shelly"))).completer("m", model()).build())
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("mcp_servers[0]: MCP server 'docs' did not start: ")
                .hasMessageContaining("MCP server 'docs' needs the person's authorization, and the engine has no consent step"
                        + " to show them the page; give it one with Engine.Builder.mcpConsent");
        assertThat(gate.grants).isEmpty();
    }

    @Test
    void aConsentStepThatRefusesFailsTheBuildWithItsReasonNamingTheServer() throws Exception {
        config("redirect_uri: http://127.0.0.1:" + freePort() + "/callback\n");
        assertThatThrownBy(() -> Engine.builder().dir(new ShellyDir(project.resolve(".shelly"))).completer("m", model())
                .mcpConsent(page -> {
                    throw new IllegalStateException("nobody is here to open " + page.getHost());
                }).build())
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("mcp_servers[0]: MCP server 'docs' did not start: ")
                .hasMessageContaining("nobody is here to open 127.0.0.1");
        assertThat(gate.grants).isEmpty();
    }
}
