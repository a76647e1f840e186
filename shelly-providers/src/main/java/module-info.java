/**
 * The providers Shelly ships: Anthropic, OpenAI (and compatible servers), Grok.
 */
module dev.shelly.providers {
    requires transitive dev.shelly.provider.spi;
    requires tools.jackson.databind;
    requires org.slf4j;

    exports dev.shelly.providers;
    exports dev.shelly.providers.anthropic;
    exports dev.shelly.providers.grok;
    exports dev.shelly.providers.openai;
}
