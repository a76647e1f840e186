package dev.shelly.modeladapter;

import java.math.BigDecimal;

/**
 * What a model charges, in US dollars per million tokens of each kind.
 *
 * <p>The four kinds match {@link Usage}: uncached input, output (reasoning included), prompt
 * tokens read from the cache and prompt tokens written to it. A provider without a cache-write
 * surcharge (the OpenAI family) has {@code cacheWrite} equal to {@code input}.
 *
 * @param input dollars per million uncached input tokens
 * @param output dollars per million output tokens
 * @param cacheRead dollars per million prompt tokens read from the cache
 * @param cacheWrite dollars per million prompt tokens written to the cache
 */
public record Price(BigDecimal input, BigDecimal output, BigDecimal cacheRead, BigDecimal cacheWrite) {

    /**
     * Validates that every rate is given and none is negative, and normalises each to its plain
     * value ({@code 3.00} becomes {@code 3}), so two prices of the same rates are equal.
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
