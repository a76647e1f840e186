package dev.shelly.providers.openai;

import java.util.List;

/**
 * The {@code openai-compatible} kind: any server speaking OpenAI's APIs (Ollama, vLLM,
 * llama.cpp, LM Studio). {@code base_url} is required, {@code api_key} optional, nothing is read
 * from the environment; {@code api: responses} for servers that speak the Responses API.
 */
public final class OpenAiCompatibleCompleterFactory extends OpenAiCompleterFactory {
    /** Found by {@link java.util.ServiceLoader}. */
    public OpenAiCompatibleCompleterFactory() {
        super("openai-compatible", OpenAiCompleter::compatible, List.of(), null);
    }
}
