package dev.shelly.mcp;

import dev.shelly.chats.internal.Redaction;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where an MCP server is: a program started as a subprocess that speaks over its stdin and
 * stdout, or a URL that speaks streamable HTTP.
 */
public sealed interface McpEndpoint permits McpEndpoint.Stdio, McpEndpoint.Http {

    /**
     * A server started as a subprocess, speaking JSON-RPC over its stdin and stdout.
     *
     * <p>The child gets a small environment, as the MCP reference clients give it: the parent's
     * {@code HOME, LOGNAME, PATH, SHELL, TERM, USER} (on Windows the usual system variables), plus
     * {@code env}. So secrets in the JVM's environment do not leak to every server; pass what a
     * server needs in {@code env}, or set {@code inheritEnvironment} to give it everything.
     *
     * @param command the program, looked up on the PATH, e.g. {@code npx} or {@code node}
     * @param args its arguments
     * @param env variables to set for it
     * @param workingDirectory where it runs, or null for the JVM's working directory
     * @param inheritEnvironment whether it gets the JVM's whole environment (plus {@code env})
     */
    record Stdio(String command, List<String> args, Map<String, String> env, Path workingDirectory,
            boolean inheritEnvironment) implements McpEndpoint {

        /** Validates and copies the fields. */
        public Stdio {
            if (command == null || command.isBlank()) {
                throw new IllegalArgumentException("McpEndpoint.Stdio.command must not be null or blank");
            }
            if (args == null) {
                throw new IllegalArgumentException("McpEndpoint.Stdio.args must not be null");
            }
            List<String> argsCopy = new ArrayList<>(args.size());
            for (int i = 0; i < args.size(); i++) {
                if (args.get(i) == null) {
                    throw new IllegalArgumentException("McpEndpoint.Stdio.args[" + i + "] must not be null");
                }
                argsCopy.add(args.get(i));
            }
            args = Collections.unmodifiableList(argsCopy);
            if (env == null) {
                throw new IllegalArgumentException("McpEndpoint.Stdio.env must not be null");
            }
            Map<String, String> envCopy = new LinkedHashMap<>();
            env.forEach((k, v) -> {
                if (k == null || k.isEmpty() || v == null) {
                    throw new IllegalArgumentException("McpEndpoint.Stdio.env must not hold an empty name or a null value ("
                            + k + ")");
                }
                envCopy.put(k, v);
            });
            env = Collections.unmodifiableMap(envCopy);
        }

        /**
         * A copy with these variables added to the child's environment.
         *
         * @param variables the variables
         * @return the new endpoint
         */
        public Stdio withEnv(Map<String, String> variables) {
            if (variables == null) {
                throw new IllegalArgumentException("McpEndpoint.Stdio.withEnv variables must not be null");
            }
            Map<String, String> all = new LinkedHashMap<>(env);
            all.putAll(variables);
            return new Stdio(command, args, all, workingDirectory, inheritEnvironment);
        }

        /**
         * A copy that runs in this directory.
         *
         * @param directory the working directory
         * @return the new endpoint
         */
        public Stdio withWorkingDirectory(Path directory) {
            return new Stdio(command, args, env, directory, inheritEnvironment);
        }

        /**
         * A copy that gives the child the JVM's whole environment (or not).
         *
         * @param inherit whether to inherit everything
         * @return the new endpoint
         */
        public Stdio withInheritedEnvironment(boolean inherit) {
            return new Stdio(command, args, env, workingDirectory, inherit);
        }

        @Override
        public String toString() {
            return "stdio:" + String.join(" ", commandLine());
        }

        /**
         * The command followed by its arguments.
         *
         * @return the command line
         */
        public List<String> commandLine() {
            List<String> line = new ArrayList<>();
            line.add(command);
            line.addAll(args);
            return line;
        }
    }

    /**
     * A server reached over streamable HTTP.
     *
     * @param url the MCP endpoint, e.g. {@code http://127.0.0.1:3001/mcp}
     * @param headers headers sent with every request, e.g. {@code Authorization}
     */
    record Http(URI url, Map<String, String> headers) implements McpEndpoint {

        /** Validates and copies the fields. */
        public Http {
            if (url == null) {
                throw new IllegalArgumentException("McpEndpoint.Http.url must not be null");
            }
            if (!"http".equalsIgnoreCase(url.getScheme()) && !"https".equalsIgnoreCase(url.getScheme())) {
                throw new IllegalArgumentException("McpEndpoint.Http.url must be an http or https URL, got " + Redaction.maskUrl(url));
            }
            if (url.getHost() == null) {
                throw new IllegalArgumentException("McpEndpoint.Http.url has no host: " + Redaction.maskUrl(url));
            }
            if (headers == null) {
                throw new IllegalArgumentException("McpEndpoint.Http.headers must not be null");
            }
            Map<String, String> copy = new LinkedHashMap<>();
            headers.forEach((k, v) -> {
                if (k == null || k.isBlank() || v == null) {
                    throw new IllegalArgumentException("McpEndpoint.Http.headers must not hold a blank name or a null value");
                }
                copy.put(k, v);
            });
            headers = Collections.unmodifiableMap(copy);
        }

        /**
         * A copy that sends this header with every request.
         *
         * @param name the header's name
         * @param value its value
         * @return the new endpoint
         */
        public Http withHeader(String name, String value) {
            Map<String, String> all = new LinkedHashMap<>(headers);
            all.put(name, value);
            return new Http(url, all);
        }

        /**
         * Shows the URL with its user-info, query values and token-like path segments masked
         * ({@code ***}), and header names but never their values: all may hold credentials.
         */
        @Override
        public String toString() {
            return "http:" + Redaction.maskUrl(url) + (headers.isEmpty() ? "" : " (headers: " + String.join(", ", headers.keySet()) + ")");
        }
    }

    /**
     * A server started as a subprocess.
     *
     * @param command the program, e.g. {@code npx}
     * @param args its arguments, e.g. {@code -y @modelcontextprotocol/server-everything}
     * @return the endpoint, with no extra environment, in the JVM's working directory
     */
    static Stdio stdio(String command, String... args) {
        return new Stdio(command, args == null ? null : Arrays.asList(args), Map.of(), null, false);
    }

    /**
     * A server reached over streamable HTTP.
     *
     * @param url the MCP endpoint, e.g. {@code http://127.0.0.1:3001/mcp}
     * @return the endpoint, without extra headers
     * @throws IllegalArgumentException when the URL is null or not a valid http(s) URL; the
     *     message never quotes the URL's query or user-info
     */
    static Http http(String url) {
        if (url == null || url.isBlank()) {
            throw new IllegalArgumentException("McpEndpoint.http url must not be null or blank");
        }
        URI uri;
        try {
            uri = new URI(url);
        } catch (java.net.URISyntaxException e) {
            throw new IllegalArgumentException("McpEndpoint.http url is not a valid URL: " + e.getReason()
                    + " at index " + e.getIndex());
        }
        return new Http(uri, Map.of());
    }
}
