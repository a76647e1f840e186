package dev.shelly.modeladapter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class PriceTableTest {

    private static PriceTable parse(String text) {
        return PriceTable.parse(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)), "test.csv");
    }

    @Test
    void anEntryPricesItsDatedVariantsAndTheLongestEntryWins() {
        PriceTable table = PriceTable.empty()
                .with("gpt-5", Price.of(1.25, 10, 0.125, 1.25))
                .with("gpt-5-mini", Price.of(0.25, 2, 0.025, 0.25));
        assertThat(table.find("gpt-5")).contains(Price.of(1.25, 10, 0.125, 1.25));
        assertThat(table.find("gpt-5-2025-08-07")).contains(Price.of(1.25, 10, 0.125, 1.25));
        assertThat(table.find("gpt-5-mini-2025-08-07")).contains(Price.of(0.25, 2, 0.025, 0.25));
        assertThat(table.find("gpt-50")).isEmpty();
        assertThat(table.find("gpt")).isEmpty();
        assertThat(table.find(null)).isEmpty();
    }

    @Test
    void theDefaultsPriceDatedAnthropicIdsAndTheOpenAiFamily() {
        PriceTable defaults = PriceTable.defaults();
        assertThat(defaults.find("claude-sonnet-4-5-20250929")).contains(Price.of(3, 15, 0.30, 3.75));
        assertThat(defaults.find("claude-haiku-4-5")).contains(Price.of(1, 5, 0.10, 1.25));
        assertThat(defaults.find("gpt-4.1-mini-2025-04-14")).contains(Price.of(0.40, 1.60, 0.10, 0.40));
        assertThat(defaults.find("grok-4-0709")).contains(Price.of(3, 15, 0.75, 3));
        assertThat(defaults.find("gemini-2.5-flash")).contains(Price.of(0.30, 2.50, 0.03, 0.30));
        assertThat(defaults.find("gemini-2.5-flash-lite")).as("not priced as gemini-2.5-flash")
                .contains(Price.of(0.10, 0.40, 0.01, 0.10));
        assertThat(defaults.find("gemini-3-pro-preview")).contains(Price.of(2, 12, 0.20, 2));
        assertThat(defaults.asMap()).hasSizeGreaterThanOrEqualTo(15);
    }

    @Test
    void costIsExactDecimalArithmeticOverEveryKindOfToken() {
        PriceTable table = PriceTable.empty().with("claude-sonnet-4-5", Price.of(3, 15, 0.30, 3.75));
        Cost cost = table.cost("claude-sonnet-4-5-20250929", new Usage(1_000, 500, 10_000, 2_000));
        // 1000*3 + 500*15 + 10000*0.30 + 2000*3.75 = 3000 + 7500 + 3000 + 7500 = 21000 micro-dollars
        assertThat(cost.usd()).isEqualByComparingTo("0.021");
        assertThat(cost.unpricedTokens()).isZero();
        assertThat(cost.complete()).isTrue();
        assertThat(cost).isEqualTo(new Cost(new BigDecimal("0.0210000"), 0));
        assertThat(cost.usd().toPlainString()).isEqualTo("0.021");
        assertThat(new Cost(new BigDecimal("200"), 0).usd().toPlainString()).isEqualTo("200");
        Cost tiny = table.cost("claude-sonnet-4-5", Usage.of(1, 0));
        assertThat(tiny.usd()).isEqualByComparingTo("0.000003");
        assertThat(tiny.plus(tiny).plus(tiny).usd()).isEqualByComparingTo("0.000009");
    }

    @Test
    void tokensOfAnUnknownOrUnnamedModelAreCountedAsUnpriced() {
        PriceTable table = PriceTable.empty().with("gpt-4.1", Price.of(2, 8, 0.5, 2));
        Cost unknown = table.cost("my-local-llama", new Usage(100, 20, 5, 0));
        assertThat(unknown).isEqualTo(new Cost(BigDecimal.ZERO, 125));
        assertThat(unknown.complete()).isFalse();
        assertThat(table.cost(null, Usage.of(3, 4)).unpricedTokens()).isEqualTo(7);
        Cost total = table.cost("gpt-4.1", Usage.of(1_000_000, 0)).plus(unknown);
        assertThat(total.usd()).isEqualByComparingTo("2");
        assertThat(total.unpricedTokens()).isEqualTo(125);
        assertThat(table.cost("nothing", Usage.ZERO)).isEqualTo(Cost.ZERO);
    }

    @Test
    void overridesReplaceAndAddWithoutChangingTheOriginal() {
        PriceTable base = PriceTable.defaults();
        PriceTable mine = PriceTable.empty()
                .with("gpt-4.1", Price.of(1, 4, 0.25, 1))
                .with("my-model", Price.of(0.5, 1.5, 0.05, 0.6));
        PriceTable merged = base.withAll(mine);
        assertThat(merged.find("gpt-4.1")).contains(Price.of(1, 4, 0.25, 1));
        assertThat(merged.find("my-model")).contains(Price.of(0.5, 1.5, 0.05, 0.6));
        assertThat(merged.find("claude-haiku-4-5")).isEqualTo(base.find("claude-haiku-4-5"));
        assertThat(base.find("gpt-4.1")).contains(Price.of(2, 8, 0.50, 2));
        assertThat(base.find("my-model")).isEmpty();
        assertThat(base.withAll(PriceTable.empty())).isSameAs(base);
    }

    @Test
    void badPricesAndBadRowsAreNamed() {
        assertThatThrownBy(() -> Price.of(-1, 1, 1, 1))
                .hasMessage("Price.input must be zero or more, was -1.0");
        assertThatThrownBy(() -> Price.of(1, Double.NaN, 1, 1))
                .hasMessage("Price.output must be a finite number of zero or more, was NaN");
        assertThatThrownBy(() -> new Price(BigDecimal.ONE, BigDecimal.ONE, null, BigDecimal.ONE))
                .hasMessage("Price.cacheRead must not be null");
        assertThatThrownBy(() -> PriceTable.empty().with(" ", Price.of(1, 1, 1, 1)))
                .hasMessage("PriceTable.with needs a model id, got ' '");
        assertThatThrownBy(() -> parse("model,input,output,cache_read,cache_write\nm,1,2,x,4\n"))
                .hasMessage("test.csv line 2: cache_read must be a number, was 'x'");
        assertThatThrownBy(() -> parse("# note\nmodel,input,output,cache_read,cache_write\nm,1,2\n"))
                .hasMessage("test.csv line 3: expected 5 cells (model,input,output,cache_read,cache_write), got 3");
        assertThatThrownBy(() -> parse("model,input,output,cache_read,cache_write\nm,1,-2,0,0\n"))
                .hasMessage("test.csv line 2 (m): Price.output must be zero or more, was -2");
        assertThatThrownBy(() -> parse("model,in,out\n"))
                .hasMessage("test.csv line 1: the header must be 'model,input,output,cache_read,cache_write',"
                        + " was 'model,in,out'");
        assertThatThrownBy(() -> new Cost(BigDecimal.ONE, -1))
                .hasMessage("Cost.unpricedTokens must be zero or more, was -1");
    }
}
