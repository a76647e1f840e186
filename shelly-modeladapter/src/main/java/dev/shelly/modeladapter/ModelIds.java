package dev.shelly.modeladapter;

import java.util.Map;

/** How the per-model tables ({@link PriceTable}, {@link ContextWindows}) find a model's entry. */
final class ModelIds {
    private ModelIds() {}

    /**
     * The entry of a model: its exact entry, else the longest entry {@code e} such that the id
     * starts with {@code e + "-"} (a dated or suffixed variant).
     *
     * @return the value, or null when no entry fits
     */
    static <V> V find(Map<String, V> table, String model) {
        if (model == null || table.isEmpty()) {
            return null;
        }
        String candidate = model;
        while (true) {
            V value = table.get(candidate);
            if (value != null) {
                return value;
            }
            int dash = candidate.lastIndexOf('-');
            if (dash <= 0) {
                return null;
            }
            candidate = candidate.substring(0, dash);
        }
    }
}
