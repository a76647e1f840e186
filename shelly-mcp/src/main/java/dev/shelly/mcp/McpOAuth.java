package dev.shelly.mcp;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * OAuth 2.1 for an MCP server that needs it, as the MCP authorization specification describes:
 * the server's protected-resource metadata (from its {@code WWW-Authenticate} challenge or the
 * well-known paths) names the authorization server, whose metadata is discovered
 * ({@code oauth-authorization-server} or {@code openid-configuration}, falling back to the
 * 2025-03-26 default endpoints); the client registers dynamically, uses a client ID metadata
 * document or pre-registered credentials; the user consents through {@link Consent} to an
 * authorization-code grant with PKCE (S256); tokens name the server as their resource
 * (RFC 8707), are kept in a {@link TokenStore} and refreshed when they expire. A client without
 * a user uses the client-credentials grant instead (client secret or a private-key JWT).
 *
 * <pre>{@code
 * McpOAuth oauth = McpOAuth.builder()
 *         .clientName("my-agent")
 *         .redirectUri(URI.create("http://127.0.0.1:8765/callback"))
 *         .consent(url -> browser.openAndAwaitRedirect(url))
 *         .build();
 * McpToolClient.builder(McpEndpoint.http("https://mcp.example.com/mcp")).oauth(oauth).connect();
 * }</pre>
 *
 * <p>Thread-safe; one instance may serve several servers (tokens are kept per resource).
 */
public final class McpOAuth {
    private final Builder settings;
    private final Map<String, OAuthFlow.Client> registrations = new ConcurrentHashMap<>();

    private McpOAuth(Builder settings) {
        this.settings = settings;
    }

    /**
     * Starts configuring OAuth.
     *
     * @return the builder
     */
    public static Builder builder() {
        return new Builder();
    }

    Builder settings() {
        return settings;
    }

    /** Registrations made with authorization servers, by the server's issuer, so a client registers once. */
    Map<String, OAuthFlow.Client> registrations() {
        return registrations;
    }

    /**
     * Lets the user consent: show them the authorization server's page and return where it sent
     * the browser back to.
     */
    @FunctionalInterface
    public interface Consent {
        /**
         * Asks the user to consent, e.g. by opening the URL in a browser and waiting for the
         * redirect to reach a local callback.
         *
         * @param authorizationUrl the page to show
         * @return the redirect URI with its {@code code} and {@code state} (or {@code error}) query
         * @throws InterruptedException when the waiting thread is interrupted
         */
        URI authorize(URI authorizationUrl) throws InterruptedException;

        /**
         * A consent step that takes the browser's redirect itself, on the loopback address of the
         * redirect URI ({@code http://127.0.0.1:<port>/...}, {@code [::1]} or {@code localhost}):
         * while it listens there, {@code show} presents the authorization page (opens a browser,
         * prints the link); the browser's redirect is answered with a page saying the person may
         * return to the application, and returned. {@code show} may also return the redirect itself
         * (one it got another way); when it returns null, the redirect is awaited.
         *
         * @param show presents the page; returns null, or the redirect when it has it
         * @param timeout how long to wait for the browser
         * @return the consent step
         */
        static Consent loopback(Consent show, Duration timeout) {
            Require.notNull(show, "McpOAuth.Consent.loopback show");
            Require.positive(timeout, "McpOAuth.Consent.loopback timeout");
            return page -> LoopbackRedirect.await(page, show, timeout);
        }
    }

    /**
     * Where tokens are kept between runs, by the MCP server's URL (its resource identifier).
     * {@link #inMemory()} is the default.
     */
    public interface TokenStore {
        /**
         * The tokens kept for a resource.
         *
         * @param resource the MCP server's URL
         * @return its tokens, or empty
         */
        Optional<Tokens> load(String resource);

        /**
         * Keeps tokens for a resource, replacing any.
         *
         * @param resource the MCP server's URL
         * @param tokens the tokens
         */
        void save(String resource, Tokens tokens);

        /**
         * The client registered dynamically with an authorization server, so that a later run
         * refreshes its tokens (a refresh token is bound to the client it was issued to) and does
         * not register again. A store that keeps none returns empty; then the client registers
         * again when it needs the person's consent anyway.
         *
         * @param issuer the authorization server's issuer
         * @return the registration, or empty
         */
        default Optional<Registration> registration(String issuer) {
            return Optional.empty();
        }

        /**
         * Keeps a client registered dynamically with an authorization server; by default, not at all.
         *
         * @param issuer the authorization server's issuer
         * @param registration the client's identity there
         */
        default void saveRegistration(String issuer, Registration registration) {
        }

