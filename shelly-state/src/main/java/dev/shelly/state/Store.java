package dev.shelly.state;

import dev.shelly.tools.ToolBox;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * A blackboard: a thread-safe key/value store of JSON values through which cooperating agents
 * hand each other structured data. {@link #tools(String)} exposes it to agents as tools.
 *
 * <p>Values are Jackson {@link JsonNode} trees, the form tool input arrives in: they hold any
 * JSON exactly (big numbers, nulls inside arrays, the order of object members) and need no
 * conversion between a model's tool call and the store. Trees are mutable, so the store copies
 * a value when it is written and again when it is read: no caller can change stored state
 * through a node it holds.
 *
 * <p>Every method is safe from many threads. A thread can {@linkplain #watch wait} for a key to
 * appear; every write wakes every waiter, and no lock is held while a waiter blocks. Entries
 * live in a {@link StateBackend}, in memory unless another backend is given.
 */
public final class Store {
    private final StateBackend backend;

    /** An empty store in memory. */
    public Store() {
        this(new InMemoryStateBackend());
    }

    /**
     * A store over a backend, which may already hold entries.
     *
     * @param backend where the entries live
     */
    public Store(StateBackend backend) {
        if (backend == null) {
            throw new IllegalArgumentException("Store backend must not be null");
        }
        this.backend = backend;
    }

    /**
     * The value under a key.
     *
     * @param key the key
     * @return a copy of the value, or empty when the key is absent
     */
    public Optional<JsonNode> get(String key) {
        requireKey(key, "get");
        return backend.get(key).map(e -> JsonValues.copy(e.value(), "stored value of key '" + key + "'"));
    }

    /**
     * Stores a value, replacing any value under the key, and wakes every watcher.
     *
     * @param key the key
     * @param value the value; it is copied, so later changes to it do not reach the store. A JSON
     *     null is stored as {@code NullNode}; a Java null is rejected
     */
    public void set(String key, JsonNode value) {
        requireKey(key, "set");
        backend.put(key, copyIn(key, value));
    }

    /**
     * Parses JSON text and stores it, replacing any value under the key.
     *
     * @param key the key
     * @param json the value as JSON text, e.g. {@code {"title":"Draft"}} or {@code "plain text"}
     * @throws IllegalArgumentException when the text is not one JSON value
     */
    public void setJson(String key, String json) {
        requireKey(key, "setJson");
        if (json == null) {
            throw new IllegalArgumentException("Store.setJson JSON text for key '" + key + "' must not be null");
        }
        JsonNode parsed;
        try {
            parsed = JsonValues.JSON.readTree(json);
        } catch (JacksonException e) {
            throw new IllegalArgumentException("Store.setJson value for key '" + key + "' is not valid JSON: "
                    + e.getOriginalMessage(), e);
        }
        if (parsed == null || parsed.isMissingNode()) {
            throw new IllegalArgumentException("Store.setJson value for key '" + key + "' is empty; give one JSON value");
        }
        backend.put(key, parsed);
    }

    /**
     * Atomically replaces the value under a key with a function of the current one.
     *
     * <p>The function may run more than once when other writers race with this one, so it must
     * not have side effects; it receives a copy of the current value each time.
     *
     * @param key the key
     * @param update maps the current value, or null when the key is absent, to the new value
     *     (not null)
     * @return a copy of the value stored
     */
    public JsonNode update(String key, UnaryOperator<JsonNode> update) {
        requireKey(key, "update");
        if (update == null) {
            throw new IllegalArgumentException("Store.update function for key '" + key + "' must not be null");
        }
        while (true) {
            Optional<StateBackend.Entry> current = backend.get(key);
            long version = current.map(StateBackend.Entry::version).orElse(0L);
            JsonNode before = current.map(e -> JsonValues.copy(e.value(), "stored value of key '" + key + "'")).orElse(null);
            JsonNode after = copyIn(key, update.apply(before));
            if (backend.compareAndSet(key, version, after)) {
                return JsonValues.copy(after, "value for key '" + key + "'");
            }
        }
    }

    /**
     * Removes a key and wakes every watcher when it was present.
     *
     * @param key the key
     * @return true when the key was present
     */
    public boolean delete(String key) {
        requireKey(key, "delete");
        return backend.remove(key);
    }

    /**
     * The keys, sorted.
     *
     * @return an unmodifiable sorted list
     */
    public List<String> keys() {
        List<String> keys = new ArrayList<>(backend.keys());
        Collections.sort(keys);
        return Collections.unmodifiableList(keys);
    }

    /**
     * Every entry at one moment, in key order.
     *
     * @return an unmodifiable map of copies, iterating in key order
     */
    public Map<String, JsonNode> snapshot() {
        TreeMap<String, JsonNode> sorted = new TreeMap<>();
        for (StateBackend.Entry e : backend.entries()) {
            sorted.put(e.key(), e.value());
        }
        Map<String, JsonNode> copy = new LinkedHashMap<>();
        sorted.forEach((k, v) -> copy.put(k, JsonValues.copy(v, "stored value of key '" + k + "'")));
        return Collections.unmodifiableMap(copy);
    }

    /**
     * Blocks until a value is stored under the key, or the timeout passes.
     *
     * <p>Returns at once when the key is present. Holds no lock while it waits. The watcher looks
     * at the store after every write, so a value written and deleted again before it looks can be
     * missed; it then waits on.
     *
     * @param key the key
     * @param timeout how long to wait at most; zero or negative means look once without waiting
     * @return a copy of the value, or empty when the timeout passed first
     * @throws InterruptedException when the waiting thread is interrupted
     */
    public Optional<JsonNode> watch(String key, Duration timeout) throws InterruptedException {
        requireKey(key, "watch");
        if (timeout == null) {
            throw new IllegalArgumentException("Store.watch timeout for key '" + key + "' must not be null");
        }
        return backend.await(() -> get(key), timeout);
    }

    /**
     * The store as tools for agents: {@code {namespace}_state_get}, {@code {namespace}_state_set}
     * and {@code {namespace}_state_list}.
     *
     * <ul>
     *   <li>{@code _get} takes {@code {"key":"findings"}} and answers the value as compact JSON
     *       text; a missing key is an error result that lists the keys present.</li>
     *   <li>{@code _set} takes {@code {"key":"findings","value":<any JSON>}} and answers the two
     *       characters {@code ok}.</li>
     *   <li>{@code _list} takes {@code {}} and answers the sorted keys as a JSON array.</li>
     * </ul>
     *
     * @param namespace prefixes the tool names: 1 to 53 letters, digits, '_' or '-', so that
     *     every tool name stays within the 64 characters providers accept
     * @return a new toolbox over this store
     * @throws IllegalArgumentException when the namespace cannot prefix a tool name
     */
    public ToolBox tools(String namespace) {
        return StateTools.toolBox(this, namespace);
    }

    private static JsonNode copyIn(String key, JsonNode value) {
        if (value == null) {
            throw new IllegalArgumentException("value for key '" + key
                    + "' must not be null; store JSON null as NullNode, or delete the key");
        }
        return JsonValues.copy(value, "value for key '" + key + "'");
    }

    private static void requireKey(String key, String method) {
        if (key == null || key.isBlank()) {
            throw new IllegalArgumentException("Store." + method + " key must not be null or blank");
        }
    }

    @Override
    public String toString() {
        return "Store[" + backend + "]";
    }
}
