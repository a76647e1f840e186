package dev.shelly.modeladapter;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Context windows by model id: how many tokens each known model takes in one request. Immutable:
 * {@link #with} and {@link #withAll} return a new table. It sits beside {@link PriceTable} and
 * finds a model the same way: an entry covers its exact id and every dated or suffixed variant
 * ({@code claude-sonnet-4-5} covers {@code claude-sonnet-4-5-20250929}); the longest entry wins.
 *
 * <p>{@link #defaults()} reads the list shipped in this module
 * ({@code dev/shelly/modeladapter/context-windows.csv}, dated in its first line). A provider
 * module adds its models to that file; an application overrides or adds with {@link #with} or,
 * in the engine's config, {@code context_windows:}.
 *
 * <pre>{@code
 * ContextWindows windows = ContextWindows.defaults().with("my-local-model", ContextWindow.of(8_192));
 * int tokens = windows.find("claude-sonnet-4-5-20250929").orElseThrow().tokens();   // 200000
 * }</pre>
 */
public final class ContextWindows {
    private static final String RESOURCE = "context-windows.csv";
    private static final String HEADER = "model,context_window,max_output";
    private static final ContextWindows EMPTY = new ContextWindows(Map.of());

    private final Map<String, ContextWindow> windows;

    private ContextWindows(Map<String, ContextWindow> windows) {
        this.windows = windows;
    }

    /**
     * The windows shipped with Shelly, read once from
     * {@code dev/shelly/modeladapter/context-windows.csv}.
     *
     * @return the default table
     */
    public static ContextWindows defaults() {
        return Defaults.TABLE;
    }

    /**
     * A table that knows no model.
     *
     * @return the empty table
     */
    public static ContextWindows empty() {
        return EMPTY;
    }

    /**
     * This table with one model's window set or replaced.
     *
     * @param model the model id, or a prefix of dated ids ({@code claude-sonnet-4-5})
     * @param window its window
     * @return a new table
     * @throws IllegalArgumentException when the model id is blank or the window null
     */
    public ContextWindows with(String model, ContextWindow window) {
        if (model == null || model.isBlank()) {
            throw new IllegalArgumentException("ContextWindows.with needs a model id, got "
                    + (model == null ? "null" : "'" + model + "'"));
        }
        if (window == null) {
            throw new IllegalArgumentException("ContextWindows.with: the window of model '" + model + "' must not be null");
        }
        Map<String, ContextWindow> copy = new LinkedHashMap<>(windows);
        copy.put(model.strip(), window);
        return new ContextWindows(Collections.unmodifiableMap(copy));
    }

    /**
     * This table with every entry of another laid over it: the other's windows win.
     *
     * @param overrides the windows to add or replace
     * @return a new table (this one when {@code overrides} is empty)
     */
    public ContextWindows withAll(ContextWindows overrides) {
        if (overrides == null) {
            throw new IllegalArgumentException("ContextWindows.withAll: the overrides must not be null");
        }
        if (overrides.windows.isEmpty()) {
            return this;
        }
        Map<String, ContextWindow> copy = new LinkedHashMap<>(windows);
        copy.putAll(overrides.windows);
        return new ContextWindows(Collections.unmodifiableMap(copy));
    }

    /**
     * Every entry, in the order added.
     *
     * @return an unmodifiable map from model id (or prefix) to window
     */
    public Map<String, ContextWindow> asMap() {
        return windows;
    }

    /**
     * The window of a model: its exact entry, else the longest entry {@code e} such that the id
     * starts with {@code e + "-"}.
     *
     * @param model the model id; null finds nothing
     * @return the window, or empty when the table does not know the model
     */
    public Optional<ContextWindow> find(String model) {
        return Optional.ofNullable(ModelIds.find(windows, model));
    }

    /**
     * Reads a list in the shipped format: a header {@code model,context_window,max_output}, then
     * one model per line (an empty {@code max_output} means the provider does not say); blank
     * lines and lines starting with {@code #} are skipped.
     *
     * @param in the text, UTF-8; not closed
     * @param source what to call the text in errors, e.g. a file name
     * @return the table
     * @throws IllegalArgumentException naming the source, line and column of a malformed row
     */
    public static ContextWindows parse(InputStream in, String source) {
        Map<String, ContextWindow> windows = new LinkedHashMap<>();
        try {
            BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            String line;
            int number = 0;
            boolean header = false;
            while ((line = reader.readLine()) != null) {
                number++;
                String text = line.strip();
                if (text.isEmpty() || text.startsWith("#")) {
                    continue;
                }
                if (!header) {
                    if (!text.equals(HEADER)) {
                        throw new IllegalArgumentException(source + " line " + number + ": the header must be '" + HEADER
                                + "', was '" + text + "'");
                    }
                    header = true;
                    continue;
                }
                String[] cells = text.split(",", -1);
                if (cells.length != 3) {
                    throw new IllegalArgumentException(source + " line " + number + ": expected 3 cells (" + HEADER
                            + "), got " + cells.length);
                }
                String model = cells[0].strip();
                if (model.isEmpty()) {
                    throw new IllegalArgumentException(source + " line " + number + ": the model id is empty");
                }
                int tokens = count(cells[1], source, number, "context_window", false);
                int output = count(cells[2], source, number, "max_output", true);
                try {
                    windows.put(model, new ContextWindow(tokens, output));
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException(source + " line " + number + " (" + model + "): " + e.getMessage(), e);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + source, e);
        }
        return windows.isEmpty() ? EMPTY : new ContextWindows(Collections.unmodifiableMap(windows));
    }

    private static int count(String cell, String source, int line, String column, boolean optional) {
        String text = cell.strip();
        if (text.isEmpty() && optional) {
            return 0;
        }
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(source + " line " + line + ": " + column + " must be a whole number of tokens, "
                    + "was '" + text + "'", e);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ContextWindows other && other.windows.equals(windows);
    }

    @Override
    public int hashCode() {
        return windows.hashCode();
    }

    @Override
    public String toString() {
        return "ContextWindows" + windows.keySet();
    }

    /** Loads the shipped list on first use. */
    private static final class Defaults {
        static final ContextWindows TABLE = load();

        private static ContextWindows load() {
            try (InputStream in = ContextWindows.class.getResourceAsStream(RESOURCE)) {
                if (in == null) {
                    throw new IllegalStateException("the context-window list dev/shelly/modeladapter/" + RESOURCE
                            + " is missing from the class path");
                }
                return parse(in, RESOURCE);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read dev/shelly/modeladapter/" + RESOURCE, e);
            }
        }
    }
}
