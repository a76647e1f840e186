/**
 * The providers Shelly ships: Anthropic, OpenAI (Chat Completions and Responses, and compatible
 * servers), Grok and Gemini.
 */
module dev.shelly.providers {
    requires transitive dev.shelly.provider.spi;
    requires tools.jackson.databind;
    requires org.slf4j;

    exports dev.shelly.providers.anthropic;
    exports dev.shelly.providers.gemini;
    exports dev.shelly.providers.grok;
    exports dev.shelly.providers.openai;

    // The provider kinds the engine's config names (anthropic, openai, openai-compatible, azure-openai, grok, gemini).
    provides dev.shelly.modeladapter.spi.CompleterFactory with
            dev.shelly.providers.internal.AnthropicFactory,
            dev.shelly.providers.internal.OpenAiFactory,
            dev.shelly.providers.internal.OpenAiCompatibleFactory,
            dev.shelly.providers.internal.AzureOpenAiFactory,
            dev.shelly.providers.internal.GrokFactory,
            dev.shelly.providers.internal.GeminiFactory;
}
