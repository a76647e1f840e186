package dev.shelly.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.examples.ExampleModels.Provider;
import dev.shelly.modeladapter.RetryingCompleter.RetryListener;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The choice of model, from fake environments only. */
class ExampleModelsTest {

    @Test
    void withoutKeyOrUrlTheModelIsScripted() {
        ExampleModels models = ExampleModels.select(Map.of("SHELLY_MODEL", "ignored", "HOME", "/home/x"));

        assertThat(models.provider()).isEqualTo(Provider.SCRIPTED);
        assertThat(models.scripted()).isTrue();
        assertThat(models.baseUrl()).isEmpty();
        assertThat(models.banner()).isEqualTo(
                "[scripted model: no AZURE_OPENAI_API_KEY, ANTHROPIC_API_KEY, OPENAI_API_KEY, XAI_API_KEY, GEMINI_API_KEY or"
                        + " OPENAI_BASE_URL set; see README]");
        assertThatThrownBy(() -> models.open(RetryListener.NONE, null))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("set AZURE_OPENAI_API_KEY, ANTHROPIC_API_KEY, OPENAI_API_KEY, XAI_API_KEY, GEMINI_API_KEY or "
                        + "OPENAI_BASE_URL");
    }

    @Test
    void azureOpenAiComesFirstWhenItsKeyAndEndpointAreSet() {
        Map<String, String> env = Map.of("AZURE_OPENAI_API_KEY", "azure-secret", "AZURE_OPENAI_ENDPOINT",
                "https://contoso.openai.azure.com", "ANTHROPIC_API_KEY", "sk-ant-secret");
        ExampleModels models = ExampleModels.select(env);

        assertThat(models.provider()).isEqualTo(Provider.AZURE_OPENAI);
        assertThat(models.model()).isEqualTo("gpt-4o-mini");
        assertThat(models.banner()).isEqualTo("[model: azure-openai gpt-4o-mini at https://contoso.openai.azure.com; "
                + "fallback: anthropic claude-sonnet-4-5 at https://api.anthropic.com]");
        assertThat(models.open(RetryListener.NONE, null).toString()).isEqualTo("FallbackCompleter[azure-openai, anthropic]");
        assertThat(ExampleModels.select(Map.of("AZURE_OPENAI_API_KEY", "azure-secret", "AZURE_OPENAI_ENDPOINT",
                "https://contoso.openai.azure.com")).open(RetryListener.NONE, null).toString())
                .doesNotContain("azure-secret").contains("path=openai/v1/chat/completions");
        assertThat(ExampleModels.select(Map.of("AZURE_OPENAI_API_KEY", "k", "ANTHROPIC_API_KEY", "a")).provider())
                .as("a key without an endpoint is not Azure").isEqualTo(Provider.ANTHROPIC);
        assertThatThrownBy(() -> ExampleModels.select(Map.of("SHELLY_PROVIDER", "azure-openai", "AZURE_OPENAI_API_KEY", "k")))
                .hasMessage("SHELLY_PROVIDER is azure-openai but AZURE_OPENAI_ENDPOINT is not set "
                        + "(e.g. https://<resource>.openai.azure.com)");
    }

    @Test
    void anthropicComesFirstAndItsBannerNeverShowsTheKey() {
        ExampleModels models = ExampleModels.select(Map.of(
                "ANTHROPIC_API_KEY", "sk-ant-secret", "OPENAI_API_KEY", "sk-openai", "XAI_API_KEY", "xai-key",
                "OPENAI_BASE_URL", "http://localhost:11434/v1"));

        assertThat(models.provider()).isEqualTo(Provider.ANTHROPIC);
        assertThat(models.model()).isEqualTo("claude-sonnet-4-5");
        assertThat(models.baseUrl()).contains("https://api.anthropic.com");
        assertThat(models.banner()).isEqualTo("[model: anthropic claude-sonnet-4-5 at https://api.anthropic.com; fallback: openai gpt-4o-mini at "
                + "http://localhost:11434/v1; fallback: grok grok-4 at https://api.x.ai/v1]");
        assertThat(models.open(RetryListener.NONE, null).toString()).doesNotContain("sk-ant-secret");
    }

    @Test
    void eachProviderTakesItsOwnBaseUrlVariable() {
        assertThat(ExampleModels.select(Map.of("ANTHROPIC_API_KEY", "k", "ANTHROPIC_BASE_URL", "http://proxy:8080"))
                .baseUrl()).contains("http://proxy:8080");
        assertThat(ExampleModels.select(Map.of("XAI_API_KEY", "k", "XAI_BASE_URL", "http://xai-proxy/v1"))
                .baseUrl()).contains("http://xai-proxy/v1");
        assertThat(ExampleModels.select(Map.of("ANTHROPIC_API_KEY", "k", "OPENAI_BASE_URL", "http://other/v1"))
                .baseUrl()).contains("https://api.anthropic.com");
    }

    @Test
    void openAiComesBeforeGrokAndHonoursItsBaseUrl() {
        ExampleModels models = ExampleModels.select(Map.of(
                "OPENAI_API_KEY", "sk-openai", "XAI_API_KEY", "xai-key", "OPENAI_BASE_URL", "http://gateway/v1"));

        assertThat(models.provider()).isEqualTo(Provider.OPENAI);
        assertThat(models.model()).isEqualTo("gpt-4o-mini");
        assertThat(models.baseUrl()).contains("http://gateway/v1");
        assertThat(models.banner()).isEqualTo("[model: openai gpt-4o-mini at http://gateway/v1; fallback: grok grok-4 at https://api.x.ai/v1]");
    }

