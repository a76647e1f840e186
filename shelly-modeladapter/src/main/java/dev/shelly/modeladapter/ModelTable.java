package dev.shelly.modeladapter;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * What Shelly knows of each model, by model id: its context window (how many tokens one request
 * may hold) and its price (to turn {@link Usage} into {@link Cost}). Immutable: every
 * {@code with...} method returns a new table.
 *
 * <p>An entry covers its exact model id and every dated or suffixed variant of it:
 * {@code claude-sonnet-4-5} also covers {@code claude-sonnet-4-5-20250929}. When several entries
 * fit, the longest that says what is asked wins, so {@code gpt-5-mini} is not priced as
 * {@code gpt-5}; an entry that gives only a window does not hide the price of a shorter one.
 *
 * <p>{@link #defaults()} reads the list shipped in this module
 * ({@code dev/shelly/modeladapter/models.csv}, dated in its first line). Windows and prices
 * change, so an application that reports money should set its own with {@link #withPrice} or,
 * in the engine's config, {@code prices:} (and windows with {@link #withWindow} or
 * {@code context_windows:}).
 *
 * <pre>{@code
 * ModelTable models = ModelTable.defaults()
 *         .withPrice("my-finetune", Price.of(0.5, 1.5, 0.05, 0.6))
 *         .withWindow("my-local-model", ContextWindow.of(8_192));
 * Cost cost = models.cost(response.model(), response.usage());
 * int tokens = models.window("claude-sonnet-4-5-20250929").orElseThrow().tokens();   // 200000
 * }</pre>
 */
public final class ModelTable {
    private static final String RESOURCE = "models.csv";
    private static final ModelTable EMPTY = new ModelTable(Map.of());

    private final Map<String, Entry> entries;

    private ModelTable(Map<String, Entry> entries) {
        this.entries = entries;
    }

    /**
     * What a model charges, in US dollars per million tokens of each kind.
     *
     * <p>The four kinds match {@link Usage}: uncached input, output (reasoning included), prompt
     * tokens read from the cache and prompt tokens written to it. A provider without a
     * cache-write surcharge (the OpenAI family) has {@code cacheWrite} equal to {@code input}.
     *
     * @param input dollars per million uncached input tokens
     * @param output dollars per million output tokens
     * @param cacheRead dollars per million prompt tokens read from the cache
     * @param cacheWrite dollars per million prompt tokens written to the cache
     */
    public record Price(BigDecimal input, BigDecimal output, BigDecimal cacheRead, BigDecimal cacheWrite) {

        /**
         * Validates that every rate is given and none is negative, and normalises each to its
         * plain value ({@code 3.00} becomes {@code 3}), so two prices of the same rates are equal.
         */
        public Price {
            input = normal(input, "input");
            output = normal(output, "output");
            cacheRead = normal(cacheRead, "cacheRead");
            cacheWrite = normal(cacheWrite, "cacheWrite");
        }

        /**
         * A price from plain numbers, dollars per million tokens.
         *
         * @param input uncached input rate
         * @param output output rate
         * @param cacheRead cache-read rate
         * @param cacheWrite cache-write rate
         * @return the price
         * @throws IllegalArgumentException when a rate is negative or not finite
         */
        public static Price of(double input, double output, double cacheRead, double cacheWrite) {
            return new Price(decimal(input, "input"), decimal(output, "output"), decimal(cacheRead, "cacheRead"),
                    decimal(cacheWrite, "cacheWrite"));
        }

        private static BigDecimal decimal(double value, String field) {
            if (!Double.isFinite(value)) {
                throw new IllegalArgumentException("Price." + field + " must be a finite number of zero or more, was "
                        + value);
            }
            return BigDecimal.valueOf(value);
        }

        private static BigDecimal normal(BigDecimal value, String field) {
            if (value == null) {
                throw new IllegalArgumentException("Price." + field + " must not be null");
            }
            if (value.signum() < 0) {
                throw new IllegalArgumentException("Price." + field + " must be zero or more, was "
                        + value.toPlainString());
            }
            BigDecimal plain = value.stripTrailingZeros();
            return plain.scale() < 0 ? plain.setScale(0) : plain;
        }
    }

    /**
     * How many tokens a model can take in one request.
     *
     * @param tokens the most tokens one request may hold, prompt and reply together; at least 1
     * @param maxOutputTokens the most tokens the reply may hold; 0 when the provider does not say
     */
    public record ContextWindow(int tokens, int maxOutputTokens) {

        /** Validates that the window holds at least one token and the reply limit fits in it. */
        public ContextWindow {
            if (tokens < 1) {
                throw new IllegalArgumentException("ContextWindow.tokens must be at least 1, was " + tokens);
            }
            if (maxOutputTokens < 0 || maxOutputTokens > tokens) {
                throw new IllegalArgumentException("ContextWindow.maxOutputTokens must be between 0 and tokens ("
                        + tokens + "), was " + maxOutputTokens);
            }
        }

        /**
         * A window of {@code tokens} without a published reply limit.
         *
         * @param tokens the window; at least 1
         * @return the window
         */
        public static ContextWindow of(int tokens) {
            return new ContextWindow(tokens, 0);
        }
    }

    /**
     * One model's row: what the table says of it.
     *
     * @param window its context window, or null when the row does not say
     * @param price its price, or null when the row does not say
     */
    public record Entry(ContextWindow window, Price price) {

        /** Refuses a row that says nothing. */
        public Entry {
            if (window == null && price == null) {
                throw new IllegalArgumentException("ModelTable.Entry needs a window, a price or both");
            }
        }

        /** This row laid over another: its own window and price where it has them, the other's elsewhere. */
        Entry over(Entry base) {
            if (base == null) {
                return this;
            }
            return new Entry(window != null ? window : base.window, price != null ? price : base.price);
        }
    }

    /**
     * The table shipped with Shelly, read once from {@code dev/shelly/modeladapter/models.csv}.
     *
     * @return the default table
     */
    public static ModelTable defaults() {
        return Defaults.TABLE;
    }

    /**
     * A table that knows no model.
     *
     * @return the empty table
     */
    public static ModelTable empty() {
        return EMPTY;
    }

    /**
     * This table with one model's price set or replaced; its window, if any, is kept.
     *
     * @param model the model id, or a prefix of dated ids ({@code claude-sonnet-4-5})
     * @param price its price
     * @return a new table
     * @throws IllegalArgumentException when the model id is blank or the price null
     */
    public ModelTable withPrice(String model, Price price) {
        return with("withPrice", model, price == null ? null : new Entry(null, price), "price");
    }

    /**
     * This table with one model's context window set or replaced; its price, if any, is kept.
     *
     * @param model the model id, or a prefix of dated ids ({@code claude-sonnet-4-5})
     * @param window its window
     * @return a new table
     * @throws IllegalArgumentException when the model id is blank or the window null
     */
    public ModelTable withWindow(String model, ContextWindow window) {
        return with("withWindow", model, window == null ? null : new Entry(window, null), "window");
    }

    private ModelTable with(String method, String model, Entry entry, String what) {
        if (model == null || model.isBlank()) {
            throw new IllegalArgumentException("ModelTable." + method + " needs a model id, got "
                    + (model == null ? "null" : "'" + model + "'"));
        }
        if (entry == null) {
            throw new IllegalArgumentException("ModelTable." + method + ": the " + what + " of model '" + model
                    + "' must not be null");
        }
        Map<String, Entry> copy = new LinkedHashMap<>(entries);
        copy.merge(model.strip(), entry, (old, added) -> added.over(old));
        return new ModelTable(Collections.unmodifiableMap(copy));
    }

    /**
     * This table with every entry of another laid over it: where the other gives a model's
     * window or price, it wins; what it does not give is kept.
     *
     * @param overrides the entries to add or replace
     * @return a new table (this one when {@code overrides} is empty)
     */
    public ModelTable withAll(ModelTable overrides) {
        if (overrides == null) {
            throw new IllegalArgumentException("ModelTable.withAll: the overrides must not be null");
        }
        if (overrides.entries.isEmpty()) {
            return this;
        }
        Map<String, Entry> copy = new LinkedHashMap<>(entries);
        overrides.entries.forEach((model, entry) -> copy.merge(model, entry, (old, added) -> added.over(old)));
        return new ModelTable(Collections.unmodifiableMap(copy));
    }

    /**
     * Every entry, in the order added.
     *
     * @return an unmodifiable map from model id (or prefix) to what the table says of it
     */
    public Map<String, Entry> asMap() {
        return entries;
    }

    /**
     * The price of a model: its exact entry's, else that of the longest entry {@code e} with a
     * price such that the id starts with {@code e + "-"}.
     *
     * @param model the model id a provider reported; null finds nothing
     * @return the price, or empty when the table does not price the model
     */
    public Optional<Price> price(String model) {
        return Optional.ofNullable(ModelIds.find(entries, model, Entry::price));
    }

    /**
     * The context window of a model, found as {@link #price} finds a price.
     *
     * @param model the model id; null finds nothing
     * @return the window, or empty when the table does not know the model's window
     */
    public Optional<ContextWindow> window(String model) {
        return Optional.ofNullable(ModelIds.find(entries, model, Entry::window));
    }

    /**
     * What some usage of a model cost: each kind of token times its rate, over a million. Tokens
     * of an unpriced (or null) model are reported as unpriced instead.
     *
     * @param model the model id the response named, or null
     * @param usage the tokens used
     * @return the cost, exact
     */
    public Cost cost(String model, Usage usage) {
        if (usage == null || usage.totalTokens() == 0) {
            return Cost.ZERO;
        }
        Optional<Price> found = price(model);
        if (found.isEmpty()) {
            return new Cost(BigDecimal.ZERO, usage.totalTokens());
        }
        Price price = found.get();
        BigDecimal micro = times(usage.inputTokens(), price.input())
                .add(times(usage.outputTokens(), price.output()))
                .add(times(usage.cacheReadTokens(), price.cacheRead()))
                .add(times(usage.cacheWriteTokens(), price.cacheWrite()));
        return new Cost(micro.movePointLeft(6), 0);
    }

    private static BigDecimal times(long tokens, BigDecimal rate) {
        return tokens == 0 ? BigDecimal.ZERO : BigDecimal.valueOf(tokens).multiply(rate);
    }

    /**
     * Reads a list in the shipped format: a header
     * {@code model,context_window,max_output,input,output,cache_read,cache_write}, then one model
     * per line. A row may leave the window cells empty (no window known; an empty
     * {@code max_output} alone means the provider does not publish one) or the four price cells
     * (no price known), not both. Blank lines and lines starting with {@code #} are skipped.
     *
     * @param in the text, UTF-8; not closed
     * @param source what to call the text in errors, e.g. a file name
     * @return the table
     * @throws IllegalArgumentException naming the source, line and column of a malformed row
     */
    public static ModelTable parse(InputStream in, String source) {
        Map<String, Entry> entries = ModelCsv.read(in, source);
        return entries.isEmpty() ? EMPTY : new ModelTable(Collections.unmodifiableMap(entries));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ModelTable other && other.entries.equals(entries);
    }

    @Override
    public int hashCode() {
        return entries.hashCode();
    }

    @Override
    public String toString() {
        return "ModelTable" + entries.keySet();
    }

    /** Loads the shipped list on first use. */
    private static final class Defaults {
        static final ModelTable TABLE = load();

        private static ModelTable load() {
            try (InputStream in = ModelTable.class.getResourceAsStream(RESOURCE)) {
                if (in == null) {
                    throw new IllegalStateException("the model list dev/shelly/modeladapter/" + RESOURCE
                            + " is missing from the class path");
                }
                return parse(in, RESOURCE);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read dev/shelly/modeladapter/" + RESOURCE, e);
            }
        }
    }
}
