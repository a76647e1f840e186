package dev.shelly.mcp;

import java.io.IOException;
import java.net.URI;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.KeyFactory;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * One MCP server's OAuth: finds out whether it needs a token, discovers where to get one, gets
 * it and keeps it fresh. Every step's failure is an {@link McpException} naming the server and
 * the URL that failed.
 */
final class OAuthFlow {
    private static final Logger log = LoggerFactory.getLogger(OAuthFlow.class);
    private static final Pattern PARAMETER = Pattern.compile("([A-Za-z_]+)=\"([^\"]*)\"");
    private static final Duration EARLY = Duration.ofSeconds(30);
    private static final SecureRandom RANDOM = new SecureRandom();

    /**
     * A client identity with an authorization server.
     *
     * @param id the client ID
     * @param secret the secret, or null
     * @param authMethod {@code client_secret_basic}, {@code client_secret_post} or {@code none}
     */
    record Client(String id, String secret, String authMethod) {}

    /** Where an authorization server takes requests, from its metadata or the 2025-03-26 defaults. */
    private record AuthServer(String issuer, String authorize, String token, String register, JsonNode metadata) {
        List<String> list(String field) {
            List<String> values = new ArrayList<>();
            metadata.path(field).forEach(v -> values.add(v.asString()));
            return values;
        }
    }

    private final McpOAuth oauth;
    private final McpOAuth.Builder settings;
    private final String label;
    private final URI server;
    private final String resource;
    private final HttpClient http;
    private final JsonMapper json = JsonMapper.builder().build();
    private final java.util.concurrent.locks.ReentrantLock lock = new java.util.concurrent.locks.ReentrantLock();
    private AuthServer authServer;
    private Client client;