        /**
         * A store that keeps tokens and registrations for the life of this JVM.
         *
         * @return a new, empty store
         */
        static TokenStore inMemory() {
            Map<String, Tokens> tokens = new ConcurrentHashMap<>();
            Map<String, Registration> registrations = new ConcurrentHashMap<>();
            return new TokenStore() {
                @Override
                public Optional<Tokens> load(String resource) {
                    return Optional.ofNullable(tokens.get(resource));
                }

                @Override
                public void save(String resource, Tokens value) {
                    tokens.put(resource, value);
                }

                @Override
                public Optional<Registration> registration(String issuer) {
                    return Optional.ofNullable(registrations.get(issuer));
                }

                @Override
                public void saveRegistration(String issuer, Registration registration) {
                    registrations.put(issuer, registration);
                }
            };
        }
    }

    /**
     * A client's identity with an authorization server, made by dynamic registration.
     *
     * @param clientId the client ID
     * @param clientSecret the secret, or null for a public client
     * @param authMethod how it authenticates at the token endpoint: {@code client_secret_basic},
     *     {@code client_secret_post} or {@code none}
     * @param redirectUri the redirect URI it was registered with
     */
    public record Registration(String clientId, String clientSecret, String authMethod, URI redirectUri) {
        /** Checks the fields. */
        public Registration {
            Require.notBlank(clientId, "McpOAuth.Registration.clientId");
            Require.notBlank(authMethod, "McpOAuth.Registration.authMethod");
            Require.notNull(redirectUri, "McpOAuth.Registration.redirectUri");
        }

        @Override
        public String toString() {
            return "Registration[clientId=" + clientId + ", clientSecret=" + (clientSecret == null ? "none" : "***")
                    + ", authMethod=" + authMethod + ", redirectUri=" + redirectUri + "]";
        }
    }

    /**
     * Tokens for one resource.
     *
     * @param accessToken the bearer token
     * @param refreshToken the refresh token, or null
     * @param expiresAt when the access token expires, or null when the server did not say
     * @param scope the granted scope, or null
     */
    public record Tokens(String accessToken, String refreshToken, Instant expiresAt, String scope) {
        /** Checks the access token. */
        public Tokens {
            if (accessToken == null || accessToken.isBlank()) {
                throw new IllegalArgumentException("McpOAuth.Tokens.accessToken must not be null or blank");
            }
        }

        /**
         * Whether the access token has expired, or will within the margin.
         *
         * @param now the time now
         * @param margin how early to count it expired
         * @return true when it should be refreshed
         */
        public boolean expired(Instant now, Duration margin) {
            if (now == null || margin == null) {
                throw new IllegalArgumentException("McpOAuth.Tokens.expired needs now and a margin, was " + now + ", " + margin);
            }
            return expiresAt != null && !now.plus(margin).isBefore(expiresAt);
        }

        @Override
        public String toString() {
            return "Tokens[accessToken=***, refreshToken=" + (refreshToken == null ? "none" : "***") + ", expiresAt="
                    + expiresAt + ", scope=" + scope + "]";
        }
    }

    /** Settings of OAuth; {@link #build()} makes it. */
    public static final class Builder {
        String clientName = "shelly";
        URI redirectUri = URI.create("http://127.0.0.1:33418/callback");
        Consent consent;
        TokenStore tokenStore = TokenStore.inMemory();
        URI clientMetadataUrl;
        String clientId;
        String clientSecret;
        boolean clientCredentials;
        String privateKeyPem;
        final List<String> scopes = new ArrayList<>();
        Duration timeout = Duration.ofSeconds(30);
        URI resource;

        private Builder() {}

        /**
         * The name the client registers under; {@code shelly} by default.
         *
         * @param name the name
         * @return this builder
         */
        public Builder clientName(String name) {
            this.clientName = Require.notBlank(name, "McpOAuth clientName");
            return this;
        }

        /**
         * Where the authorization server sends the browser back to, registered with it.
         *
         * @param uri the redirect URI, usually a loopback callback
         * @return this builder
         */
        public Builder redirectUri(URI uri) {
            this.redirectUri = Require.notNull(uri, "McpOAuth redirectUri");
            return this;
        }

        /**
         * How the user consents; needed for the authorization-code grant.
         *
         * @param consent shows the authorization page and returns the redirect
         * @return this builder
         */
        public Builder consent(Consent consent) {
            this.consent = Require.notNull(consent, "McpOAuth consent");
            return this;
        }

