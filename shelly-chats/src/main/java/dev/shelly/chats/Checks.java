package dev.shelly.chats;

import java.util.List;

/** Argument checks shared by the value types of this package. */
final class Checks {
    private Checks() {}

    static String requireText(String value, String field) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(field + " must not be null or blank");
        }
        return value;
    }

    static <T> T requireNonNull(T value, String field) {
        if (value == null) {
            throw new IllegalArgumentException(field + " must not be null");
        }
        return value;
    }

    /**
     * An immutable copy of a list with no null element; a list that is already immutable
     * ({@code List.of}, {@code List.copyOf}) is returned as it is. The message naming a null
     * element's index is built only when one is found.
     */
    static <T> List<T> copyOf(List<? extends T> list, String field) {
        requireNonNull(list, field);
        for (int i = 0, n = list.size(); i < n; i++) {
            if (list.get(i) == null) {
                throw new IllegalArgumentException(field + "[" + i + "] must not be null");
            }
        }
        return List.copyOf(list);
    }
}