    OAuthFlow(McpOAuth oauth, String label, URI server) {
        this.oauth = oauth;
        this.settings = oauth.settings();
        this.label = label;
        this.server = server;
        this.resource = canonical(settings.resource != null ? settings.resource : server);
        this.http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).connectTimeout(settings.timeout).build();
    }

    /** The server's URL without fragment, as the resource indicator (RFC 8707). */
    static String canonical(URI uri) {
        String text = uri.getScheme().toLowerCase(java.util.Locale.ROOT) + "://" + uri.getRawAuthority().toLowerCase(java.util.Locale.ROOT)
                + (uri.getRawPath() == null ? "" : uri.getRawPath());
        return text.endsWith("/") && text.indexOf('/', text.indexOf("://") + 3) == text.length() - 1
                ? text.substring(0, text.length() - 1) : text;
    }

    /**
     * The {@code Authorization} header value for a request now: a kept token, refreshed when it
     * expired; empty when there is none yet.
     */
    Optional<String> header() {
        Optional<McpOAuth.Tokens> tokens = settings.tokenStore.load(resource);
        if (tokens.isPresent() && tokens.get().expired(Instant.now(), EARLY) && tokens.get().refreshToken() != null) {
            lock.lock();
            try {
                // another request may have refreshed them while this one waited (the refresh token then changed)
                tokens = settings.tokenStore.load(resource);
                if (authServer != null && client != null && tokens.isPresent() && tokens.get().expired(Instant.now(), EARLY)
                        && tokens.get().refreshToken() != null) {
                    tokens = Optional.of(refresh(tokens.get()));
                }
            } catch (RuntimeException e) {
                log.warn("MCP server '{}': refreshing the access token failed: {}", label, e.getMessage());
            } finally {
                lock.unlock();
            }
        }
        return tokens.map(t -> "Bearer " + t.accessToken());
    }

    /**
     * Makes sure there is a token the server accepts: asks the server, and when it answers 401,
     * runs discovery and a grant.
     */
    void authorize() throws InterruptedException {
        lock.lock();
        try {
            HttpResponse<String> probe = probe();
            if (probe.statusCode() != 401) {
                return;
            }
            Map<String, String> challenge = challenge(probe);
            discover(challenge.get("resource_metadata"), challenge.get("scope"), true);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Recovers from a 401 or 403 the server gave a request of the session: a 401 (the token was
     * revoked or expired) authorizes again; a 403 {@code insufficient_scope} authorizes again
     * with the scope the challenge names added to the granted one (step-up). The SDK transport
     * retries the request once when this returns true.
     *
     * @param status the response's status
     * @param headers its {@code WWW-Authenticate} values
     * @return whether there is a new token to retry with
     */
    boolean recover(int status, List<String> headers) throws InterruptedException {
        Map<String, String> challenge = challenge(headers);
        lock.lock();
        try {
            if (status == 401) {
                log.debug("MCP server '{}' refused the token (401); authorizing again", label);
                discover(challenge.get("resource_metadata"), challenge.get("scope"), true);
                return true;
            }
            if (status == 403 && "insufficient_scope".equals(challenge.get("error")) && challenge.get("scope") != null) {
                Set<String> scopes = new LinkedHashSet<>();
                settings.tokenStore.load(resource).map(McpOAuth.Tokens::scope).filter(g -> g != null && !g.isBlank())
                        .ifPresent(g -> scopes.addAll(List.of(g.split(" "))));
                scopes.addAll(List.of(challenge.get("scope").split(" ")));
                log.debug("MCP server '{}' needs scope {} (403); authorizing again with {}", label, challenge.get("scope"), scopes);
                discover(challenge.get("resource_metadata"), String.join(" ", scopes), false);
                return true;
            }
            return false;
        } finally {
            lock.unlock();
        }
    }

    /** An unauthenticated (or kept-token) ping, to see whether the server wants a token. */
    private HttpResponse<String> probe() throws InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(server).timeout(settings.timeout)
                .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
                .POST(HttpRequest.BodyPublishers.ofString("{\"jsonrpc\":\"2.0\",\"id\":\"shelly-oauth-probe\",\"method\":\"ping\"}"));
        settings.tokenStore.load(resource).ifPresent(t -> request.header("Authorization", "Bearer " + t.accessToken()));
        return send(request.build(), "ask MCP server '" + label + "' whether it needs authorization");
    }

    private static Map<String, String> challenge(HttpResponse<?> response) {
        return challenge(response.headers().allValues("WWW-Authenticate"));
    }

    private static Map<String, String> challenge(List<String> headers) {
        Map<String, String> parameters = new LinkedHashMap<>();
        for (String header : headers) {
            Matcher m = PARAMETER.matcher(header);
            while (m.find()) {
                parameters.put(m.group(1), m.group(2));
            }
        }
        return parameters;
    }

    /**
     * Finds the authorization server and gets a token: by refreshing the kept one when that may
     * do (the client that got it is known: pre-registered, or its registration kept), else by a
     * grant.
     */
    private void discover(String resourceMetadata, String challengeScope, boolean mayRefresh) throws InterruptedException {
        JsonNode prm = protectedResource(resourceMetadata);
        String issuer;
        List<String> supportedScopes = new ArrayList<>();
        if (prm == null) {
            // 2025-03-26: no protected-resource metadata; the MCP server's origin is the authorization server
            issuer = origin(server);
        } else {
            String named = prm.path("resource").asString("");
            if (!named.isEmpty() && !resource.equals(canonical(URI.create(named))) && !resource.startsWith(canonical(URI.create(named)) + "/")) {
                throw new McpException("MCP server '" + label + "' names the resource " + named
                        + " in its protected-resource metadata, which is not " + resource + "; its tokens would not be for this server");
            }
            JsonNode servers = prm.path("authorization_servers");
            if (!servers.isArray() || servers.isEmpty()) {
                throw new McpException("the protected-resource metadata of MCP server '" + label + "' names no authorization server");
            }
            issuer = servers.get(0).asString();
            prm.path("scopes_supported").forEach(s -> supportedScopes.add(s.asString()));
        }
        authServer = authorizationServer(issuer);
        String scope = challengeScope != null ? challengeScope
                : !supportedScopes.isEmpty() ? String.join(" ", supportedScopes)
                : settings.scopes.isEmpty() ? null : String.join(" ", settings.scopes);
        if (scope != null && authServer.list("scopes_supported").contains("offline_access") && !settings.clientCredentials
                && !scope.contains("offline_access")) {
            scope += " offline_access";
        }
        if (mayRefresh && !settings.clientCredentials && refreshKept()) {
            return;
        }
        McpOAuth.Tokens tokens = settings.clientCredentials ? clientCredentials(scope) : authorizationCode(scope);
        settings.tokenStore.save(resource, tokens);
        log.debug("MCP server '{}': authorized by {} with scope {}", label, authServer.issuer(), tokens.scope());
    }

    /** Refreshes the kept tokens with the client they were issued to, when both are known; false otherwise. */
    private boolean refreshKept() {
        Optional<McpOAuth.Tokens> kept = settings.tokenStore.load(resource);
        Client known = kept.isPresent() && kept.get().refreshToken() != null ? knownClient() : null;
        if (known == null) {
            return false;
        }
        client = known;
        try {
            refresh(kept.get());
            log.debug("MCP server '{}': refreshed the kept token with {}", label, authServer.issuer());
            return true;
        } catch (McpException e) {
            log.debug("MCP server '{}': refreshing the kept token failed, authorizing again: {}", label, e.getMessage());
            return false;
        }
    }

    /** The client known without registering: pre-registered, or registered before with this redirect URI. */
    private Client knownClient() {
        if (settings.clientId != null) {
            return new Client(settings.clientId, settings.clientSecret,
                    authMethod(settings.clientSecret, authServer.list("token_endpoint_auth_methods_supported")));
        }
        Client known = oauth.registrations().get(authServer.issuer());
        if (known != null) {
            return known;
        }
        return settings.tokenStore.registration(authServer.issuer())
                .filter(r -> r.redirectUri().equals(settings.redirectUri))
                .map(r -> new Client(r.clientId(), r.clientSecret(), r.authMethod()))
                .orElse(null);
    }

    private JsonNode protectedResource(String fromChallenge) throws InterruptedException {
        List<String> candidates = new ArrayList<>();
        if (fromChallenge != null) {
            candidates.add(fromChallenge);
        } else {
            String path = server.getRawPath() == null ? "" : server.getRawPath();
            if (!path.isEmpty() && !path.equals("/")) {
                candidates.add(origin(server) + "/.well-known/oauth-protected-resource" + path);
            }
            candidates.add(origin(server) + "/.well-known/oauth-protected-resource");
        }
        for (String candidate : candidates) {
            JsonNode document = getJson(candidate);
            if (document != null) {
                return document;
            }
        }
        return null;
    }

    private AuthServer authorizationServer(String issuer) throws InterruptedException {
        URI uri = URI.create(issuer);
        String origin = origin(uri);
        String path = uri.getRawPath() == null || uri.getRawPath().equals("/") ? "" : uri.getRawPath().replaceAll("/$", "");
        List<String> candidates = path.isEmpty()
                ? List.of(origin + "/.well-known/oauth-authorization-server", origin + "/.well-known/openid-configuration")
                : List.of(origin + "/.well-known/oauth-authorization-server" + path, origin + "/.well-known/openid-configuration" + path,
                        origin + path + "/.well-known/openid-configuration");
        for (String candidate : candidates) {
            JsonNode metadata = getJson(candidate);
            if (metadata != null && metadata.hasNonNull("token_endpoint")) {
                return new AuthServer(metadata.path("issuer").asString(issuer), metadata.path("authorization_endpoint").asString(null),
                        metadata.path("token_endpoint").asString(), metadata.path("registration_endpoint").asString(null), metadata);
            }
        }
        // 2025-03-26 fallback: the default endpoints at the authorization server's origin
        return new AuthServer(issuer, origin + "/authorize", origin + "/token", origin + "/register", json.createObjectNode());
    }

    private McpOAuth.Tokens authorizationCode(String scope) throws InterruptedException {
        if (settings.consent == null) {
            throw new McpException("MCP server '" + label + "' needs the user's authorization, and McpOAuth has no consent step");
        }
        if (authServer.metadata().has("code_challenge_methods_supported")
                && !authServer.list("code_challenge_methods_supported").contains("S256")) {
            throw new McpException("the authorization server " + authServer.issuer() + " of MCP server '" + label
                    + "' does not support PKCE with S256, which MCP requires");
        }
        client = client(scope);
        String verifier = random(48);
        String state = random(24);
        Map<String, String> query = new LinkedHashMap<>();
        query.put("response_type", "code");
        query.put("client_id", client.id());
        query.put("redirect_uri", settings.redirectUri.toString());
        query.put("code_challenge", base64Url(sha256(verifier)));
        query.put("code_challenge_method", "S256");
        query.put("state", state);
        query.put("resource", resource);
        if (scope != null) {
            query.put("scope", scope);
        }
        URI page = URI.create(authServer.authorize() + (authServer.authorize().contains("?") ? "&" : "?") + form(query));
        URI back = settings.consent.authorize(page);
        if (back == null) {
            throw new McpException("the consent step for MCP server '" + label + "' returned no redirect");
        }
        Map<String, String> answer = parseQuery(back.getRawQuery());
        if (answer.containsKey("error")) {
            throw new McpException("the authorization server " + authServer.issuer() + " refused MCP server '" + label + "': "
                    + answer.get("error") + (answer.containsKey("error_description") ? " (" + answer.get("error_description") + ")" : ""));
        }
        if (!state.equals(answer.get("state"))) {
            throw new McpException("the authorization redirect for MCP server '" + label + "' carries the wrong state; it is refused");
        }
        if (answer.get("code") == null) {
            throw new McpException("the authorization redirect for MCP server '" + label + "' carries no code");
        }
        Map<String, String> body = new LinkedHashMap<>();
        body.put("grant_type", "authorization_code");
        body.put("code", answer.get("code"));
        body.put("redirect_uri", settings.redirectUri.toString());
        body.put("code_verifier", verifier);
        body.put("resource", resource);
        return token(body, null);
    }

    private McpOAuth.Tokens clientCredentials(String scope) throws InterruptedException {
        client = new Client(settings.clientId, settings.clientSecret,
                settings.privateKeyPem != null ? "private_key_jwt" : "client_secret_basic");
        Map<String, String> body = new LinkedHashMap<>();
        body.put("grant_type", "client_credentials");
        body.put("resource", resource);
        if (scope != null) {
            body.put("scope", scope);
        }
        return token(body, null);
    }

    private McpOAuth.Tokens refresh(McpOAuth.Tokens tokens) {
        Map<String, String> body = new LinkedHashMap<>();
        body.put("grant_type", "refresh_token");
        body.put("refresh_token", tokens.refreshToken());
        body.put("resource", resource);
        try {
            McpOAuth.Tokens fresh = token(body, tokens.refreshToken());
            settings.tokenStore.save(resource, fresh);
            return fresh;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new McpException("refreshing the token of MCP server '" + label + "' was interrupted");
        }
    }

    /** The client identity: pre-registered, a metadata document URL, or registered now. */
    private Client client(String scope) throws InterruptedException {
        List<String> methods = authServer.list("token_endpoint_auth_methods_supported");
        if (settings.clientId == null && settings.clientMetadataUrl != null
                && authServer.metadata().path("client_id_metadata_document_supported").asBoolean(false)) {
            return new Client(settings.clientMetadataUrl.toString(), null, "none");
        }
        Client known = knownClient();
        if (known != null) {
            return known;
        }
        if (authServer.register() == null) {
            throw new McpException("the authorization server " + authServer.issuer() + " of MCP server '" + label
                    + "' offers no dynamic registration; give McpOAuth pre-registered credentials");
        }
        Map<String, Object> request = new LinkedHashMap<>();
        request.put("client_name", settings.clientName);
        request.put("redirect_uris", List.of(settings.redirectUri.toString()));
        request.put("grant_types", List.of("authorization_code", "refresh_token"));
        request.put("response_types", List.of("code"));
        request.put("token_endpoint_auth_method", methods.isEmpty() || methods.contains("none") ? "none" : methods.get(0));
        if (scope != null) {
            request.put("scope", scope);
        }
        HttpResponse<String> response = send(HttpRequest.newBuilder(URI.create(authServer.register())).timeout(settings.timeout)
                .header("Content-Type", "application/json").header("Accept", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json.writeValueAsString(request))).build(),
                "register with " + authServer.register());
        if (response.statusCode() / 100 != 2) {
            throw new McpException("registering with " + authServer.register() + " for MCP server '" + label + "' failed: HTTP "
                    + response.statusCode() + " " + response.body());
        }
        JsonNode registered = json.readTree(response.body());
        String secret = registered.path("client_secret").asString(null);
        String method = registered.hasNonNull("token_endpoint_auth_method")
                ? registered.path("token_endpoint_auth_method").asString() : authMethod(secret, methods);
        Client made = new Client(registered.path("client_id").asString(), secret, method);
        oauth.registrations().put(authServer.issuer(), made);
        settings.tokenStore.saveRegistration(authServer.issuer(), new McpOAuth.Registration(made.id(), made.secret(),
                made.authMethod(), settings.redirectUri));
        return made;
    }

    /** How to authenticate at the token endpoint: what the server supports, Basic first (RFC 8414's default). */
    private static String authMethod(String secret, List<String> supported) {
        if (secret == null) {
            return "none";
        }
        if (supported.isEmpty() || supported.contains("client_secret_basic")) {
            return "client_secret_basic";
        }
        return supported.contains("client_secret_post") ? "client_secret_post" : "none";
    }

    private McpOAuth.Tokens token(Map<String, String> body, String previousRefresh) throws InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(authServer.token())).timeout(settings.timeout)
                .header("Content-Type", "application/x-www-form-urlencoded").header("Accept", "application/json");
        switch (client.authMethod()) {
            case "client_secret_basic" -> request.header("Authorization", "Basic " + Base64.getEncoder().encodeToString(
                    (urlEncode(client.id()) + ":" + urlEncode(client.secret())).getBytes(StandardCharsets.UTF_8)));
            case "client_secret_post" -> {
                body.put("client_id", client.id());
                body.put("client_secret", client.secret());
            }
            case "private_key_jwt" -> {
                body.put("client_id", client.id());
                body.put("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer");
                body.put("client_assertion", assertion());
            }
            default -> body.put("client_id", client.id());
        }
        HttpResponse<String> response = send(request.POST(HttpRequest.BodyPublishers.ofString(form(body))).build(),
                "get a token from " + authServer.token());
        if (response.statusCode() / 100 != 2) {
            throw new McpException("the token endpoint " + authServer.token() + " refused MCP server '" + label + "' ("
                    + body.get("grant_type") + "): HTTP " + response.statusCode() + " " + response.body());
        }
        JsonNode tokens = json.readTree(response.body());
        if (!tokens.hasNonNull("access_token")) {
            throw new McpException("the token endpoint " + authServer.token() + " gave MCP server '" + label + "' no access token");
        }
        Instant expires = tokens.hasNonNull("expires_in") ? Instant.now().plusSeconds(tokens.path("expires_in").asLong()) : null;
        return new McpOAuth.Tokens(tokens.path("access_token").asString(),
                tokens.path("refresh_token").asString(previousRefresh), expires, tokens.path("scope").asString(body.get("scope")));
    }

    /** A client assertion (RFC 7523): signed with ES256, for the authorization server as audience. */
    private String assertion() {
        try {
            String pem = settings.privateKeyPem.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
            PrivateKey key = KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(pem)));
            long now = Instant.now().getEpochSecond();
            Map<String, Object> claims = new LinkedHashMap<>();
            claims.put("iss", client.id());
            claims.put("sub", client.id());
            claims.put("aud", authServer.issuer());
            claims.put("iat", now);
            claims.put("exp", now + 300);
            claims.put("jti", UUID.randomUUID().toString());
            String signing = base64Url("{\"alg\":\"ES256\",\"typ\":\"JWT\"}".getBytes(StandardCharsets.UTF_8)) + "."
                    + base64Url(json.writeValueAsBytes(claims));
            Signature signature = Signature.getInstance("SHA256withECDSAinP1363Format");
            signature.initSign(key);
            signature.update(signing.getBytes(StandardCharsets.US_ASCII));
            return signing + "." + base64Url(signature.sign());
        } catch (java.security.GeneralSecurityException | IllegalArgumentException e) {
            throw new McpException("the private key for MCP server '" + label + "' cannot sign a client assertion: " + e.getMessage(), e);
        }
    }

    private JsonNode getJson(String url) throws InterruptedException {
        HttpResponse<String> response = send(HttpRequest.newBuilder(URI.create(url)).timeout(settings.timeout)
                .header("Accept", "application/json").header("MCP-Protocol-Version", "2025-06-18").GET().build(), "read " + url);
        if (response.statusCode() != 200) {
            log.debug("MCP server '{}': {} answered {}", label, url, response.statusCode());
            return null;
        }
        try {
            return json.readTree(response.body());
        } catch (RuntimeException e) {
            log.debug("MCP server '{}': {} is not JSON", label, url);
            return null;
        }
    }

    private HttpResponse<String> send(HttpRequest request, String what) throws InterruptedException {
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new McpException("MCP server '" + label + "': cannot " + what + ": " + e.getMessage(), e);
        }
    }

    private static String origin(URI uri) {
        return uri.getScheme() + "://" + uri.getRawAuthority();
    }

    private static String form(Map<String, String> values) {
        return values.entrySet().stream().map(e -> urlEncode(e.getKey()) + "=" + urlEncode(e.getValue()))
                .collect(Collectors.joining("&"));
    }

    private static Map<String, String> parseQuery(String query) {
        Map<String, String> values = new LinkedHashMap<>();
        if (query != null) {
            for (String pair : query.split("&")) {
                int eq = pair.indexOf('=');
                String key = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
                values.put(key, eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
            }
        }
        return values;
    }

    private static String urlEncode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }

    private static String random(int bytes) {
        byte[] data = new byte[bytes];
        RANDOM.nextBytes(data);
        return base64Url(data);
    }

    private static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.US_ASCII));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    private static String base64Url(byte[] data) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(data);
    }
}