        /**
         * Where tokens are kept; in memory by default.
         *
         * @param store the store
         * @return this builder
         */
        public Builder tokenStore(TokenStore store) {
            this.tokenStore = Require.notNull(store, "McpOAuth tokenStore");
            return this;
        }

        /**
         * The HTTPS URL of this client's metadata document, used as its client ID with
         * authorization servers that support client ID metadata documents (instead of
         * registering).
         *
         * @param url the document's URL
         * @return this builder
         */
        public Builder clientMetadataUrl(URI url) {
            this.clientMetadataUrl = Require.notNull(url, "McpOAuth clientMetadataUrl");
            return this;
        }

        /**
         * Credentials registered with the authorization server beforehand (no dynamic
         * registration).
         *
         * @param clientId the client ID
         * @param clientSecret the secret, or null for a public client
         * @return this builder
         */
        public Builder preRegistered(String clientId, String clientSecret) {
            this.clientId = Require.notBlank(clientId, "McpOAuth preRegistered clientId");
            this.clientSecret = clientSecret;
            return this;
        }

        /**
         * Uses the client-credentials grant with a client secret (sent as HTTP Basic): a client
         * acting for itself, without a user.
         *
         * @param clientId the client ID
         * @param clientSecret the secret
         * @return this builder
         */
        public Builder clientCredentials(String clientId, String clientSecret) {
            preRegistered(clientId, clientSecret);
            if (clientSecret == null || clientSecret.isBlank()) {
                throw new IllegalArgumentException("McpOAuth clientCredentials clientSecret must not be null or blank");
            }
            this.clientCredentials = true;
            return this;
        }

        /**
         * Uses the client-credentials grant, authenticating with a JWT signed by an EC P-256 key
         * ({@code private_key_jwt}, ES256).
         *
         * @param clientId the client ID
         * @param privateKeyPem the PKCS#8 private key, PEM
         * @return this builder
         */
        public Builder clientCredentialsJwt(String clientId, String privateKeyPem) {
            preRegistered(clientId, null);
            if (privateKeyPem == null || !privateKeyPem.contains("PRIVATE KEY")) {
                throw new IllegalArgumentException("McpOAuth clientCredentialsJwt privateKeyPem must be a PKCS#8 PEM private key");
            }
            this.privateKeyPem = privateKeyPem;
            this.clientCredentials = true;
            return this;
        }

        /**
         * Scopes to ask for when neither the server's challenge nor its metadata names any.
         *
         * @param scopes the scopes
         * @return this builder
         */
        public Builder scopes(List<String> scopes) {
            if (scopes == null || scopes.stream().anyMatch(Objects::isNull)) {   // List.of(...).contains(null) throws
                throw new IllegalArgumentException("McpOAuth scopes must not be null or hold null");
            }
            this.scopes.clear();
            this.scopes.addAll(scopes);
            return this;
        }

        /**
         * The resource indicator (RFC 8707) to ask tokens for, when it is not the MCP server's URL:
         * a server behind a proxy, or one whose protected-resource metadata names its origin.
         * Tokens are kept under it; set it only on an instance that serves one server.
         *
         * @param resource the resource's URL
         * @return this builder
         */
        public Builder resource(URI resource) {
            this.resource = Require.notNull(resource, "McpOAuth resource");
            return this;
        }

        /**
         * How long each request to the servers may take; 30 s by default.
         *
         * @param timeout the limit
         * @return this builder
         */
        public Builder timeout(Duration timeout) {
            if (timeout == null || timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("McpOAuth timeout must be positive, was " + timeout);
            }
            this.timeout = timeout;
            return this;
        }

        /**
         * The OAuth settings.
         *
         * @return them
         * @throws IllegalStateException when neither a consent step nor client credentials are set
         */
        public McpOAuth build() {
            if (consent == null && !clientCredentials) {
                throw new IllegalStateException("McpOAuth needs a consent step (consent) for the authorization-code grant,"
                        + " or client credentials (clientCredentials, clientCredentialsJwt)");
            }
            return new McpOAuth(copy());
        }

        /** A copy, so that changing this builder later does not change the built settings. */
        private Builder copy() {
            Builder copy = new Builder();
            copy.clientName = clientName;
            copy.redirectUri = redirectUri;
            copy.consent = consent;
            copy.tokenStore = tokenStore;
            copy.clientMetadataUrl = clientMetadataUrl;
            copy.clientId = clientId;
            copy.clientSecret = clientSecret;
            copy.clientCredentials = clientCredentials;
            copy.privateKeyPem = privateKeyPem;
            copy.scopes.addAll(scopes);
            copy.timeout = timeout;
            copy.resource = resource;
            return copy;
        }
    }
}
