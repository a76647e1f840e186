package dev.shelly.storage.internal;

import java.security.SecureRandom;
import java.time.Clock;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.regex.Pattern;

/**
 * What a session id may be, and new ones.
 *
 * <p>An id is 1 to 128 letters, digits, {@code '.'}, {@code '_'} and {@code '-'}, starting with
 * a letter or digit and holding no {@code ".."}: it is safe as a file name, a Redis key part and
 * a URL path segment. New ids are a UTC time (so they sort by creation) and 26 base32 characters
 * from a {@link SecureRandom}, 128 random bits: an id cannot be guessed from others.
 */
public final class SessionIds {
    /** The longest id accepted. */
    public static final int MAX_LENGTH = 128;

    private static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0," + (MAX_LENGTH - 1) + "}");
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC);
    private static final char[] BASE32 = "abcdefghijklmnopqrstuvwxyz234567".toCharArray();
    private static final SecureRandom RANDOM = new SecureRandom();

    private SessionIds() {}

    /**
     * A new id: {@code yyyyMMdd-HHmmss-} and 26 random base32 characters (lower case, 128 bits).
     *
     * @param clock the clock for the time prefix
     * @return the id
     */
    public static String newId(Clock clock) {
        byte[] bytes = new byte[16];
        RANDOM.nextBytes(bytes);
        StringBuilder sb = new StringBuilder(TIME.format(clock.instant())).append('-');
        int buffer = 0;
        int bits = 0;
        for (byte b : bytes) {
            buffer = (buffer << 8) | (b & 0xff);
            bits += 8;
            while (bits >= 5) {
                sb.append(BASE32[(buffer >>> (bits - 5)) & 31]);
                bits -= 5;
            }
        }
        if (bits > 0) {
            sb.append(BASE32[(buffer << (5 - bits)) & 31]);
        }
        return sb.toString();
    }

    /**
     * Whether a text is a valid id.
     *
     * @param id the text
     * @return true when it is
     */
    public static boolean isValid(String id) {
        return id != null && ID.matcher(id).matches() && !id.contains("..");
    }

    /**
     * Checks an id.
     *
     * @param id the id
     * @param parameter what the id was given as, for the message (e.g. {@code Engine.resume id})
     * @return the id
     * @throws IllegalArgumentException naming the parameter and the id when it is not valid
     */
    public static String check(String id, String parameter) {
        if (!isValid(id)) {
            String shown = id == null ? "null" : "'" + (id.length() > MAX_LENGTH + 10 ? id.substring(0, MAX_LENGTH) + "…" : id) + "'";
            throw new IllegalArgumentException(parameter + " " + shown + " is not a valid session id: use 1 to "
                    + MAX_LENGTH + " letters, digits, '.', '_' and '-', starting with a letter or digit, without '..'");
        }
        return id;
    }
}