    @Test
    void grokWithItsKeyAlone() {
        ExampleModels models = ExampleModels.select(Map.of("XAI_API_KEY", "xai-key"));

        assertThat(models.provider()).isEqualTo(Provider.GROK);
        assertThat(models.model()).isEqualTo("grok-4");
        assertThat(models.baseUrl()).contains("https://api.x.ai/v1");
    }

    @Test
    void aBaseUrlWithoutKeyIsAnOpenAiCompatibleServer() {
        ExampleModels models = ExampleModels.select(Map.of("OPENAI_BASE_URL", "http://localhost:11434/v1"));

        assertThat(models.provider()).isEqualTo(Provider.OPENAI_COMPATIBLE);
        assertThat(models.model()).isEqualTo("llama3.2");
        assertThat(models.banner()).isEqualTo("[model: openai-compatible llama3.2 at http://localhost:11434/v1]");
        assertThat(models.open(RetryListener.NONE, null).toString()).contains("http://localhost:11434/v1");
    }

    @Test
    void shellyModelNamesTheModel() {
        assertThat(ExampleModels.select(Map.of("OPENAI_BASE_URL", "http://localhost:8000/v1", "SHELLY_MODEL", " qwen3:8b "))
                .model()).isEqualTo("qwen3:8b");
        assertThat(ExampleModels.select(Map.of("ANTHROPIC_API_KEY", "k", "SHELLY_MODEL", "claude-haiku-4-5"))
                .banner()).isEqualTo("[model: anthropic claude-haiku-4-5 at https://api.anthropic.com]");
    }

    @Test
    void blankVariablesCountAsUnset() {
        ExampleModels models = ExampleModels.select(Map.of("ANTHROPIC_API_KEY", " ", "OPENAI_API_KEY", "",
                "XAI_API_KEY", "x", "SHELLY_MODEL", "  "));

        assertThat(models.provider()).isEqualTo(Provider.GROK);
        assertThat(models.model()).isEqualTo("grok-4");
    }

    @Test
    void shellyProviderPicksOneOfSeveral() {
        Map<String, String> all = Map.of("ANTHROPIC_API_KEY", "a", "OPENAI_API_KEY", "o", "XAI_API_KEY", "x",
                "OPENAI_BASE_URL", "http://localhost:11434/v1");

        assertThat(ExampleModels.select(with(all, "grok")).provider()).isEqualTo(Provider.GROK);
        assertThat(ExampleModels.select(with(all, "XAI")).provider()).isEqualTo(Provider.GROK);
        assertThat(ExampleModels.select(with(all, "openai-compatible")).provider()).isEqualTo(Provider.OPENAI_COMPATIBLE);
        assertThat(ExampleModels.select(with(all, " Scripted ")).scripted()).isTrue();
    }

    @Test
    void shellyProviderWithoutItsSettingsSaysWhatIsMissing() {
        assertThatThrownBy(() -> ExampleModels.select(Map.of("SHELLY_PROVIDER", "anthropic", "OPENAI_API_KEY", "o")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("SHELLY_PROVIDER is anthropic but ANTHROPIC_API_KEY is not set");
        assertThatThrownBy(() -> ExampleModels.select(Map.of("SHELLY_PROVIDER", "openai-compatible")))
                .hasMessage("SHELLY_PROVIDER is openai-compatible but OPENAI_BASE_URL is not set "
                        + "(e.g. http://localhost:11434/v1 for Ollama)");
        assertThatThrownBy(() -> ExampleModels.select(Map.of("SHELLY_PROVIDER", "gemini")))
                .hasMessage("SHELLY_PROVIDER is gemini but neither GEMINI_API_KEY nor GOOGLE_API_KEY is set");
        assertThatThrownBy(() -> ExampleModels.select(Map.of("SHELLY_PROVIDER", "bard")))
                .hasMessage("SHELLY_PROVIDER is 'bard'; expected azure-openai, anthropic, openai, grok, gemini, openai-compatible or scripted");
    }

    @Test
    void geminiWithItsKeyOrGooglesComesAfterGrokAndBeforeAKeylessServer() {
        ExampleModels models = ExampleModels.select(Map.of("GEMINI_API_KEY", "g-key",
                "OPENAI_BASE_URL", "http://localhost:11434/v1"));

        assertThat(models.provider()).isEqualTo(Provider.GEMINI);
        assertThat(models.model()).isEqualTo("gemini-2.5-flash");
        assertThat(models.baseUrl()).contains("https://generativelanguage.googleapis.com");
        assertThat(models.banner()).isEqualTo("[model: gemini gemini-2.5-flash at https://generativelanguage.googleapis.com; fallback: openai-compatible llama3.2 at "
                        + "http://localhost:11434/v1]");
        assertThat(models.open(RetryListener.NONE, null).toString()).doesNotContain("g-key");
        assertThat(ExampleModels.select(Map.of("GOOGLE_API_KEY", "g", "GEMINI_BASE_URL", "http://gemini-proxy"))
                .describe()).isEqualTo("gemini gemini-2.5-flash at http://gemini-proxy");
        assertThat(ExampleModels.select(Map.of("XAI_API_KEY", "x", "GEMINI_API_KEY", "g")).provider())
                .isEqualTo(Provider.GROK);
        assertThat(ExampleModels.select(Map.of("SHELLY_PROVIDER", "gemini", "XAI_API_KEY", "x", "GOOGLE_API_KEY", "g"))
                .provider()).isEqualTo(Provider.GEMINI);
    }

    private static Map<String, String> with(Map<String, String> env, String provider) {
        Map<String, String> copy = new HashMap<>(env);
        copy.put("SHELLY_PROVIDER", provider);
        return copy;
    }
}
