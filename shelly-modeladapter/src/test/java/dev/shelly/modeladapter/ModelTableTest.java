package dev.shelly.modeladapter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.modeladapter.ModelTable.ContextWindow;
import dev.shelly.modeladapter.ModelTable.Entry;
import dev.shelly.modeladapter.ModelTable.Price;
import java.io.ByteArrayInputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ModelTableTest {
    private static final String HEADER = "model,context_window,max_output,input,output,cache_read,cache_write\n";

    private static ModelTable parse(String text) {
        return ModelTable.parse(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)), "test.csv");
    }

    @Test
    void anEntryCoversItsDatedVariantsAndTheLongestEntryWins() {
        ModelTable table = ModelTable.empty()
                .withPrice("gpt-5", Price.of(1.25, 10, 0.125, 1.25))
                .withPrice("gpt-5-mini", Price.of(0.25, 2, 0.025, 0.25));
        assertThat(table.price("gpt-5")).contains(Price.of(1.25, 10, 0.125, 1.25));
        assertThat(table.price("gpt-5-2025-08-07")).contains(Price.of(1.25, 10, 0.125, 1.25));
        assertThat(table.price("gpt-5-mini-2025-08-07")).contains(Price.of(0.25, 2, 0.025, 0.25));
        assertThat(table.price("gpt-50")).isEmpty();
        assertThat(table.price("gpt")).isEmpty();
        assertThat(table.price(null)).isEmpty();
        assertThat(table.window("gpt-5")).as("a table of prices knows no window").isEmpty();
    }

    @Test
    void anEntryWithOnlyAWindowDoesNotHideTheShorterEntrysPrice() {
        ModelTable table = ModelTable.empty()
                .withPrice("gpt-5", Price.of(1.25, 10, 0.125, 1.25))
                .withWindow("gpt-5-nano", ContextWindow.of(400_000));
        assertThat(table.window("gpt-5-nano-2025")).contains(ContextWindow.of(400_000));
        assertThat(table.window("gpt-5")).isEmpty();
        assertThat(table.price("gpt-5-nano-2025")).contains(Price.of(1.25, 10, 0.125, 1.25));
    }

    @Test
    void theDefaultsKnowEveryProvidersModelsTheirWindowsAndPrices() {
        ModelTable defaults = ModelTable.defaults();
        assertThat(defaults.price("claude-sonnet-4-5-20250929")).contains(Price.of(3, 15, 0.30, 3.75));
        assertThat(defaults.price("claude-haiku-4-5")).contains(Price.of(1, 5, 0.10, 1.25));
        assertThat(defaults.price("gpt-4.1-mini-2025-04-14")).contains(Price.of(0.40, 1.60, 0.10, 0.40));
        assertThat(defaults.price("grok-4-0709")).contains(Price.of(3, 15, 0.75, 3));
        assertThat(defaults.price("gemini-2.5-flash")).contains(Price.of(0.30, 2.50, 0.03, 0.30));
        assertThat(defaults.price("gemini-2.5-flash-lite")).as("not priced as gemini-2.5-flash")
                .contains(Price.of(0.10, 0.40, 0.01, 0.10));
        assertThat(defaults.price("gemini-3-pro-preview")).contains(Price.of(2, 12, 0.20, 2));
        assertThat(defaults.window("claude-sonnet-4-5-20250929")).contains(new ContextWindow(200_000, 64_000));
        assertThat(defaults.window("gpt-4o-mini-2024-07-18")).contains(new ContextWindow(128_000, 16_384));
        assertThat(defaults.window("gpt-5-mini")).contains(new ContextWindow(400_000, 128_000));
        assertThat(defaults.window("grok-4-0709")).contains(ContextWindow.of(256_000));
        assertThat(defaults.window("gemini-2.5-flash")).contains(new ContextWindow(1_048_576, 65_536));
        assertThat(defaults.window("claude-opus-5")).as("priced, no published window").isEmpty();
        assertThat(defaults.window("llama3.2")).isEmpty();
        assertThat(defaults.price("llama3.2")).isEmpty();
        assertThat(defaults.asMap()).hasSizeGreaterThanOrEqualTo(30);
    }

    @Test
    void costIsExactDecimalArithmeticOverEveryKindOfToken() {
        ModelTable table = ModelTable.empty().withPrice("claude-sonnet-4-5", Price.of(3, 15, 0.30, 3.75));
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
        ModelTable table = ModelTable.empty().withPrice("gpt-4.1", Price.of(2, 8, 0.5, 2))
                .withWindow("my-local-llama", ContextWindow.of(8_192));
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
    void overridesReplaceAndAddWhatTheyGiveWithoutChangingTheOriginal() {
        ModelTable base = ModelTable.defaults();
        ModelTable mine = ModelTable.empty()
                .withPrice("gpt-4.1", Price.of(1, 4, 0.25, 1))
                .withPrice("my-model", Price.of(0.5, 1.5, 0.05, 0.6))
                .withWindow("gpt-4o", ContextWindow.of(8_000))
                .withWindow("my-model", ContextWindow.of(4_096));
        ModelTable merged = base.withAll(mine);
        assertThat(merged.price("gpt-4.1")).contains(Price.of(1, 4, 0.25, 1));
        assertThat(merged.window("gpt-4.1")).as("a price override keeps the window").isEqualTo(base.window("gpt-4.1"));
        assertThat(merged.price("my-model")).contains(Price.of(0.5, 1.5, 0.05, 0.6));
        assertThat(merged.window("my-model")).contains(ContextWindow.of(4_096));
        assertThat(merged.window("gpt-4o-2024-08-06")).contains(ContextWindow.of(8_000));
        assertThat(merged.window("gpt-4o-mini")).contains(new ContextWindow(128_000, 16_384));
        assertThat(merged.price("claude-haiku-4-5")).isEqualTo(base.price("claude-haiku-4-5"));
        assertThat(base.price("gpt-4.1")).contains(Price.of(2, 8, 0.50, 2));
        assertThat(base.price("my-model")).isEmpty();
        assertThat(base.withAll(ModelTable.empty())).isSameAs(base);
        assertThat(mine.asMap().get("my-model"))
                .isEqualTo(new Entry(ContextWindow.of(4_096), Price.of(0.5, 1.5, 0.05, 0.6)));
    }

    @Test
    void aRowMayGiveAWindowAPriceOrBoth() {
        ModelTable table = parse(HEADER + "w,100,,,,,\np,,,1,2,0.1,1\nb,200,50,3,4,0.3,3\n");
        assertThat(table.window("w")).contains(ContextWindow.of(100));
        assertThat(table.price("w")).isEmpty();
        assertThat(table.window("p")).isEmpty();
        assertThat(table.price("p")).contains(Price.of(1, 2, 0.1, 1));
        assertThat(table.asMap().get("b")).isEqualTo(new Entry(new ContextWindow(200, 50), Price.of(3, 4, 0.3, 3)));
    }

    @Test
    void badPricesBadWindowsAndBadRowsAreNamed() {
        assertThatThrownBy(() -> Price.of(-1, 1, 1, 1))
                .hasMessage("Price.input must be zero or more, was -1.0");
        assertThatThrownBy(() -> Price.of(1, Double.NaN, 1, 1))
                .hasMessage("Price.output must be a finite number of zero or more, was NaN");
        assertThatThrownBy(() -> new Price(BigDecimal.ONE, BigDecimal.ONE, null, BigDecimal.ONE))
                .hasMessage("Price.cacheRead must not be null");
        assertThatThrownBy(() -> ModelTable.empty().withPrice(" ", Price.of(1, 1, 1, 1)))
                .hasMessage("ModelTable.withPrice needs a model id, got ' '");
        assertThatThrownBy(() -> ModelTable.empty().withWindow(" ", ContextWindow.of(1)))
                .hasMessage("ModelTable.withWindow needs a model id, got ' '");
        assertThatThrownBy(() -> ModelTable.empty().withWindow("m", null))
                .hasMessage("ModelTable.withWindow: the window of model 'm' must not be null");
        assertThatThrownBy(() -> parse(HEADER + "m,,,1,2,x,4\n"))
                .hasMessage("test.csv line 2: cache_read must be a number, was 'x'");
        assertThatThrownBy(() -> parse("# note\n" + HEADER + "m,1,2\n"))
                .hasMessage("test.csv line 3: expected 7 cells (" + HEADER.strip() + "), got 3");
        assertThatThrownBy(() -> parse(HEADER + "m,,,1,-2,0,0\n"))
                .hasMessage("test.csv line 2 (m): Price.output must be zero or more, was -2");
        assertThatThrownBy(() -> parse(HEADER + "m,,,1,2,,\n"))
                .hasMessage("test.csv line 2 (m): give all four prices (input, output, cache_read, cache_write) or none");
        assertThatThrownBy(() -> parse(HEADER + "m,,,,,,\n"))
                .hasMessage("test.csv line 2 (m): the row gives neither a context window nor a price");
        assertThatThrownBy(() -> parse(HEADER + "m,lots,1,,,,\n"))
                .hasMessage("test.csv line 2: context_window must be a whole number of tokens, was 'lots'");
        assertThatThrownBy(() -> parse(HEADER + "m,100,200,,,,\n"))
                .hasMessage("test.csv line 2 (m): ContextWindow.maxOutputTokens must be between 0 and tokens (100), was 200");
        assertThatThrownBy(() -> parse("model,in,out\n"))
                .hasMessage("test.csv line 1: the header must be '" + HEADER.strip() + "', was 'model,in,out'");
        assertThatThrownBy(() -> new Cost(BigDecimal.ONE, -1))
                .hasMessage("Cost.unpricedTokens must be zero or more, was -1");
    }
}
