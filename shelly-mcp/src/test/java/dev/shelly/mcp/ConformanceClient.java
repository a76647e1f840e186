package dev.shelly.mcp;

import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolContext;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Iterator;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The client program the conformance suite's client scenarios run: {@code ConformanceClient
 * <server-url>}, with the scenario's name in {@code MCP_CONFORMANCE_SCENARIO}. It is an
 * {@link McpToolClient} used as an application would: connect, list the tools, call each one
 * with arguments made from its schema, and accept every elicitation as it comes (so the schema's
 * defaults fill it).
 */
final class ConformanceClient {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private ConformanceClient() {}

    public static void main(String[] args) {
        String url = args[args.length - 1];
        String scenario = System.getenv().getOrDefault("MCP_CONFORMANCE_SCENARIO", "");
        System.err.println("conformance client: scenario '" + scenario + "' against " + url);
        int status = 0;
        McpToolClient.Builder builder = McpToolClient.builder(McpEndpoint.http(url)).name("conformance")
                .clientInfo("shelly-conformance-client", "1.0.0")
                .connectTimeout(Duration.ofSeconds(20)).callTimeout(Duration.ofSeconds(8))
                .elicitation(request -> McpElicitation.Answer.accept(Map.of()));
        if (scenario.startsWith("auth/")) {
            builder.oauth(oauth(System.getenv("MCP_CONFORMANCE_CONTEXT")));
        }
        try (McpToolClient client = builder.connect()) {
            for (Tool tool : client.tools()) {
                ToolResult result = client.toolBox().call(new ToolCall("c-" + tool.name(), tool.name(),
                        arguments(tool.definition().inputSchema())), ToolContext.of("conformance"));
                System.err.println("conformance client: " + tool.name() + " -> " + result.text());
            }
        } catch (RuntimeException e) {
            System.err.println("conformance client failed: " + e);
            status = 1;
        }
        System.exit(status);
    }

    /**
     * OAuth as an application would set it up, with the scenario's credentials when it gives
     * some; the consent step is a user who always agrees: it loads the authorization page and
     * follows it back to the redirect URI.
     */
    static McpOAuth oauth(String context) {
        McpOAuth.Builder oauth = McpOAuth.builder().clientName("shelly-conformance-client")
                .redirectUri(URI.create("http://localhost:3000/callback"))
                .clientMetadataUrl(URI.create("https://conformance-test.local/client-metadata.json"))
                .consent(ConformanceClient::consent);
        if (context != null && !context.isBlank()) {
            JsonNode given = JSON.readTree(context);
            String id = given.path("client_id").asString();
            switch (given.path("name").asString("")) {
                case "auth/client-credentials-basic" -> oauth.clientCredentials(id, given.path("client_secret").asString());
                case "auth/client-credentials-jwt" -> oauth.clientCredentialsJwt(id, given.path("private_key_pem").asString());
                default -> oauth.preRegistered(id, given.path("client_secret").asString(null));
            }
        }
        return oauth.build();
    }

    private static URI consent(URI page) throws InterruptedException {
        try (HttpClient http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build()) {
            HttpResponse<Void> response = http.send(HttpRequest.newBuilder(page).GET().build(), HttpResponse.BodyHandlers.discarding());
            return URI.create(response.headers().firstValue("Location").orElseThrow(
                    () -> new IllegalStateException("the authorization page " + page + " answered " + response.statusCode()
                            + " without a redirect")));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Arguments that fit a tool's schema: each property a 1, "x", true, [] or {} by its type. */
    static String arguments(String schema) {
        ObjectNode arguments = JSON.createObjectNode();
        JsonNode properties = JSON.readTree(schema).path("properties");
        for (Iterator<Map.Entry<String, JsonNode>> it = properties.properties().iterator(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> property = it.next();
            switch (property.getValue().path("type").asString("string")) {
                case "number", "integer" -> arguments.put(property.getKey(), 1);
                case "boolean" -> arguments.put(property.getKey(), true);
                case "array" -> arguments.putArray(property.getKey());
                case "object" -> arguments.putObject(property.getKey());
                default -> arguments.put(property.getKey(), "x");
            }
        }
        return arguments.toString();
    }
}
