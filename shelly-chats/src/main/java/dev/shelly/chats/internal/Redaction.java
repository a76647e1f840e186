package dev.shelly.chats.internal;

/**
 * Masks the parts of a URL that may carry credentials, for every place Shelly prints a URL (a
 * {@code toString}, an error message, a log line). Internal: not part of Shelly's API.
 *
 * <p>{@link #maskUrl(String)} keeps the scheme, host, port and path, and replaces the user-info
 * ({@code user:password@}) with {@code ***@}, the query with {@code ?***} and the fragment with
 * {@code #***}: {@code https://bob:pw@host/v1?key=abc} becomes {@code https://***@host/v1?***}.
 * It works on text and never throws, so a malformed URL is masked too.
 */
public final class Redaction {
    /** What replaces a masked part. */
    public static final String MASK = "***";

    private Redaction() {}

    /**
     * A URL with its user-info, query and fragment masked.
     *
     * @param url the URL as given, in any form
     * @return the masked URL; null stays null
     */
    public static String maskUrl(String url) {
        if (url == null) {
            return null;
        }
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
}
