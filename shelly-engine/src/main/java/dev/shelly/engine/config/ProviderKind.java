package dev.shelly.engine.config;

import java.util.Locale;

/** The wire protocol a configured provider speaks. */
public enum ProviderKind {
    /** Anthropic's Messages API. */
    ANTHROPIC("anthropic"),
    /** OpenAI's Chat Completions API. */
    OPENAI("openai"),
    /** xAI's Grok, OpenAI-compatible at {@code https://api.x.ai/v1}. */
    GROK("grok"),
    /** Any server speaking OpenAI's Chat Completions: Ollama, vLLM, llama.cpp, LM Studio. */
    OPENAI_COMPATIBLE("openai-compatible");

    private final String configName;

    ProviderKind(String configName) {
        this.configName = configName;
    }

    /**
     * The name used in {@code config.yaml}.
     *
     * @return e.g. {@code openai-compatible}
     */
    public String configName() {
        return configName;
    }

    /**
     * Parses a configuration name.
     *
     * @param name e.g. {@code anthropic}
     * @return the kind
     * @throws IllegalArgumentException naming the known kinds
     */
    public static ProviderKind parse(String name) {
        String key = name == null ? "" : name.strip().toLowerCase(Locale.ROOT);
        for (ProviderKind kind : values()) {
            if (kind.configName.equals(key)) {
                return kind;
            }
        }
        throw new IllegalArgumentException("unknown provider kind '" + name
                + "'; expected one of anthropic, openai, grok, openai-compatible");
    }

    @Override
    public String toString() {
        return configName;
    }
}
