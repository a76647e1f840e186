package dev.shelly.cli;

import dev.shelly.mcp.McpOAuth;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * The person's consent when an MCP server with {@code oauth:} needs their authorization and no
 * token is kept for it. {@code shelly chat} shows the authorization page on the terminal: with a
 * loopback redirect ({@code consent: loopback}, the default) the engine then waits for the
 * browser to come back on its own; with any other redirect ({@code consent: application}) the
 * person pastes the address the browser ended on. Commands without a person to ask
 * ({@code shelly run}, the listings) refuse, saying to authorize once in {@code shelly chat},
 * which keeps the token for later runs; the engine's message names the server.
 */
final class McpConsent {
    /** What {@code shelly run} and the listings say instead of asking. */
    static final String REFUSED = "it needs your authorization in a browser, and this command does not ask for it (it"
            + " runs without a person to answer); authorize it once with shelly chat, which keeps the token in"
            + " .shelly/mcp-tokens.json for later runs";

    private McpConsent() {}

    /** Refuses, for commands that run without a person. */
    static McpOAuth.Consent refusing() {
        return page -> {
            throw new IllegalStateException(REFUSED);
        };
    }

    /** Shows the page on the terminal, and asks for the redirect when the engine cannot take it itself. */
    static McpOAuth.Consent asking(Terminal terminal) {
        return page -> {
            String resource = parameter(page, "resource");
            terminal.out().println();
            terminal.out().println(terminal.bold("MCP server " + (resource == null ? "" : resource + " ")
                    + "needs your authorization.") + " Open this page in your browser and allow access:");
            terminal.out().println("  " + page);
            if (loopback(parameter(page, "redirect_uri"))) {
                terminal.out().println(terminal.dim("waiting for the browser to come back (up to 5 minutes)..."));
                return null;
            }
            try {
                String line = terminal.ask("then paste the address your browser ended on: ");
                if (line == null || line.isBlank()) {
                    throw new IllegalStateException("no authorization was given on the terminal");
                }
                return URI.create(line.strip());
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the authorization from the terminal", e);
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException("that is not an address: " + e.getMessage(), e);
            }
        };
    }

    /** Whether the engine takes the redirect itself: an http address on this machine with a port. */
    private static boolean loopback(String redirect) {
        if (redirect == null) {
            return false;
        }
        try {
            URI uri = URI.create(redirect);
            String host = uri.getHost() == null ? "" : uri.getHost().toLowerCase(Locale.ROOT);
            return "http".equalsIgnoreCase(uri.getScheme()) && uri.getPort() > 0
                    && (host.equals("127.0.0.1") || host.equals("[::1]") || host.equals("localhost"));
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** A query parameter of the page, decoded, or null. */
    private static String parameter(URI page, String name) {
        String query = page.getRawQuery();
        if (query == null) {
            return null;
        }
        for (String pair : query.split("&")) {
            int eq = pair.indexOf('=');
            if (eq > 0 && URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8).equals(name)) {
                return URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            }
        }
        return null;
    }
}
