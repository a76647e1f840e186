package dev.shelly.modeladapter.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProviderSettingsTest {

    private static ProviderSettings of(Map<String, Object> values) {
        return ProviderSettings.of("p", values, Map.of("KEY", "from-env")::get);
    }

    private static void fails(Runnable read, String message) {
        assertThatThrownBy(read::run).isInstanceOf(InvalidSettingException.class).hasMessage(message);
    }

    @Test
    void typedAccessorsConvertWhatTheyReasonablyCan() {
        ProviderSettings s = of(Map.of("model", " m ", "max", "4096", "t", 0.5, "timeout", "90s", "secs", 30,
                "flag", "true", "url", "https://h/v1", "headers", Map.of("X-A", "1"), "list", List.of("a", "b")));
        assertThat(s.string("model")).isEqualTo("m");
        assertThat(s.optionalInteger("max", 1)).contains(4096);
        assertThat(s.optionalNumber("t", 0, 2)).contains(0.5);
        assertThat(s.optionalDuration("timeout")).contains(Duration.ofSeconds(90));
        assertThat(s.optionalDuration("secs")).contains(Duration.ofSeconds(30));
        assertThat(s.optionalBoolean("flag")).contains(true);
        assertThat(s.optionalUrl("url")).contains("https://h/v1");
        assertThat(s.stringMap("headers")).containsExactly(Map.entry("X-A", "1"));
        assertThat(s.stringList("list")).containsExactly("a", "b");
        assertThat(s.optionalString("absent")).isEmpty();
        assertThat(s.environment("KEY")).contains("from-env");
        assertThat(s.unread()).isEmpty();
    }

    @Test
    void badAndMissingValuesNameTheirField() {
        ProviderSettings s = of(Map.of("max", "lots", "low", 0, "t", 3, "timeout", "soon", "url", "localhost:1234",
                "flag", "yes", "retry", Map.of("max_attempts", "x")));
        fails(() -> s.string("model"), "model: missing required field");
        fails(() -> s.optionalInteger("max", 1), "max: expected a whole number, got 'lots'");
        fails(() -> s.optionalInteger("low", 1), "low: expected a positive whole number, got 0");
        fails(() -> s.optionalNumber("t", 0, 2), "t: expected a number from 0.0 to 2.0, got 3");
        fails(() -> s.optionalDuration("timeout"), "timeout: expected a duration such as 500ms, 30s, 2m or 1h, got 'soon'");
        fails(() -> s.optionalUrl("url"), "url: expected an http or https URL, got 'localhost:1234'");
        fails(() -> s.optionalBoolean("flag"), "flag: expected true or false, got 'yes'");
        ProviderSettings retry = s.section("retry").orElseThrow();
        fails(() -> retry.integer("max_attempts", 1), "retry.max_attempts: expected a whole number, got 'x'");
    }

    @Test
    void secretsAreNeverQuoted() {
        Map<String, Object> fields = new java.util.LinkedHashMap<>(); // in file order, as the config binder gives them
        fields.put("api_key", List.of("sk-secret-1"));
        fields.put("base_url", "ftp://user:sk-secret-2@h/x?k=sk-secret-3");
        ProviderSettings s = of(fields);
        assertThatThrownBy(() -> s.secret("api_key")).hasMessage("api_key: expected a text value, got a list");
        assertThatThrownBy(() -> s.optionalUrl("base_url")).hasMessage("base_url: expected an http or https URL, got 'ftp://h/x'");
        assertThat(s.toString()).doesNotContain("sk-secret").isEqualTo("ProviderSettings[provider=p, fields=[api_key, base_url]]");
    }

    @Test
    void fieldsNeverAskedForAreUnread() {
        ProviderSettings s = of(Map.of("model", "m", "modle", "x", "retry", Map.of("max_attempts", 2, "max_atempts", 3)));
        s.string("model");
        s.section("retry").orElseThrow().integer("max_attempts", 1);
        s.optionalString("absent");
        assertThat(s.unread()).containsExactlyInAnyOrder("modle", "retry.max_atempts");
        assertThat(s.read()).containsExactly("absent", "model", "retry", "retry.max_attempts");
    }
}
