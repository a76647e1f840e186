package dev.shelly.engine.session;

import dev.shelly.chats.ShellyException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Saves sessions as JSON files, one per session, and reads them back.
 *
 * <p>A save writes a temporary file in the same folder, forces it to disk and renames it over
 * the old file in one atomic step, so a crash leaves either the previous file or the new one,
 * never half of one.
 */
public final class SessionStore {
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,127}");
    private static final String SUFFIX = ".json";

    private final Path dir;
    private final JsonMapper json;
    private final ChatJson codec;

    /**
     * A store in a folder, created on the first save.
     *
     * @param dir the sessions folder
     * @param json the JSON mapper
     */
    public SessionStore(Path dir, JsonMapper json) {
        this.dir = dir;
        this.json = json;
        this.codec = new ChatJson(json);
    }

    /**
     * The folder sessions are saved in.
     *
     * @return the folder
     */
    public Path dir() {
        return dir;
    }

    /**
     * Saves a session atomically.
     *
     * @param session the session
     * @throws ShellyException naming the file when it cannot be written
     */
    public void save(SessionRecord session) {
        Path target = file(session.id());
        ObjectNode root = json.createObjectNode();
        root.put("id", session.id());
        root.put("entry_agent", session.entryAgent());
        root.put("created", session.created().toString());
        root.put("updated", session.updated().toString());
        root.set("messages", codec.encode(session.messages()));
        byte[] bytes = json.writerWithDefaultPrettyPrinter().writeValueAsString(root).getBytes(StandardCharsets.UTF_8);
        Path tmp = null;
        try {
            Files.createDirectories(dir);
            tmp = Files.createTempFile(dir, "." + session.id() + "-", ".tmp");
            try (FileChannel channel = FileChannel.open(tmp, StandardOpenOption.WRITE);
                    OutputStream out = java.nio.channels.Channels.newOutputStream(channel)) {
                out.write(bytes);
                out.flush();
                channel.force(true);
            }
            try {
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
            }
            tmp = null;
        } catch (IOException e) {
            throw new ShellyException("cannot save session '" + session.id() + "' to " + target + ": " + e.getMessage(), e);
        } finally {
            if (tmp != null) {
                try {
                    Files.deleteIfExists(tmp);
                } catch (IOException ignored) {
                    // the temporary file is left behind; it is never read as a session
                }
            }
        }
    }

    /**
     * Reads a saved session.
     *
     * @param id the session's id
     * @return the session
     * @throws ShellyException when there is no such session (the known ids are listed) or its file
     *     is not a valid session, naming the file
     */
    public SessionRecord load(String id) {
        checkId(id);
        Path file = file(id);
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            List<String> known = ids();
            throw new ShellyException("no saved session '" + id + "' in " + dir + "; "
                    + (known.isEmpty() ? "there are none" : "saved sessions: " + String.join(", ", known)));
        } catch (IOException e) {
            throw new ShellyException("cannot read session file " + file + ": " + e.getMessage(), e);
        }
        try {
            JsonNode root = json.readTree(text);
            return new SessionRecord(root.path("id").asString(id), root.path("entry_agent").asString(),
                    Instant.parse(root.path("created").asString()), Instant.parse(root.path("updated").asString()),
                    codec.decode(root.get("messages"), file.toString()));
        } catch (JacksonException | IllegalArgumentException | java.time.format.DateTimeParseException e) {
            throw new ShellyException("session file " + file + " is not a valid session: " + e.getMessage(), e);
        }
    }

    /**
     * The ids of the saved sessions, sorted.
     *
     * @return the ids
     */
    public List<String> ids() {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(dir)) {
            List<String> ids = new ArrayList<>();
            files.map(p -> p.getFileName().toString())
                    .filter(n -> n.endsWith(SUFFIX) && !n.startsWith("."))
                    .map(n -> n.substring(0, n.length() - SUFFIX.length()))
                    .filter(n -> ID.matcher(n).matches())
                    .forEach(ids::add);
            ids.sort(null);
            return ids;
        } catch (IOException e) {
            throw new ShellyException("cannot list sessions in " + dir + ": " + e.getMessage(), e);
        }
    }

    private Path file(String id) {
        return dir.resolve(id + SUFFIX);
    }

    static String checkId(String id) {
        if (id == null || !ID.matcher(id).matches()) {
            throw new IllegalArgumentException("invalid session id '" + id
                    + "': use letters, digits, '.', '_' and '-' (up to 128), starting with a letter or digit");
        }
        return id;
    }
}
