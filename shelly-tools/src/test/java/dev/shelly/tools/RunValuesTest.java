package dev.shelly.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RunValuesTest {
    private static final RunValues.Key<String> TENANT = RunValues.Key.of("tenant", String.class);
    private static final RunValues.Key<Integer> LIMIT = RunValues.Key.of("limit", Integer.class);

    @Test
    void valuesAreTypedAndCopiedOnChange() {
        RunValues one = RunValues.EMPTY.with(TENANT, "acme");
        RunValues two = one.with(LIMIT, 3).with(TENANT, "globex");

        assertThat(one.get(TENANT)).contains("acme");
        assertThat(one.get(LIMIT)).isEmpty();
        assertThat(two.require(TENANT)).isEqualTo("globex");
        assertThat(two.require(LIMIT)).isEqualTo(3);
        assertThat(two.asMap()).containsOnlyKeys(TENANT, LIMIT);
        assertThat(RunValues.EMPTY.isEmpty()).isTrue();
    }

    @Test
    void aMissingValueIsNamed() {
        assertThatThrownBy(() -> RunValues.EMPTY.require(TENANT)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("no run value 'tenant'");
    }

    @Test
    void toStringShowsKeysNotValues() {
        assertThat(RunValues.EMPTY.with(TENANT, "secret-tenant")).hasToString("RunValues[tenant]");
    }

    @Test
    void badInputIsNamed() {
        assertThatThrownBy(() -> RunValues.EMPTY.with(TENANT, null))
                .hasMessage("RunValues.with value of 'tenant' must not be null");
        assertThatThrownBy(() -> RunValues.Key.of(" ", String.class))
                .hasMessage("RunValues.Key name must not be null or blank");
    }

    @Test
    void theOldToolContextConstructorHasNoRunAndNoValues() {
        ToolContext c = new ToolContext("a", "lead", 1);

        assertThat(c.runId()).isNull();
        assertThat(c.parentRunId()).isNull();
        assertThat(c.sessionId()).isNull();
        assertThat(c.values()).isSameAs(RunValues.EMPTY);
        assertThatThrownBy(() -> new ToolContext("a", null, 0, "run_1", null, "s", null))
                .hasMessage("ToolContext.values must not be null; use RunValues.EMPTY");
    }
}
