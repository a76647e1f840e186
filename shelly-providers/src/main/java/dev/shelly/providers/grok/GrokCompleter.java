package dev.shelly.providers.grok;

import dev.shelly.providers.openai.OpenAiCompleter;

/**
 * Completers for xAI's Grok, which speaks OpenAI's Chat Completions at
 * {@code https://api.x.ai/v1} with its own key ({@code XAI_API_KEY}) and base URL variable
 * ({@code XAI_BASE_URL}). Replies carry the provider name {@code grok}; reasoning that a model
 * returns in {@code reasoning_content} becomes a {@link dev.shelly.chats.Thinking} part, and
 * reasoning tokens, which xAI counts apart from completion tokens, are counted as output.
 *
 * <pre>{@code
 * Completer grok = GrokCompleter.builder().model("grok-4").build();   // key from XAI_API_KEY
 * }</pre>
 */
public final class GrokCompleter {
    /** The default base URL of xAI's API. */
    public static final String DEFAULT_BASE_URL = "https://api.x.ai/v1";

    /** xAI's profile: name {@code grok}, {@code XAI_API_KEY}, {@code XAI_BASE_URL}. */
    public static final OpenAiCompleter.Profile PROFILE = new OpenAiCompleter.Profile("grok", DEFAULT_BASE_URL,
            "XAI_API_KEY", "XAI_BASE_URL", true, "max_completion_tokens", 4, true);

    private GrokCompleter() {}

    /**
     * Starts a Grok completer.
     *
     * @return a builder with xAI's defaults
     */
    public static OpenAiCompleter.Builder builder() {
        return OpenAiCompleter.builder(PROFILE);
    }

    /**
     * A Grok completer for a model with the key and base URL from the environment.
     *
     * @param model the model, such as {@code grok-4}
     * @return the completer
     * @throws IllegalArgumentException when {@code XAI_API_KEY} is not set
     */
    public static OpenAiCompleter fromEnvironment(String model) {
        return builder().model(model).build();
    }
}
