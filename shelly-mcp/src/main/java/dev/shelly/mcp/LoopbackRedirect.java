package dev.shelly.mcp;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The loopback side of {@link McpOAuth.Consent#loopback}: listens on the redirect URI that the
 * authorization URL names, while the page is shown, and returns the first redirect the browser
 * brings to its path.
 */
final class LoopbackRedirect {
    private LoopbackRedirect() {}

    static URI await(URI page, McpOAuth.Consent show, Duration timeout) throws InterruptedException {
        URI redirect = redirectOf(page);
        CompletableFuture<URI> arrived = new CompletableFuture<>();
        HttpServer server;
        try {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getByName(host(redirect)), redirect.getPort()), 0);
        } catch (IOException e) {
            throw new McpException("cannot listen on " + redirect + " for the authorization redirect: " + e.getMessage(), e);
        }
        ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
        server.setExecutor(threads);
        String path = redirect.getRawPath() == null || redirect.getRawPath().isEmpty() ? "/" : redirect.getRawPath();
        server.createContext("/", exchange -> answer(exchange, redirect, path, arrived));
        server.start();
        try {
            URI given = show.authorize(page);
            if (given != null) {
                return given;
            }
            return arrived.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new McpException("no authorization redirect reached " + redirect + " within " + timeout.toSeconds() + " s");
        } catch (ExecutionException e) {
            throw new McpException("waiting for the authorization redirect failed: " + e.getCause(), e.getCause());
        } finally {
            server.stop(0);
            threads.shutdownNow();
        }
    }

    private static void answer(HttpExchange exchange, URI redirect, String path, CompletableFuture<URI> arrived)
            throws IOException {
        try (exchange) {
            URI request = exchange.getRequestURI();
            if (!exchange.getRequestMethod().equals("GET") || !path.equals(request.getRawPath())) {
                exchange.sendResponseHeaders(404, -1);
                return;
            }
            String query = request.getRawQuery();
            arrived.complete(URI.create(redirect.getScheme() + "://" + redirect.getRawAuthority() + request.getRawPath()
                    + (query == null ? "" : "?" + query)));
            boolean refused = query != null && (query.startsWith("error=") || query.contains("&error="));
            String text = refused
                    ? "The authorization was refused (" + escape(parameter(query, "error")) + "). You may close this page."
                    : "The application is authorized. You may close this page and return to it.";
            byte[] body = ("<!doctype html><html><head><meta charset=\"utf-8\"><title>Authorization</title></head><body><p>"
                    + text + "</p></body></html>").getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
            exchange.getResponseHeaders().set("Cache-Control", "no-store");
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
        }
    }

    /** The {@code redirect_uri} parameter of the authorization URL, which must be an http loopback URL with a port. */
    static URI redirectOf(URI page) {
        String value = page.getRawQuery() == null ? null : parameter(page.getRawQuery(), "redirect_uri");
        if (value == null) {
            throw new McpException("the authorization URL names no redirect_uri to listen on");
        }
        URI redirect = URI.create(value);
        String host = host(redirect);
        boolean loopback = host.equals("127.0.0.1") || host.equals("::1") || host.equals("localhost");
        if (!"http".equalsIgnoreCase(redirect.getScheme()) || !loopback || redirect.getPort() < 1) {
            throw new McpException("a loopback consent needs an http redirect URI on 127.0.0.1, [::1] or localhost with a"
                    + " port, not " + redirect);
        }
        return redirect;
    }

    private static String host(URI uri) {
        String host = uri.getHost() == null ? "" : uri.getHost().toLowerCase(Locale.ROOT);
        return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    }

    private static String parameter(String query, String name) {
        for (String pair : query.split("&")) {
            int eq = pair.indexOf('=');
            if (eq > 0 && URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8).equals(name)) {
                return URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            }
        }
        return null;
    }

    private static String escape(String text) {
        return text == null ? "" : text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
