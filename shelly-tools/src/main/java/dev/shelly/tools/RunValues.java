package dev.shelly.tools;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The embedding application's own values for one run (a tenant, a user, a request id), under
 * typed keys. Immutable: {@link #with} returns a copy. Tools read them from
 * {@link ToolContext#values()}.
 *
 * <pre>{@code
 * static final RunValues.Key<String> TENANT = RunValues.Key.of("tenant", String.class);
 * RunValues values = RunValues.EMPTY.with(TENANT, "acme");
 * String tenant = values.require(TENANT);
 * }</pre>
 */
public final class RunValues {

    /**
     * A typed key. Two keys are equal when their name and type are.
     *
     * @param name the key's name; not blank
     * @param type the type of its value
     * @param <T> the type of its value
     */
    public record Key<T>(String name, Class<T> type) {
        /** Validates the fields. */
        public Key {
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("RunValues.Key name must not be null or blank");
            }
            if (type == null) {
                throw new IllegalArgumentException("RunValues.Key '" + name + "' type must not be null");
            }
        }

        /**
         * A key.
         *
         * @param name the key's name; not blank
         * @param type the type of its value
         * @param <T> the type of its value
         * @return the key
         */
        public static <T> Key<T> of(String name, Class<T> type) {
            return new Key<>(name, type);
        }
    }

    /** No values. */
    public static final RunValues EMPTY = new RunValues(Map.of());

    private final Map<Key<?>, Object> values;

    private RunValues(Map<Key<?>, Object> values) {
        this.values = values;
    }

    /**
     * The value under a key.
     *
     * @param key the key
     * @param <T> the value's type
     * @return the value, or empty when none is set
     */
    public <T> Optional<T> get(Key<T> key) {
        if (key == null) {
            throw new IllegalArgumentException("RunValues.get key must not be null");
        }
        Object v = values.get(key);
        return v == null ? Optional.empty() : Optional.of(key.type().cast(v));
    }

    /**
     * The value under a key, which must be set.
     *
     * @param key the key
     * @param <T> the value's type
     * @return the value
     * @throws IllegalArgumentException naming the key when no value is set
     */
    public <T> T require(Key<T> key) {
        return get(key).orElseThrow(() -> new IllegalArgumentException("no run value '" + key.name() + "'"));
    }

    /**
     * A copy with one value set (replacing one under the same key).
     *
     * @param key the key
     * @param value the value; an instance of the key's type
     * @param <T> the value's type
     * @return the copy
     */
    public <T> RunValues with(Key<T> key, T value) {
        if (key == null) {
            throw new IllegalArgumentException("RunValues.with key must not be null");
        }
        if (value == null) {
            throw new IllegalArgumentException("RunValues.with value of '" + key.name() + "' must not be null");
        }
        if (!key.type().isInstance(value)) {
            throw new IllegalArgumentException("RunValues.with value of '" + key.name() + "' must be a "
                    + key.type().getName() + ", was a " + value.getClass().getName());
        }
        if (values.isEmpty()) {
            return new RunValues(Map.of(key, value)); // the common case: a run adding itself to no values
        }
        Map<Key<?>, Object> next = new LinkedHashMap<>(values);
        next.put(key, value);
        return new RunValues(Collections.unmodifiableMap(next));
    }

    /**
     * Every value, by key, in the order they were first set.
     *
     * @return an unmodifiable map
     */
    public Map<Key<?>, Object> asMap() {
        return values;
    }

    /**
     * Whether no value is set.
     *
     * @return true when empty
     */
    public boolean isEmpty() {
        return values.isEmpty();
    }

    /** Lists the key names only: values may be private to the application. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("RunValues[");
        boolean first = true;
        for (Key<?> k : values.keySet()) {
            sb.append(first ? "" : ", ").append(k.name());
            first = false;
        }
        return sb.append(']').toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RunValues other && values.equals(other.values);
    }

    @Override
    public int hashCode() {
        return values.hashCode();
    }
}
