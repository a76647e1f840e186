package dev.shelly.engine;

import dev.shelly.mcp.McpOAuth;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The engine's MCP token store: {@code .shelly/mcp-tokens.json}, readable by its owner only
 * (0600), holding each MCP server's tokens (by the server's URL) and the clients registered with
 * authorization servers (by issuer). Every save rewrites the file atomically (a temporary file of
 * mode 0600, moved over it); every load reads it, so what another engine saved is seen. A file
 * that cannot be read as JSON counts as empty (the person consents again), and is replaced at the
 * next save.
 */
final class McpTokenFile implements McpOAuth.TokenStore {
    private static final Logger LOG = LoggerFactory.getLogger(McpTokenFile.class);
    /** The file's name in {@code .shelly/}. */
    static final String NAME = "mcp-tokens.json";

    private final Path file;
    private final JsonMapper json = JsonMapper.builder().build();
    private final ReentrantLock lock = new ReentrantLock();

    McpTokenFile(Path file) {
        this.file = file;
    }

    @Override
    public Optional<McpOAuth.Tokens> load(String resource) {
        JsonNode t = read().path("tokens").path(resource);
        if (!t.hasNonNull("access_token")) {
            return Optional.empty();
        }
        return Optional.of(new McpOAuth.Tokens(t.path("access_token").asString(), t.path("refresh_token").asString(null),
                t.hasNonNull("expires_at") ? Instant.parse(t.path("expires_at").asString()) : null,
                t.path("scope").asString(null)));
    }

    @Override
    public void save(String resource, McpOAuth.Tokens tokens) {
        update(root -> {
            ObjectNode t = root.withObject("/tokens").putObject(resource);
            t.put("access_token", tokens.accessToken());
            t.put("refresh_token", tokens.refreshToken());
            t.put("expires_at", tokens.expiresAt() == null ? null : tokens.expiresAt().toString());
            t.put("scope", tokens.scope());
        });
    }

    @Override
    public Optional<McpOAuth.Registration> registration(String issuer) {
        JsonNode r = read().path("registrations").path(issuer);
        if (!r.hasNonNull("client_id") || !r.hasNonNull("redirect_uri")) {
            return Optional.empty();
        }
        return Optional.of(new McpOAuth.Registration(r.path("client_id").asString(), r.path("client_secret").asString(null),
                r.path("auth_method").asString("none"), URI.create(r.path("redirect_uri").asString())));
    }

    @Override
    public void saveRegistration(String issuer, McpOAuth.Registration registration) {
        update(root -> {
            ObjectNode r = root.withObject("/registrations").putObject(issuer);
            r.put("client_id", registration.clientId());
            r.put("client_secret", registration.clientSecret());
            r.put("auth_method", registration.authMethod());
            r.put("redirect_uri", registration.redirectUri().toString());
        });
    }

    private ObjectNode read() {
        lock.lock();
        try {
            if (!Files.exists(file)) {
                return json.createObjectNode();
            }
            JsonNode root = json.readTree(Files.readString(file));
            if (root instanceof ObjectNode object) {
                return object;
            }
            LOG.warn("{} does not hold a JSON object; its MCP tokens are not used", file);
            return json.createObjectNode();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the MCP tokens in " + file + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            // a broken file is no reason to stop: the person authorizes again, and the next save replaces it
            LOG.warn("{} cannot be read as JSON; its MCP tokens are not used", file);
            return json.createObjectNode();
        } finally {
            lock.unlock();
        }
    }

    private void update(Consumer<ObjectNode> change) {
        lock.lock();
        try {
            ObjectNode root = read();
            change.accept(root);
            Files.createDirectories(file.getParent());
            Path temp = file.resolveSibling(NAME + ".tmp");
            Files.deleteIfExists(temp);
            try {
                Files.createFile(temp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            } catch (UnsupportedOperationException e) {
                Files.createFile(temp);   // no POSIX permissions on this file system
            } catch (FileAlreadyExistsException e) {
                throw new IOException("another save of " + file + " is under way", e);
            }
            Files.writeString(temp, json.writerWithDefaultPrettyPrinter().writeValueAsString(root));
            try {
                Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot save the MCP tokens in " + file + ": " + e.getMessage(), e);
        } finally {
            lock.unlock();
        }
    }
}
