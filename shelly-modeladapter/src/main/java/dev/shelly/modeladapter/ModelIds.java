package dev.shelly.modeladapter;

import java.util.Map;
import java.util.function.Function;

/** How the {@link ModelTable} finds a model's entry. */
final class ModelIds {
    private ModelIds() {}

    /**
     * What the entries say of a model: the exact entry's value, else that of the longest entry
     * {@code e} with a value such that the id starts with {@code e + "-"} (a dated or suffixed
     * variant).
     *
     * @param table the entries by model id
     * @param model the model id, or null
     * @param part what to read of an entry; null when the entry does not say
     * @return the value, or null when no entry fits
     */
    static <E, V> V find(Map<String, E> table, String model, Function<E, V> part) {
        if (model == null || table.isEmpty()) {
            return null;
        }
        String candidate = model;
        while (true) {
            E entry = table.get(candidate);
            V value = entry == null ? null : part.apply(entry);
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
