package dev.shelly.providers.internal;

import java.util.concurrent.ConcurrentHashMap;

/**
 * Remembers which texts are exactly one JSON object, so that a format checks a tool schema or
 * an earlier call's arguments once, not on every request of a conversation. Bounded: cleared
 * when it holds more than {@value #MAX_ENTRIES} texts. A conversation passes the same string
 * instances on every call, so a hit costs a cached hash code and an identity comparison.
 * Internal: not part of Shelly's API.
 */
public final class JsonObjectMemo {
    /** The most texts remembered before the memo starts over. */
    public static final int MAX_ENTRIES = 4096;

    private final ConcurrentHashMap<String, Boolean> known = new ConcurrentHashMap<>();

    /** An empty memo. */
    public JsonObjectMemo() {}

    /**
     * Whether a text is exactly one JSON object, as {@link WireSupport#isJsonObject} says.
     *
     * @param text the text, may be null
     * @return true for a single, valid JSON object
     */
    public boolean isJsonObject(String text) {
        if (text == null) {
            return false;
        }
        Boolean hit = known.get(text);
        if (hit != null) {
            return hit;
        }
        boolean object = WireSupport.isJsonObject(text);
        if (known.size() >= MAX_ENTRIES) {
            known.clear();
        }
        known.put(text, object);
        return object;
    }

    /**
     * How many texts are remembered, for tests.
     *
     * @return the count
     */
    public int size() {
        return known.size();
    }
}
