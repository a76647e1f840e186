package dev.shelly.chats.internal;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Masks the parts of a URL that may carry credentials, for every place Shelly prints a URL (a
 * {@code toString}, an error message, a log line): provider base URLs and MCP server URLs alike.
 * Internal: not part of Shelly's API.
 *
 * <p>Masked: the user-info ({@code https://user:pass@host} becomes {@code https://***@host}),
 * every query value ({@code ?token=abc&x=1} becomes {@code ?token=***&x=***}; a value-less
 * parameter keeps its name), the fragment, and each path segment that looks like a token: at
 * least {@value #TOKEN_LENGTH} characters of letters, digits and {@code -._~+=}, with at least one
 * letter and one digit (so {@code /mcp/v1} stays, {@code /hooks/sk_live_4eC39HqLyjWDarjtT1zdp7dc}
 * does not). Scheme, host, port and ordinary path segments stay, so the URL still says which
 * server is meant. Text that is not a URL is masked from its first {@code ?} or {@code #} on.
 * Nothing here throws.
 */
public final class Redaction {
    /** What replaces a masked part. */
    public static final String MASK = "***";
    /** The shortest path segment treated as a token. */
    public static final int TOKEN_LENGTH = 20;
    private static final Pattern TOKEN = Pattern.compile("(?=.*[A-Za-z])(?=.*[0-9])[A-Za-z0-9._~+=-]{" + TOKEN_LENGTH + ",}");

    private Redaction() {}

    /**
     * A URL with its credentials masked.
     *
     * @param url the URL as given, in any form
     * @return the masked URL; null stays null
     */
    public static String maskUrl(String url) {
        if (url == null) {
            return null;
        }
        try {
            URI parsed = new URI(url);
            if (!parsed.isOpaque() && parsed.getRawAuthority() != null) {
                return maskUrl(parsed);
            }
        } catch (URISyntaxException e) {
            // not a URL: mask it as text below
        }
        return maskText(url);
    }

    /** The text form: user-info up to the host, then everything from the first ? or #. */
    private static String maskText(String url) {
        int schemeEnd = url.indexOf("://");
        int authorityStart = schemeEnd < 0 ? 0 : schemeEnd + 3;
        int query = indexOfAny(url, authorityStart, '?', '#');
        int authorityEnd = indexOfAny(url, authorityStart, '/', '?', '#');
        if (authorityEnd < 0) {
            authorityEnd = url.length();
        }
        int at = url.lastIndexOf('@', authorityEnd - 1);
        boolean userInfo = schemeEnd >= 0 && at >= authorityStart;
        if (!userInfo && query < 0) {
            return url;
        }
        StringBuilder sb = new StringBuilder(url.length());
        if (userInfo) {
            sb.append(url, 0, authorityStart).append(MASK).append(url, at, query < 0 ? url.length() : query);
        } else {
            sb.append(url, 0, query);
        }
        if (query >= 0) {
            sb.append(url.charAt(query)).append(MASK);
        }
        return sb.toString();
    }

    private static int indexOfAny(String s, int from, char... chars) {
        for (int i = from; i < s.length(); i++) {
            char c = s.charAt(i);
            for (char x : chars) {
                if (c == x) {
                    return i;
                }
            }
        }
        return -1;
    }
    /**
     * The URL with its credentials masked.
     *
     * @param url the URL
     * @return text safe to print
     */
    public static String maskUrl(URI url) {
        if (url == null) {
            return "null";
        }
        if (url.isOpaque() || url.getRawAuthority() == null) {
            return url.getScheme() == null ? MASK : url.getScheme() + ":" + MASK;
        }
        StringBuilder out = new StringBuilder();
        if (url.getScheme() != null) {
            out.append(url.getScheme()).append("://");
        }
        String authority = url.getRawAuthority();
        if (url.getRawUserInfo() != null || (url.getHost() == null && authority.lastIndexOf('@') >= 0)) {
            out.append(MASK).append('@');
        }
        if (url.getHost() != null) {
            out.append(url.getHost());
            if (url.getPort() >= 0) {
                out.append(':').append(url.getPort());
            }
        } else {
            int at = authority.lastIndexOf('@');
            out.append(at >= 0 ? authority.substring(at + 1) : authority);
        }
        String path = url.getRawPath();
        if (path != null) {
            String[] segments = path.split("/", -1);
            for (int i = 0; i < segments.length; i++) {
                if (i > 0) {
                    out.append('/');
                }
                out.append(TOKEN.matcher(segments[i]).matches() ? MASK : segments[i]);
            }
        }
        String query = url.getRawQuery();
        if (query != null) {
            out.append('?');
            String[] params = query.split("&", -1);
            for (int i = 0; i < params.length; i++) {
                if (i > 0) {
                    out.append('&');
                }
                int eq = params[i].indexOf('=');
                out.append(eq < 0 ? params[i] : params[i].substring(0, eq + 1) + MASK);
            }
        }
        if (url.getRawFragment() != null) {
            out.append('#').append(MASK);
        }
        return out.toString();
    }

    /**
     * Text with every secret part of the URL replaced by {@link #MASK}: the whole URL (raw and
     * decoded) by its masked form, then any remaining user-info, query value or token segment on
     * its own (parts shorter than 3 characters are left, so that {@code ?v=1} does not mask every
     * {@code 1}). For messages that come from libraries which may quote the URL.
     *
     * @param text the text, or null
     * @param url the URL whose secrets to remove
     * @return the text without them
     */
    public static String scrub(String text, URI url) {
        if (text == null || url == null) {
            return text;
        }
        String masked = maskUrl(url);
        String result = text.replace(url.toString(), masked);
        // A library may quote the URL in another form (without its query, decoded), or a part on its own.
        for (String secret : secrets(url)) {
            result = result.replace(secret, MASK);
        }
        return result;
    }

    /** The secret parts of a URL, raw and decoded, longest first so none is left half-replaced. */
    private static List<String> secrets(URI url) {
        Set<String> parts = new LinkedHashSet<>();
        addBoth(parts, url.getRawUserInfo(), url.getUserInfo());
        if (url.getRawQuery() != null) {
            for (String param : url.getRawQuery().split("&")) {
                int eq = param.indexOf('=');
                if (eq >= 0 && eq + 1 < param.length()) {
                    String raw = param.substring(eq + 1);
                    addBoth(parts, raw, decode(raw));
                }
            }
        }
        addBoth(parts, url.getRawFragment(), url.getFragment());
        if (url.getRawPath() != null) {
            for (String segment : url.getRawPath().split("/")) {
                if (TOKEN.matcher(segment).matches()) {
                    parts.add(segment);
                }
            }
        }
        List<String> sorted = new ArrayList<>(parts);
        sorted.removeIf(s -> s.length() < 3);
        sorted.sort(Comparator.comparingInt(String::length).reversed());
        return sorted;
    }

    private static void addBoth(Set<String> parts, String raw, String decoded) {
        if (raw != null && !raw.isEmpty()) {
            parts.add(raw);
        }
        if (decoded != null && !decoded.isEmpty()) {
            parts.add(decoded);
        }
    }

    private static String decode(String raw) {
        try {
            return java.net.URLDecoder.decode(raw, java.nio.charset.StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return raw;
        }
    }
}
