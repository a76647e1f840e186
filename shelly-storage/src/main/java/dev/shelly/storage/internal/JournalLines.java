package dev.shelly.storage.internal;

import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32;

/**
 * How session stores keep one journal entry: {@code <version>\t<crc>\t<entry>}, the version of
 * the record saved when the entry was appended, then the CRC-32 of the entry's UTF-8 bytes as
 * eight hex digits, then the entry. A line that does not have this form or whose checksum does
 * not match (the tail of a write a crash cut short) is not an entry.
 */
public final class JournalLines {
    private JournalLines() {}

    /**
     * One parsed line.
     *
     * @param version the version of the record the entry follows
     * @param entry the entry
     */
    public record Line(long version, String entry) {}

    /**
     * Checks an entry before it is appended.
     *
     * @param id the session, for the message
     * @param entry the entry
     * @return the entry
     * @throws IllegalArgumentException when it is null, blank or holds a line break
     */
    public static String check(String id, String entry) {
        if (entry == null || entry.isBlank()) {
            throw new IllegalArgumentException("a journal entry of session '" + id + "' must not be null or blank");
        }
        if (entry.indexOf('\n') >= 0 || entry.indexOf('\r') >= 0) {
            throw new IllegalArgumentException("a journal entry of session '" + id + "' must be one line");
        }
        return entry;
    }

    /**
     * The checksum and the entry, as they follow the version on a line.
     *
     * @param entry the entry
     * @return {@code <crc>\t<entry>}
     */
    public static String sealed(String entry) {
        return crc(entry) + "\t" + entry;
    }

    /**
     * A whole line, without its line break.
     *
     * @param version the version of the record saved now (-1 when none is)
     * @param entry the entry
     * @return the line
     */
    public static String format(long version, String entry) {
        return version + "\t" + sealed(entry);
    }

    /**
     * Reads a line.
     *
     * @param line the line, without its line break
     * @return the line's version and entry, or null when it is not a whole entry
     */
    public static Line parse(String line) {
        int first = line.indexOf('\t');
        if (first <= 0) {
            return null;
        }
        int second = line.indexOf('\t', first + 1);
        if (second != first + 9) {
            return null;
        }
        long version;
        try {
            version = Long.parseLong(line.substring(0, first));
        } catch (NumberFormatException e) {
            return null;
        }
        String entry = line.substring(second + 1);
        if (entry.isEmpty() || !crc(entry).equals(line.substring(first + 1, second))) {
            return null;
        }
        return new Line(version, entry);
    }

    private static String crc(String entry) {
        CRC32 crc = new CRC32();
        crc.update(entry.getBytes(StandardCharsets.UTF_8));
        String hex = Long.toHexString(crc.getValue());
        return "0".repeat(8 - hex.length()) + hex;
    }
}
