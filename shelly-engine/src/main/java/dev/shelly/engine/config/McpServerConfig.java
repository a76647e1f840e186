package dev.shelly.engine.config;

import dev.shelly.modeladapter.spi.InvalidSettingException;
import java.net.URI;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * An MCP server the engine connects to: a subprocess speaking stdio, or a streamable HTTP URL.
 * Its tools become a toolbox named after the server.
 *
 * @param name the toolbox name agents use
 * @param command the program to start (stdio), or null for an HTTP server
 * @param args the program's arguments
 * @param env extra environment variables for the program
 * @param workingDir the program's working directory, or null for the engine's project folder
 * @param url the streamable HTTP endpoint, or null for a stdio server
 * @param headers HTTP headers for an HTTP server
 * @param resources whether agents get the server's resources as tools ({@code list_resources},
 *     {@code read_resource}); off by default
 * @param prompts whether agents get the server's prompts as a tool ({@code get_prompt}); off by default
 * @param sampling who answers the server's sampling requests: {@value #AGENT_MODEL} for the model
 *     of the agent whose tool call the server is serving, or a provider's name for that
 *     provider's model; null (or {@code false}) to refuse them (the default: a server cannot
 *     spend the application's model budget unasked). A request made during a tool call is a model
 *     call of the calling run: it passes the run's interceptors and observers, and its tokens
 *     count in the run's usage, cost and budget
 * @param elicitation whether the server may ask the person questions (elicitation): each becomes
 *     a question of the calling run's approvals ({@code Approvals#ask}); off by default
 * @param oauth how the engine gets a token for a url server that needs one ({@code oauth:}), or
 *     null for none
 */
