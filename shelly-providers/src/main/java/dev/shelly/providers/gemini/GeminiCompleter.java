package dev.shelly.providers.gemini;

import dev.shelly.modeladapter.Completer;
import dev.shelly.provider.spi.Auth;
import dev.shelly.provider.spi.HttpCompleter;
import dev.shelly.provider.spi.ProviderBuilder;
import dev.shelly.provider.spi.WireFormat;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A completer for Google's Gemini API: {@code POST <base>/v1beta/models/<model>:generateContent},
 * and {@code :streamGenerateContent?alt=sse} for streams, with the key in
 * {@code x-goog-api-key}.
 *
 * <p>System messages become {@code systemInstruction}; the assistant is the {@code model} role;
 * tool results go back as {@code functionResponse} parts (the text under {@code output}, or
 * {@code error} for a failed tool) ahead of the user's own parts; images are
 * {@code inlineData} (bytes, data URLs) or {@code fileData} (other URLs). Tool schemas are turned
 * into the OpenAPI subset Gemini takes, or refused naming the tool and the keyword. Thought
 * signatures come back as {@link dev.shelly.chats.Thinking} parts and are sent back on the very
 * part they came on. Function calls without an id get a deterministic one, never sent back.
 *
 * <pre>{@code
 * Completer gemini = GeminiCompleter.builder().model("gemini-2.5-flash").build();  // key from GEMINI_API_KEY
 * }</pre>
 */
public final class GeminiCompleter extends HttpCompleter {
    /** The default base URL; the API version ({@code v1beta}) is added unless the base URL names one. */
    public static final String DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com";
    /** The API version used when the base URL names none. */
    public static final String API_VERSION = "v1beta";
    /** The header that carries the key. */
    public static final String KEY_HEADER = "x-goog-api-key";
    private static final Pattern VERSIONED = Pattern.compile(".*/v\\d+(alpha|beta)?\\d*/?$");

    private GeminiCompleter(HttpCompleter assembled) {
        super(assembled);
    }

    /**
     * Starts a completer; the key comes from {@code GEMINI_API_KEY} (or {@code GOOGLE_API_KEY})
     * and the base URL from {@code GEMINI_BASE_URL} unless set in code.
     *
     * @return a builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * A completer for a model with everything else from the environment and the defaults.
     *
     * @param model the model, such as {@code gemini-2.5-flash}
     * @return the completer
     * @throws IllegalArgumentException when neither {@code GEMINI_API_KEY} nor
     *     {@code GOOGLE_API_KEY} is set
     */
    public static GeminiCompleter fromEnvironment(String model) {
        return builder().model(model).build();
    }

    /** Configures a {@link GeminiCompleter}. */
    public static final class Builder extends ProviderBuilder<Builder> {
        private Builder() {
            super("gemini", DEFAULT_BASE_URL, List.of("GEMINI_API_KEY", "GOOGLE_API_KEY"), "GEMINI_BASE_URL");
        }

        /**
         * The wire format these settings give, without any HTTP: to see the exact request body a
         * chat becomes, or to parse a reply. Needs no key.
         *
         * @return the format
         * @throws IllegalArgumentException when the model is not set
         */
        public WireFormat wireFormat() {
            String base = resolveBaseUrl();
            String path = base.contains("?") ? base.substring(0, base.indexOf('?')) : base;
            return new GeminiFormat(providerName(), requireModel(), VERSIONED.matcher(path).matches() ? ""
                    : API_VERSION + "/", defaults());
        }

        @Override
        public GeminiCompleter build() {
            WireFormat format = wireFormat();
            return new GeminiCompleter(assemble(format, Auth.header(KEY_HEADER, requireApiKey()), Map.of(),
                    "GeminiCompleter[name=" + providerName() + ", model=" + requireModel() + ", baseUrl=" + maskedBaseUrl()
                            + "]"));
        }
    }
}
