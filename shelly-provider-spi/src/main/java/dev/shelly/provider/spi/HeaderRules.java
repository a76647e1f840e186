package dev.shelly.provider.spi;

/** What an HTTP header may hold, checked when a header is set so that a bad one never reaches the wire. */
final class HeaderRules {
    private HeaderRules() {}

    /**
     * Checks that a header can be sent: a name made of HTTP token characters, a value without
     * control characters (tab aside), DEL or non-ASCII characters.
     *
     * @param provider the provider's name, for the message
     * @param name the header's name
     * @param value its value
     * @throws IllegalArgumentException naming the header, never quoting its value
     */
    static void check(String provider, String name, String value) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException(provider + ": a header name must not be null or blank");
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (!isTokenChar(c)) {
                throw new IllegalArgumentException(provider + ": header name '" + printable(name)
                        + "' is not a valid HTTP header name: it may hold letters, digits and !#$%&'*+-.^_`|~ only");
            }
        }
        if (value == null) {
            throw new IllegalArgumentException(provider + ": header " + name + " must have a value, was null");
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if ((c < 0x20 && c != '\t') || c == 0x7f) {
                throw new IllegalArgumentException(provider + ": the value of header " + name
                        + " has a control character at index " + i + " (a stray newline?); the value is not shown");
            }
            if (c > 0x7e) {
                throw new IllegalArgumentException(provider + ": the value of header " + name
                        + " has a non-ASCII character at index " + i + ", which HTTP headers cannot carry;"
                        + " the value is not shown");
            }
        }
    }

    private static boolean isTokenChar(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
    }

    private static String printable(String s) {
        StringBuilder sb = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c == 0x7f) {
                sb.append(String.format("\\u%04x", (int) c));
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }
}
