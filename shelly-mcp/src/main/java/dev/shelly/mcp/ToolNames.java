package dev.shelly.mcp;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Maps an MCP server's tool names to Shelly tool names, deterministically and reversibly.
 *
 * <p>MCP names may hold dots and slashes and run to 128 characters; Shelly names (what model
 * providers accept) are 1 to 64 letters, digits, {@code _} or {@code -}. The rule, applied to
 * prefix + name:
 * <ol>
 *   <li>a name that is valid as it is stays as it is;</li>
 *   <li>otherwise every other character becomes {@code _} and the result is cut to 64 characters;</li>
 *   <li>when that collides with another tool's name, it is cut to 55 characters and gets
 *       {@code _} and the first 8 hex digits of the SHA-256 of the MCP name.</li>
 * </ol>
 * The result depends only on the set of names, not their order. The map from Shelly name back
 * to MCP name is kept, so every call reaches the tool the model meant.
 */
final class ToolNames {
    private static final Pattern VALID = Pattern.compile("[a-zA-Z0-9_-]{1,64}");
    private static final Pattern INVALID_CHAR = Pattern.compile("[^a-zA-Z0-9_-]");

    private ToolNames() {}

    /**
     * Shelly name to MCP name, in the server's order. Names that still collide after hashing
     * (practically never) are left out, and so are empty names.
     *
     * @param prefix put before every name, e.g. {@code "fs_"}; may be empty
     * @param mcpNames the server's tool names
     * @return the map
     */
    static Map<String, String> map(String prefix, List<String> mcpNames) {
        Map<String, String> plain = new LinkedHashMap<>();
        Map<String, Integer> uses = new HashMap<>();
        for (String mcpName : mcpNames) {
            if (mcpName == null || mcpName.isEmpty() || plain.containsKey(mcpName)) {
                continue;
            }
            String candidate = sanitize(prefix + mcpName);
            plain.put(mcpName, candidate);
            uses.merge(candidate, 1, Integer::sum);
        }
        Map<String, String> result = new LinkedHashMap<>();
        for (Map.Entry<String, String> entry : plain.entrySet()) {
            String mcpName = entry.getKey();
            String candidate = entry.getValue();
            boolean changed = !candidate.equals(prefix + mcpName);
            if (changed && uses.get(candidate) > 1) {
                candidate = candidate.substring(0, Math.min(candidate.length(), 55)) + "_" + hash(mcpName);
            }
            if (!result.containsKey(candidate)) {
                result.put(candidate, mcpName);
            }
        }
        return result;
    }

    /**
     * Whether a prefix can start a Shelly tool name.
     *
     * @param prefix the prefix
     * @return true when it holds only letters, digits, {@code _} and {@code -}, at most 32 of them
     */
    static boolean isValidPrefix(String prefix) {
        return prefix.isEmpty() || prefix.length() <= 32 && VALID.matcher(prefix).matches();
    }

    private static String sanitize(String name) {
        if (VALID.matcher(name).matches()) {
            return name;
        }
        String replaced = INVALID_CHAR.matcher(name).replaceAll("_");
        return replaced.length() > 64 ? replaced.substring(0, 64) : replaced;
    }

    private static String hash(String name) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(name.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 4);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