public record McpServerConfig(String name, String command, List<String> args, Map<String, String> env,
        Path workingDir, String url, Map<String, String> headers, boolean resources, boolean prompts, String sampling,
        boolean elicitation, OAuth oauth) {

    /** The {@code sampling:} value that has the calling agent's own model answer. */
    public static final String AGENT_MODEL = "true";

    /**
     * Validates that exactly one of command and url is given, that the settings of the other
     * transport are not, and copies.
     */
    public McpServerConfig {
        Fields.required(name, "name");
        Fields.notBlank(command, "command");
        url = Fields.httpUrl(url, "url");
        if ((command == null) == (url == null)) {
            throw new IllegalArgumentException("MCP server '" + name + "' needs either 'command' (a subprocess "
                    + "speaking stdio) or 'url' (streamable HTTP), not " + (command != null ? "both" : "neither"));
        }
        if (url != null) {
            if (args != null && !args.isEmpty()) {
                throw new InvalidSettingException("args", "'args' applies to a command, not to a url server");
            }
            if (env != null && !env.isEmpty()) {
                throw new InvalidSettingException("env", "'env' applies to a command, not to a url server");
            }
            if (workingDir != null) {
                throw new InvalidSettingException("working_dir", "'working_dir' applies to a command, not to a url server");
            }
            if (oauth != null && headers != null && headers.keySet().stream().anyMatch(h -> h.equalsIgnoreCase("Authorization"))) {
                throw new InvalidSettingException("oauth", "MCP server '" + name + "' has both an Authorization header and"
                        + " oauth; the token comes from one of them");
            }
        } else if (headers != null && !headers.isEmpty()) {
            throw new InvalidSettingException("headers", "'headers' applies to a url server, not to a command");
        } else if (oauth != null) {
            throw new InvalidSettingException("oauth", "'oauth' applies to a url server, not to a command");
        }
        Fields.notBlank(sampling, "sampling");
        sampling = sampling == null || sampling.strip().equals("false") ? null : sampling.strip();
        args = args == null ? List.of() : List.copyOf(args);
        env = env == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(env));
        headers = headers == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(headers));
    }

    /**
     * A server started as a subprocess speaking MCP over stdio.
     *
     * @param name the toolbox name
     * @param command the program
     * @param args its arguments
     * @return the configuration
     */
    public static McpServerConfig stdio(String name, String command, String... args) {
        return new McpServerConfig(name, command, List.of(args), Map.of(), null, null, Map.of(), false, false, null, false, null);
    }

    /**
     * A server reached over streamable HTTP.
     *
     * @param name the toolbox name
     * @param url the endpoint
     * @return the configuration
     */
    public static McpServerConfig http(String name, String url) {
        return new McpServerConfig(name, null, List.of(), Map.of(), null, url, Map.of(), false, false, null, false, null);
    }

    /**
     * Whether this server is a subprocess.
     *
     * @return true for stdio
     */
    public boolean isStdio() {
        return command != null && !command.isBlank();
    }

    /**
     * This server with OAuth.
     *
     * @param value how the engine gets its token
     * @return a copy with {@code oauth} set
     */
    public McpServerConfig withOAuth(OAuth value) {
        return new McpServerConfig(name, command, args, env, workingDir, url, headers, resources, prompts, sampling,
                elicitation, value);
    }

    @Override
    public String toString() {
        return isStdio()
                ? "McpServerConfig[name=" + name + ", command=" + command + ", args=" + args + ", env=" + env.keySet()
                        + ", workingDir=" + workingDir + "]"
                : "McpServerConfig[name=" + name + ", url=" + url + ", headers=" + headers.keySet()
                        + (oauth == null ? "" : ", oauth=" + oauth) + "]";
    }

    /**
     * OAuth 2.1 for a url server, as the MCP authorization specification describes: the engine
     * discovers the server's authorization server, registers with it (unless {@code clientId} is
     * given), and gets a token with PKCE after the person consents (the authorization-code
     * grant), or without a person (the client-credentials grant). Tokens are kept in the
     * engine's token store and refreshed before they expire.
     *
     * <p>The consent step: the engine hands the authorization page to the application's
     * callback ({@code Engine.Builder#mcpConsent}); with {@link Consent#LOOPBACK} the engine
     * itself takes the browser's redirect at {@code redirectUri} (an {@code http} loopback address
     * with a port), with {@link Consent#APPLICATION} the callback returns it.
     *
     * @param clientId the client ID registered with the authorization server beforehand, or null
     *     to register dynamically
     * @param clientSecret its secret, or null for a public client
     * @param clientName the name the client registers under; {@code shelly} when null
     * @param grant how the token is got
     * @param scopes the scopes to ask for when the server names none
     * @param resource the resource indicator tokens are asked for (RFC 8707), or null for the
     *     server's URL
     * @param redirectUri where the authorization server sends the browser back to
     * @param consent how that redirect reaches the engine
     */
    public record OAuth(String clientId, String clientSecret, String clientName, Grant grant, List<String> scopes,
            URI resource, URI redirectUri, Consent consent) {
        /** Where the browser comes back to unless {@code redirect_uri} says otherwise. */
        public static final URI DEFAULT_REDIRECT = URI.create("http://127.0.0.1:33418/callback");

        /** Checks the settings together and fills in the defaults. */
        public OAuth {
            Fields.notBlank(clientId, "client_id");
            Fields.notBlank(clientSecret, "client_secret");
            clientName = clientName == null ? "shelly" : Fields.notBlank(clientName, "client_name");
            grant = grant == null ? Grant.AUTHORIZATION_CODE : grant;
            scopes = scopes == null ? List.of() : Fields.names(scopes, "scopes");
            if (clientSecret != null && clientId == null) {
                throw new InvalidSettingException("client_secret", "a client_secret needs the client_id it belongs to");
            }
            if (resource != null && !isHttp(resource)) {
                throw new InvalidSettingException("resource", "expected an http or https URL, got '" + resource + "'");
            }
            if (grant == Grant.CLIENT_CREDENTIALS) {
                if (clientId == null || clientSecret == null) {
                    throw new InvalidSettingException(clientId == null ? "client_id" : "client_secret",
                            "the client_credentials grant needs client_id and client_secret");
                }
                if (redirectUri != null || consent != null) {
                    throw new InvalidSettingException(redirectUri != null ? "redirect_uri" : "consent",
                            "the client_credentials grant has no person to consent and no redirect");
                }
            } else {
                redirectUri = redirectUri == null ? DEFAULT_REDIRECT : redirectUri;
                consent = consent == null ? Consent.LOOPBACK : consent;
                if (!isHttp(redirectUri)) {
                    throw new InvalidSettingException("redirect_uri", "expected an http or https URL, got '" + redirectUri + "'");
                }
                if (consent == Consent.LOOPBACK && !isLoopback(redirectUri)) {
                    throw new InvalidSettingException("redirect_uri", "with consent: loopback the engine takes the redirect"
                            + " itself, so it must be an http URL on 127.0.0.1, [::1] or localhost with a port, got '"
                            + redirectUri + "'");
                }
            }
        }

        /**
         * The authorization-code grant with a client that registers itself, consent through a
         * loopback redirect at {@link #DEFAULT_REDIRECT}.
         *
         * @return the settings
         */
        public static OAuth dynamic() {
            return new OAuth(null, null, null, null, null, null, null, null);
        }

        /**
         * The client-credentials grant: the client acts for itself, without a person.
         *
         * @param clientId the client ID
         * @param clientSecret its secret
         * @return the settings
         */
        public static OAuth clientCredentials(String clientId, String clientSecret) {
            return new OAuth(clientId, clientSecret, null, Grant.CLIENT_CREDENTIALS, null, null, null, null);
        }

        private static boolean isHttp(URI uri) {
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
            return (scheme.equals("http") || scheme.equals("https")) && uri.getHost() != null;
        }

        private static boolean isLoopback(URI uri) {
            String host = uri.getHost() == null ? "" : uri.getHost().toLowerCase(Locale.ROOT);
            return "http".equalsIgnoreCase(uri.getScheme()) && uri.getPort() > 0
                    && (host.equals("127.0.0.1") || host.equals("[::1]") || host.equals("localhost"));
        }

        @Override
        public String toString() {
            return "OAuth[clientId=" + clientId + ", clientSecret=" + (clientSecret == null ? "none" : "***")
                    + ", clientName=" + clientName + ", grant=" + grant + ", scopes=" + scopes + ", resource=" + resource
                    + ", redirectUri=" + redirectUri + ", consent=" + consent + "]";
        }

        /** How the token is got. */
        public enum Grant {
            /** The person consents in a browser; the code is exchanged with PKCE ({@code authorization_code}). */
            AUTHORIZATION_CODE,
            /** The client acts for itself with its ID and secret ({@code client_credentials}). */
            CLIENT_CREDENTIALS
        }

        /** How the browser's redirect after the person's consent reaches the engine. */
        public enum Consent {
            /**
             * The engine listens on the redirect URI's loopback address while the person consents;
             * the application's callback only shows the page ({@code loopback}).
             */
            LOOPBACK,
            /** The application's callback returns the redirect, which its own endpoint received ({@code application}). */
            APPLICATION
        }
    }
}
