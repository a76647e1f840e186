package dev.shelly.mcp;

import io.modelcontextprotocol.spec.McpSchema;
import java.net.URI;
import java.util.Locale;
import java.util.Set;

/**
 * Refuses (403) requests from browsers of other origins than the allowed ones and, when the
 * server listens on a loopback address, (421) requests naming another host, which stops DNS
 * rebinding; on loopback, localhost origins are always allowed.
 */
final class OriginGuard {
    private static final Set<String> LOOPBACK_HOSTS = Set.of("localhost", "127.0.0.1", "[::1]", "::1");

    private final boolean loopback;
    private final Set<String> allowedOrigins;

    OriginGuard(boolean loopback, Set<String> allowedOrigins) {
        this.loopback = loopback;
        this.allowedOrigins = allowedOrigins;
    }

    /** Whether the request is refused; it is then answered. */
    boolean refused(Exchange ex) {
        String origin = ex.header("Origin");
        if (origin != null && !originAllowed(origin)) {
            ex.error(403, McpSchema.ErrorCodes.INVALID_REQUEST, "origin " + origin + " is not allowed");
            return true;
        }
        if (loopback) {
            String host = hostName(ex.header("Host"));
            if (host == null || !LOOPBACK_HOSTS.contains(host)) {
                ex.error(421, McpSchema.ErrorCodes.INVALID_REQUEST, "host " + ex.header("Host") + " is not served here");
                return true;
            }
        }
        return false;
    }

    private boolean originAllowed(String origin) {
        String lower = origin.toLowerCase(Locale.ROOT);
        if (allowedOrigins.contains(lower)) {
            return true;
        }
        if (!loopback) {
            return false;
        }
        try {
            URI uri = URI.create(lower);
            return uri.getHost() != null && LOOPBACK_HOSTS.contains(uri.getHost());
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static String hostName(String hostHeader) {
        if (hostHeader == null || hostHeader.isBlank()) {
            return null;
        }
        String host = hostHeader.strip().toLowerCase(Locale.ROOT);
        if (host.startsWith("[")) {
            int end = host.indexOf(']');
            return end < 0 ? host : host.substring(0, end + 1);
        }
        int colon = host.indexOf(':');
        return colon < 0 ? host : host.substring(0, colon);
    }
}
