package dev.shelly.skills;

import dev.shelly.chats.ShellyException;
import java.nio.file.Path;

/**
 * A skill could not be loaded: a folder or {@code SKILL.md} is missing or unreadable, or its
 * frontmatter is malformed. The message names the file and the reason.
 */
public final class SkillException extends ShellyException {
    private static final long serialVersionUID = 1L;

    private final transient Path path;

    /**
     * Creates the exception.
     *
     * @param path the file or folder that failed to load
     * @param message what is wrong, naming the path
     * @param cause the underlying failure, or null
     */
    public SkillException(Path path, String message, Throwable cause) {
        super(message, cause);
        this.path = path;
    }

    /**
     * The file or folder that failed to load.
     *
     * @return the path
     */
    public Path path() {
        return path;
    }
}
