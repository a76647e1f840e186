package dev.shelly.chats;

import java.util.Locale;

/** Who a message speaks for in a conversation. */
public enum Role {
    /** Instructions that frame the whole conversation. */
    SYSTEM("system"),
    /** A human, or any input from outside the agent. */
    USER("user"),
    /** A model's reply. */
    ASSISTANT("assistant"),
    /** The results of tool calls. */
    TOOL("tool");

    private final String wireName;

    Role(String wireName) {
        this.wireName = wireName;
    }

    /**
     * The role's name as it is written on the wire and in files: {@code system}, {@code user},
     * {@code assistant} or {@code tool}.
     *
     * @return the lower-case wire name
     */
    public String wireName() {
        return wireName;
    }

    /**
     * Parses a wire name, ignoring case and surrounding white space.
     *
     * @param name a wire name such as {@code "assistant"}
     * @return the role
     * @throws IllegalArgumentException if the name is null or names no role; the message lists
     *     the known ones
     */
    public static Role parse(String name) {
        if (name == null) {
            throw new IllegalArgumentException("Role.parse name (the role) must not be null; expected one of system, user, assistant, tool");
        }
        String key = name.strip().toLowerCase(Locale.ROOT);
        for (Role role : values()) {
            if (role.wireName.equals(key)) {
                return role;
            }
        }
        throw new IllegalArgumentException(
                "unknown role '" + name + "'; expected one of system, user, assistant, tool");
    }

    @Override
    public String toString() {
        return wireName;
    }
}
