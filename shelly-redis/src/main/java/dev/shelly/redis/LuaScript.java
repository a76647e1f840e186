package dev.shelly.redis;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A Lua script and the SHA1 digest Redis knows it by ({@code EVALSHA}).
 *
 * @param source the script
 * @param sha1 its digest, lower-case hex
 */
record LuaScript(String source, String sha1) {

    static LuaScript of(String source) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-1").digest(source.getBytes(StandardCharsets.UTF_8));
            return new LuaScript(source, HexFormat.of().formatHex(digest));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JVM has no SHA-1, which every JVM must have", e);
        }
    }
}
