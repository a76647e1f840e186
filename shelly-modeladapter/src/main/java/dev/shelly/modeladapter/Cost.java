package dev.shelly.modeladapter;

import java.math.BigDecimal;

/**
 * What some model calls cost, in US dollars, and how many of their tokens had no price.
 *
 * <p>Tokens of a model the {@link ModelTable} does not price (or of a reply that named no model)
 * are counted in {@code unpricedTokens} rather than guessed; {@link #complete()} says whether
 * the dollar figure covers everything.
 *
 * @param usd the priced calls' cost in US dollars, exact
 * @param unpricedTokens tokens of calls that could not be priced
 */
public record Cost(BigDecimal usd, long unpricedTokens) {

    /** Nothing spent, nothing unpriced. */
    public static final Cost ZERO = new Cost(BigDecimal.ZERO, 0);

    /**
     * Validates the figures and normalises the dollars to their plain value ({@code 0.0140}
     * becomes {@code 0.014}), so two costs of the same amount are equal.
     */
    public Cost {
        if (usd == null) {
            throw new IllegalArgumentException("Cost.usd must not be null");
        }
        if (usd.signum() < 0) {
            throw new IllegalArgumentException("Cost.usd must be zero or more, was " + usd.toPlainString());
        }
        usd = usd.stripTrailingZeros();
        if (usd.scale() < 0) {
            usd = usd.setScale(0);
        }
        if (unpricedTokens < 0) {
            throw new IllegalArgumentException("Cost.unpricedTokens must be zero or more, was " + unpricedTokens);
        }
    }

    /**
     * The sum of this cost and another.
     *
     * @param other the cost to add
     * @return a new cost (this one when {@code other} is {@link #ZERO})
     */
    public Cost plus(Cost other) {
        if (other.usd.signum() == 0 && other.unpricedTokens == 0) {
            return this;
        }
        if (usd.signum() == 0 && unpricedTokens == 0) {
            return other;
        }
        return new Cost(usd.add(other.usd), unpricedTokens + other.unpricedTokens);
    }

    /**
     * Whether every token was priced.
     *
     * @return true when {@code unpricedTokens} is zero
     */
    public boolean complete() {
        return unpricedTokens == 0;
    }
}
