package dev.shelly.storage.internal;

import dev.shelly.chats.ShellyException;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * The journal of one session in a sessions folder: {@code <id>.journal}, one
 * {@linkplain JournalLines line} per entry, each written and synced to disk before
 * {@link #append} returns. Used by the holder of the session's lease only, one call at a time.
 *
 * <p>Writes go through {@link RandomAccessFile}, whose writes and syncs an interrupt does not
 * abort (an interrupted write on a {@code FileChannel} closes the channel and may leave half a
 * line): a turn being cancelled still records the step it is taking. A line a crash cut short is
 * not an entry; the first append after it cuts the file back to its last whole line, so the
 * next entry starts on a line of its own.
 */
public final class JournalFile implements AutoCloseable {
    private final Path path;
    private final String id;
    /** The file, open for appending; null until the first append, and after a delete or close. */
    private RandomAccessFile file;

    /**
     * The journal of a session.
     *
     * @param path the journal's file
     * @param id the session, for messages
     */
    public JournalFile(Path path, String id) {
        this.path = path;
        this.id = id;
    }

    /**
     * Appends an entry and syncs it to disk.
     *
     * @param version the version of the record saved now, -1 when none is
     * @param entry the entry, one line
     * @throws ShellyException naming the session when it cannot be written
     */
    public void append(long version, String entry) {
        byte[] line = (JournalLines.format(version, entry) + "\n").getBytes(StandardCharsets.UTF_8);
        try {
            if (file == null) {
                open();
            }
            file.write(line);
            file.getFD().sync();
        } catch (IOException e) {
            closeQuietly();
            throw new ShellyException("cannot append to the journal of session '" + id + "' in " + path + ": "
                    + e.getMessage(), e);
        }
    }

    /** Opens the file for appending, after its last whole line; a new file's folder entry is synced too. */
    private void open() throws IOException {
        boolean created = !Files.exists(path);
        RandomAccessFile opened = new RandomAccessFile(path.toFile(), "rw");
        try {
            long whole = wholeLength(readAll(opened));
            if (whole < opened.length()) {
                opened.setLength(whole);
            }
            opened.seek(whole);
            if (created) {
                syncFolder();
            }
        } catch (IOException | RuntimeException e) {
            opened.close();
            throw e;
        }
        file = opened;
    }

    private static byte[] readAll(RandomAccessFile f) throws IOException {
        long length = f.length();
        if (length > Integer.MAX_VALUE - 8) {
            throw new IOException("the journal is larger than 2 GB");
        }
        byte[] bytes = new byte[(int) length];
        f.seek(0);
        f.readFully(bytes);
        return bytes;
    }

    /** The length of the file's prefix of whole, valid lines. */
    private static long wholeLength(byte[] bytes) {
        int start = 0;
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] == '\n') {
                if (JournalLines.parse(new String(bytes, start, i - start, StandardCharsets.UTF_8)) == null) {
                    return start;
                }
                start = i + 1;
            }
        }
        return start;
    }

    private void syncFolder() {
        // The new file's name must survive a crash of the machine as its lines do; where a folder
        // cannot be opened for syncing (some platforms), the lines' own syncs are all there is.
        try (FileChannel folder = FileChannel.open(path.toAbsolutePath().getParent(), StandardOpenOption.READ)) {
            folder.force(true);
        } catch (IOException | UnsupportedOperationException ignored) {
            // see above
        }
    }

    /**
     * The entries that follow a version, oldest first, up to the first line that is not whole.
     *
     * @param version the version of the record saved now, -1 when none is
     * @return the entries
     * @throws ShellyException naming the session when the file cannot be read
     */
    public List<String> read(long version) {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(path);
        } catch (NoSuchFileException e) {
            return List.of();
        } catch (IOException e) {
            throw new ShellyException("cannot read the journal of session '" + id + "' in " + path + ": "
                    + e.getMessage(), e);
        }
        List<String> entries = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] == '\n') {
                JournalLines.Line line = JournalLines.parse(new String(bytes, start, i - start, StandardCharsets.UTF_8));
                if (line == null) {
                    break;
                }
                if (line.version() == version) {
                    entries.add(line.entry());
                }
                start = i + 1;
            }
        }
        return entries;
    }

    /**
     * Removes the file: the record saved holds what it recorded.
     *
     * @throws ShellyException naming the session when it cannot be removed
     */
    public void delete() {
        closeQuietly();
        try {
            Files.deleteIfExists(path);
        } catch (IOException e) {
            throw new ShellyException("cannot remove the journal of session '" + id + "' in " + path + ": "
                    + e.getMessage(), e);
        }
    }

    /** Closes the file; the next append opens it again. */
    @Override
    public void close() {
        closeQuietly();
    }

    private void closeQuietly() {
        RandomAccessFile f = file;
        file = null;
        if (f != null) {
            try {
                f.close();
            } catch (IOException ignored) {
                // nothing was pending: every append synced
            }
        }
    }
}
