package dev.shelly.modeladapter;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Prices by model id, to turn {@link Usage} into {@link Cost}. Immutable: {@link #with} and
 * {@link #withAll} return a new table.
 *
 * <p>An entry prices its exact model id and every dated or suffixed variant of it:
 * {@code claude-sonnet-4-5} also prices {@code claude-sonnet-4-5-20250929}. When several
 * entries fit, the longest wins, so {@code gpt-5-mini} is not priced as {@code gpt-5}.
 *
 * <p>{@link #defaults()} reads the price list shipped in this module
 * ({@code dev/shelly/modeladapter/prices.csv}, dated in its first line); prices change, so an
 * application that reports money should set its own with {@link #with} or, in the engine's
 * config, {@code prices:}.
 */
public final class PriceTable {
    private static final String RESOURCE = "prices.csv";
    private static final PriceTable EMPTY = new PriceTable(Map.of());

    private final Map<String, Price> prices;

    private PriceTable(Map<String, Price> prices) {
        this.prices = prices;
    }

    /**
     * The prices shipped with Shelly, read once from {@code dev/shelly/modeladapter/prices.csv}.
     *
     * @return the default table
     */
    public static PriceTable defaults() {
        return Defaults.TABLE;
    }

    /**
     * A table that prices nothing.
     *
     * @return the empty table
     */
    public static PriceTable empty() {
        return EMPTY;
    }

    /**
     * This table with one model's price set or replaced.
     *
     * @param model the model id, or a prefix of dated ids ({@code claude-sonnet-4-5})
     * @param price its price
     * @return a new table
     * @throws IllegalArgumentException when the model id is blank or the price null
     */
    public PriceTable with(String model, Price price) {
        if (model == null || model.isBlank()) {
            throw new IllegalArgumentException("PriceTable.with needs a model id, got "
                    + (model == null ? "null" : "'" + model + "'"));
        }
        if (price == null) {
            throw new IllegalArgumentException("PriceTable.with: the price of model '" + model + "' must not be null");
        }
        Map<String, Price> copy = new LinkedHashMap<>(prices);
        copy.put(model.strip(), price);
        return new PriceTable(Collections.unmodifiableMap(copy));
    }

    /**
     * This table with every entry of another laid over it: the other's prices win.
     *
     * @param overrides the prices to add or replace
     * @return a new table (this one when {@code overrides} is empty)
     */
    public PriceTable withAll(PriceTable overrides) {
        if (overrides == null) {
            throw new IllegalArgumentException("PriceTable.withAll: the overrides must not be null");
        }
        if (overrides.prices.isEmpty()) {
            return this;
        }
        Map<String, Price> copy = new LinkedHashMap<>(prices);
        copy.putAll(overrides.prices);
        return new PriceTable(Collections.unmodifiableMap(copy));
    }

    /**
     * Every entry, in the order added.
     *
     * @return an unmodifiable map from model id (or prefix) to price
     */
    public Map<String, Price> asMap() {
        return prices;
    }

    /**
     * The price of a model: its exact entry, else the longest entry {@code e} such that the id
     * starts with {@code e + "-"}.
     *
     * @param model the model id a provider reported; null finds nothing
     * @return the price, or empty when the table does not know the model
     */
    public Optional<Price> find(String model) {
        return Optional.ofNullable(ModelIds.find(prices, model));
    }

    /**
     * What some usage of a model cost: each kind of token times its rate, over a million. Tokens
     * of an unknown (or null) model are reported as unpriced instead.
     *
     * @param model the model id the response named, or null
     * @param usage the tokens used
     * @return the cost, exact
     */
    public Cost cost(String model, Usage usage) {
        if (usage == null || usage.totalTokens() == 0) {
            return Cost.ZERO;
        }
        Optional<Price> found = find(model);
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
     * Reads a price list in the shipped format: a header {@code model,input,output,cache_read,cache_write},
     * then one model per line; blank lines and lines starting with {@code #} are skipped.
     *
     * @param in the text, UTF-8; not closed
     * @param source what to call the text in errors, e.g. a file name
     * @return the table
     * @throws IllegalArgumentException naming the source and line of a malformed row
     */
    public static PriceTable parse(InputStream in, String source) {
        Map<String, Price> prices = new LinkedHashMap<>();
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
                    if (!text.equals("model,input,output,cache_read,cache_write")) {
                        throw new IllegalArgumentException(source + " line " + number
                                + ": the header must be 'model,input,output,cache_read,cache_write', was '" + text + "'");
                    }
                    header = true;
                    continue;
                }
                String[] cells = text.split(",", -1);
                if (cells.length != 5) {
                    throw new IllegalArgumentException(source + " line " + number + ": expected 5 cells"
                            + " (model,input,output,cache_read,cache_write), got " + cells.length);
                }
                String model = cells[0].strip();
                if (model.isEmpty()) {
                    throw new IllegalArgumentException(source + " line " + number + ": the model id is empty");
                }
                try {
                    prices.put(model, new Price(number(cells[1], source, number, "input"),
                            number(cells[2], source, number, "output"), number(cells[3], source, number, "cache_read"),
                            number(cells[4], source, number, "cache_write")));
                } catch (IllegalArgumentException e) {
                    if (e.getMessage().startsWith(source)) {
                        throw e;
                    }
                    throw new IllegalArgumentException(source + " line " + number + " (" + model + "): "
                            + e.getMessage(), e);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + source, e);
        }
        return prices.isEmpty() ? EMPTY : new PriceTable(Collections.unmodifiableMap(prices));
    }

    private static BigDecimal number(String cell, String source, int line, String column) {
        try {
            return new BigDecimal(cell.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(source + " line " + line + ": " + column + " must be a number, was '"
                    + cell.strip() + "'", e);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PriceTable other && other.prices.equals(prices);
    }

    @Override
    public int hashCode() {
        return prices.hashCode();
    }

    @Override
    public String toString() {
        return "PriceTable" + prices.keySet();
    }

    /** Loads the shipped list on first use. */
    private static final class Defaults {
        static final PriceTable TABLE = load();

        private static PriceTable load() {
            try (InputStream in = PriceTable.class.getResourceAsStream(RESOURCE)) {
                if (in == null) {
                    throw new IllegalStateException("the price list dev/shelly/modeladapter/" + RESOURCE
                            + " is missing from the class path");
                }
                return parse(in, RESOURCE);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read dev/shelly/modeladapter/" + RESOURCE, e);
            }
        }
    }
}
