package dev.shelly.chats;

import java.util.ArrayList;
import java.util.Collections;
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

    static <T> List<T> copyOf(List<? extends T> list, String field) {
        requireNonNull(list, field);
        List<T> copy = new ArrayList<>(list.size());
        for (int i = 0; i < list.size(); i++) {
            copy.add(requireNonNull(list.get(i), field + "[" + i + "]"));
        }
        return Collections.unmodifiableList(copy);
    }
}
