package dev.shelly.engine;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A real OAuth 2.1 authorization server and the MCP endpoint it protects, on one loopback port,
 * as the MCP authorization spec has them: {@code /mcp} answers 401 with the protected-resource
 * metadata's URL unless the bearer token is one this server issued for that resource (then the
 * request goes on to the MCP server behind, events streamed back as they come); the metadata
 * documents, dynamic registration, an authorization endpoint that checks PKCE's challenge and
 * "consents" by redirecting at once, and a token endpoint for the code (checked against the
 * challenge) and for refresh. It records what it was asked, for the tests to check.
 */
final class OAuthGate implements AutoCloseable {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Set<String> FORWARDED = Set.of("content-type", "accept", "mcp-session-id", "mcp-protocol-version",
            "last-event-id");

    /** A code handed out by the authorization endpoint, with what it was asked for. */
    private record Grant(String clientId, String redirectUri, String challenge, String resource, String scope) {}

    private final HttpServer server;
    private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final URI upstream;
    private final long expiresIn;
    private final Map<String, String> clients = new ConcurrentHashMap<>();
    private final Map<String, Grant> codes = new ConcurrentHashMap<>();
    private final Map<String, String> accessTokens = new ConcurrentHashMap<>();
    private final Map<String, String> refreshTokens = new ConcurrentHashMap<>();
    /** The grants the token endpoint gave, in order: {@code authorization_code} or {@code refresh_token}. */
    final List<String> grants = new CopyOnWriteArrayList<>();
    /** The clients registered, by name. */
    final List<String> registered = new CopyOnWriteArrayList<>();
    /** The authorization requests' parameters. */
    final List<Map<String, String>> authorizations = new CopyOnWriteArrayList<>();
    /** The bearer tokens the MCP endpoint accepted, in order. */
    final List<String> accepted = new CopyOnWriteArrayList<>();

    /**
     * Starts the gate in front of an MCP server.
     *
     * @param upstream the MCP server's streamable HTTP URL
     * @param expiresIn the lifetime of the access tokens it issues, in seconds
     */
    OAuthGate(URI upstream, long expiresIn) throws IOException {
        this.upstream = upstream;
        this.expiresIn = expiresIn;
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setExecutor(threads);
        server.createContext("/", exchange -> {
            try (exchange) {
                route(exchange);
            } catch (IOException | RuntimeException e) {
                if (exchange.getResponseCode() < 0) {
                    send(exchange, 500, "text/plain", String.valueOf(e));
                }
            }
        });
        server.start();
    }

    /** Forgets every access token issued so far, as if they had expired: the next request gets 401. */
    void revokeAccessTokens() {
        accessTokens.clear();
    }

    /** The origin, which is also the authorization server's issuer. */
    String origin() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** The protected MCP endpoint. */
    String mcpUrl() {
        return origin() + "/mcp";
    }

    private void route(HttpExchange exchange) throws IOException {
        String path = exchange.getRequestURI().getPath();
        switch (path) {
            case "/.well-known/oauth-protected-resource/mcp" -> json(exchange, 200, Map.of("resource", mcpUrl(),
                    "authorization_servers", List.of(origin()), "scopes_supported", List.of("docs.read")));
            case "/.well-known/oauth-authorization-server" -> json(exchange, 200, Map.of("issuer", origin(),
                    "authorization_endpoint", origin() + "/authorize", "token_endpoint", origin() + "/token",
                    "registration_endpoint", origin() + "/register", "response_types_supported", List.of("code"),
                    "grant_types_supported", List.of("authorization_code", "refresh_token"),
                    "code_challenge_methods_supported", List.of("S256"), "token_endpoint_auth_methods_supported", List.of("none")));
            case "/register" -> register(exchange);
            case "/authorize" -> authorize(exchange);
            case "/token" -> token(exchange);
            case "/mcp" -> mcp(exchange);
            default -> send(exchange, 404, "text/plain", "not found");
        }
    }

    private void register(HttpExchange exchange) throws IOException {
        JsonNode request = JSON.readTree(exchange.getRequestBody());
        String id = "client-" + UUID.randomUUID();
        clients.put(id, request.path("redirect_uris").get(0).asString());
        registered.add(request.path("client_name").asString());
        json(exchange, 201, Map.of("client_id", id, "token_endpoint_auth_method", "none",
                "redirect_uris", List.of(clients.get(id))));
    }

    /** Consents at once: the browser is sent back with a code, when the request is a valid one. */
    private void authorize(HttpExchange exchange) throws IOException {
        Map<String, String> q = form(exchange.getRequestURI().getRawQuery());
        authorizations.add(q);
        String redirect = clients.get(q.get("client_id"));
        if (redirect == null || !redirect.equals(q.get("redirect_uri"))) {
            send(exchange, 400, "text/plain", "unknown client or redirect URI");
            return;
        }
        if (!"code".equals(q.get("response_type")) || !"S256".equals(q.get("code_challenge_method"))
                || q.get("code_challenge") == null || !mcpUrl().equals(q.get("resource"))) {
            exchange.getResponseHeaders().set("Location", redirect + "?error=invalid_request&state=" + q.get("state"));
            exchange.sendResponseHeaders(302, -1);
            return;
        }
        String code = UUID.randomUUID().toString();
        codes.put(code, new Grant(q.get("client_id"), redirect, q.get("code_challenge"), q.get("resource"), q.get("scope")));
        exchange.getResponseHeaders().set("Location", redirect + "?code=" + code + "&state="
                + URLEncoder.encode(q.get("state"), StandardCharsets.UTF_8));
        exchange.sendResponseHeaders(302, -1);
    }

