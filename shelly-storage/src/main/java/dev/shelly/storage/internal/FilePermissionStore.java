package dev.shelly.storage.internal;

import dev.shelly.agent.PermissionStore;
import dev.shelly.agent.ToolPolicy;
import dev.shelly.chats.ShellyException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The project's "always" decisions in one JSON file (the engine's is
 * {@code .shelly/permissions.json}): per agent, per exact tool name, {@code allow} or
 * {@code deny}.
 *
 * <pre>{@code
 * {"agents":{"writer":{"fs_write":"allow","shell":"deny"}}}
 * }</pre>
 *
 * <p>A decision is written by reading the file, changing it and writing it to a temporary file
 * in the same folder that is forced to disk and renamed over the file in one atomic step, all
 * under a lock: a lock within the JVM and an operating-system lock on {@code <file>.lock} across
 * processes. So concurrent writers, in this process or others, never lose each other's decisions,
 * and a reader sees the old file or the new one, never part of one. The file may be edited by
 * hand; a file that cannot be read is reported naming it, never overwritten.
 */
public final class FilePermissionStore implements PermissionStore {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final ConcurrentHashMap<Path, ReentrantLock> LOCKS = new ConcurrentHashMap<>();

    private final Path file;
    private final Path lockFile;

    /**
     * A store in a file (created with its folder on the first decision).
     *
     * @param file the file
     */
    public FilePermissionStore(Path file) {
        if (file == null) {
            throw new IllegalArgumentException("FilePermissionStore file must not be null");
        }
        this.file = file.toAbsolutePath().normalize();
        this.lockFile = this.file.resolveSibling(this.file.getFileName() + ".lock");
    }

    /**
     * The file.
     *
     * @return its path
     */
    public Path file() {
        return file;
    }

    @Override
    public Optional<ToolPolicy.Permission> remembered(String agent, String tool) {
        JsonNode v = read().path("agents").path(agent).get(tool);
        if (v == null || !v.isString()) {
            return Optional.empty();
        }
        return switch (v.asString()) {
            case "allow" -> Optional.of(ToolPolicy.Permission.ALLOW);
            case "deny" -> Optional.of(ToolPolicy.Permission.DENY);
            default -> throw new ShellyException(file + ": agents." + agent + "." + tool + " is '" + v.asString()
                    + "'; a remembered decision is 'allow' or 'deny'");
        };
    }

    @Override
    public void remember(String agent, String tool, ToolPolicy.Permission permission) {
        if (agent == null || agent.isBlank() || tool == null || tool.isBlank()) {
            throw new IllegalArgumentException("FilePermissionStore.remember agent and tool must not be null or blank");
        }
        if (permission == null || permission == ToolPolicy.Permission.ASK) {
            throw new IllegalArgumentException("a remembered decision for tool '" + tool + "' of agent '" + agent
                    + "' is ALLOW or DENY, was " + permission);
        }
        ReentrantLock local = LOCKS.computeIfAbsent(file, f -> new ReentrantLock());
        local.lock();
        try {
            Files.createDirectories(file.getParent());
            try (FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
                FileLock held = channel.lock();
                try {
                    JsonNode current = read();
                    ObjectNode root = current instanceof ObjectNode o ? o : JSON.createObjectNode();
                    JsonNode agents = root.get("agents");
                    ObjectNode byAgent = agents instanceof ObjectNode o ? o : root.putObject("agents");
                    JsonNode tools = byAgent.get(agent);
                    ObjectNode byTool = tools instanceof ObjectNode o ? o : byAgent.putObject(agent);
                    byTool.put(tool, permission.name().toLowerCase(Locale.ROOT));
                    write(JSON.writerWithDefaultPrettyPrinter().writeValueAsString(root));
                } finally {
                    held.release();
                }
            }
        } catch (IOException e) {
            throw new ShellyException("cannot remember the decision for tool '" + tool + "' of agent '" + agent
                    + "' in " + file + ": " + e, e);
        } finally {
            local.unlock();
        }
    }

    private JsonNode read() {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return JSON.createObjectNode();
        } catch (IOException e) {
            throw new ShellyException("cannot read the remembered tool decisions in " + file + ": " + e, e);
        }
        try {
            JsonNode root = JSON.readTree(text);
            if (root == null || !root.isObject()) {
                throw new ShellyException(file + ": expected a JSON object {\"agents\":{...}} of remembered tool decisions");
            }
            return root;
        } catch (JacksonException e) {
            throw new ShellyException(file + " is not valid JSON (" + e.getOriginalMessage()
                    + "); fix or remove it to remember tool decisions again", e);
        }
    }

    private void write(String text) throws IOException {
        Path tmp = Files.createTempFile(file.getParent(), "." + file.getFileName() + "-", ".tmp");
        try {
            try (FileChannel channel = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
                ByteBuffer bytes = ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
                while (bytes.hasRemaining()) {
                    channel.write(bytes);
                }
                channel.force(true);
            }
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    @Override
    public String toString() {
        return "FilePermissionStore[" + file + "]";
    }
}
