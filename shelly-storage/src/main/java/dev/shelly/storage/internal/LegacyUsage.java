package dev.shelly.storage.internal;

import dev.shelly.chats.Message;
import dev.shelly.modeladapter.Usage;
import java.util.List;
import java.util.Map;

/** How sessions saved before usage lived in the record report it: summed from their replies. */
public final class LegacyUsage {
    private LegacyUsage() {}

    /**
     * The usage that replies of older sessions carried in their metadata under {@code usage}
     * (replies carry no metadata since the typed model call; usage lives in the record).
     *
     * @param messages the messages, or null
     * @return their summed usage
     */
    public static Usage of(List<Message> messages) {
        Usage total = Usage.ZERO;
        if (messages != null) {
            for (Message m : messages) {
                if (m != null) {
                    Object usage = m.metadata().get("usage");
                    if (usage instanceof Usage u) {
                        total = total.plus(u);
                    } else if (usage instanceof Map<?, ?> map) {
                        total = total.plus(new Usage(count(map, "input_tokens"), count(map, "output_tokens"),
                                count(map, "cache_read_tokens"), count(map, "cache_write_tokens")));
                    }
                }
            }
        }
        return total;
    }

    private static long count(Map<?, ?> map, String key) {
        return map.get(key) instanceof Number n && n.longValue() > 0 ? n.longValue() : 0;
    }
}