    private void token(HttpExchange exchange) throws IOException {
        Map<String, String> f = form(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
        String grant = f.getOrDefault("grant_type", "");
        String scope;
        if (grant.equals("authorization_code")) {
            Grant given = codes.remove(f.getOrDefault("code", ""));
            if (given == null || !given.clientId().equals(f.get("client_id")) || !given.redirectUri().equals(f.get("redirect_uri"))
                    || !given.challenge().equals(s256(f.getOrDefault("code_verifier", ""))) || !given.resource().equals(f.get("resource"))) {
                json(exchange, 400, Map.of("error", "invalid_grant"));
                return;
            }
            scope = given.scope();
        } else if (grant.equals("refresh_token")) {
            String client = refreshTokens.remove(f.getOrDefault("refresh_token", ""));
            if (client == null || !client.equals(f.get("client_id")) || !mcpUrl().equals(f.get("resource"))) {
                json(exchange, 400, Map.of("error", "invalid_grant"));
                return;
            }
            scope = "docs.read";
        } else {
            json(exchange, 400, Map.of("error", "unsupported_grant_type"));
            return;
        }
        grants.add(grant);
        String access = "at-" + UUID.randomUUID();
        String refresh = "rt-" + UUID.randomUUID();
        accessTokens.put(access, f.get("resource"));
        refreshTokens.put(refresh, f.get("client_id"));
        Map<String, Object> tokens = new LinkedHashMap<>();
        tokens.put("access_token", access);
        tokens.put("token_type", "Bearer");
        tokens.put("expires_in", expiresIn);
        tokens.put("refresh_token", refresh);
        tokens.put("scope", scope == null ? "docs.read" : scope);
        json(exchange, 200, tokens);
    }

    /** The protected endpoint: a token this server issued for it, or 401; then on to the MCP server. */
    private void mcp(HttpExchange exchange) throws IOException {
        String header = exchange.getRequestHeaders().getFirst("Authorization");
        String token = header != null && header.startsWith("Bearer ") ? header.substring(7) : "";
        if (!mcpUrl().equals(accessTokens.get(token))) {
            exchange.getResponseHeaders().set("WWW-Authenticate", "Bearer resource_metadata=\"" + origin()
                    + "/.well-known/oauth-protected-resource/mcp\", scope=\"docs.read\"");
            send(exchange, 401, "application/json", "{\"error\":\"invalid_token\"}");
            return;
        }
        if (accepted.isEmpty() || !accepted.getLast().equals(token)) {
            accepted.add(token);
        }
        HttpRequest.Builder forward = HttpRequest.newBuilder(upstream);
        exchange.getRequestHeaders().forEach((name, values) -> {
            if (FORWARDED.contains(name.toLowerCase(java.util.Locale.ROOT))) {
                values.forEach(v -> forward.header(name, v));
            }
        });
        byte[] body = exchange.getRequestBody().readAllBytes();
        forward.method(exchange.getRequestMethod(), body.length == 0 ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofByteArray(body));
        HttpResponse<InputStream> answer;
        try {
            answer = http.send(forward.build(), HttpResponse.BodyHandlers.ofInputStream());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        answer.headers().map().forEach((name, values) -> {
            if (FORWARDED.contains(name.toLowerCase(java.util.Locale.ROOT))) {
                values.forEach(v -> exchange.getResponseHeaders().add(name, v));
            }
        });
        try (InputStream in = answer.body()) {
            boolean empty = answer.statusCode() == 202 || answer.statusCode() == 204;
            exchange.sendResponseHeaders(answer.statusCode(), empty ? -1 : 0);
            if (!empty) {
                OutputStream out = exchange.getResponseBody();
                byte[] chunk = new byte[8192];
                for (int n; (n = in.read(chunk)) >= 0; ) {
                    out.write(chunk, 0, n);
                    out.flush();   // events pass as they come
                }
            }
        }
    }

    private static String s256(String verifier) {
        try {
            return Base64.getUrlEncoder().withoutPadding().encodeToString(
                    MessageDigest.getInstance("SHA-256").digest(verifier.getBytes(StandardCharsets.US_ASCII)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Map<String, String> form(String text) {
        Map<String, String> values = new LinkedHashMap<>();
        if (text != null && !text.isEmpty()) {
            for (String pair : text.split("&")) {
                int eq = pair.indexOf('=');
                values.put(URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8),
                        eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
            }
        }
        return values;
    }

    private static void json(HttpExchange exchange, int status, Object value) throws IOException {
        send(exchange, status, "application/json", JSON.writeValueAsString(value));
    }

    private static void send(HttpExchange exchange, int status, String type, String text) throws IOException {
        byte[] body = text.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", type);
        exchange.sendResponseHeaders(status, body.length);
        exchange.getResponseBody().write(body);
    }

    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
        http.close();
    }
}
