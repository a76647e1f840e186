package dev.shelly.provider.spi;

import dev.shelly.chats.internal.Redaction;
import dev.shelly.modeladapter.spi.InvalidSettingException;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * Where a provider's requests go and the key they carry: set in code, else read from the
 * provider's environment variables, else (the base URL) the provider's default. Every message
 * names the setter and the variable that could supply what is missing, never a key.
 */
final class Endpoint {
    private final String defaultBaseUrl;
    private final List<String> apiKeyVariables;
    private final String baseUrlVariable;
    String baseUrl;
    String apiKey;
    UnaryOperator<String> environment = System::getenv;

    Endpoint(String defaultBaseUrl, List<String> apiKeyVariables, String baseUrlVariable) {
        this.defaultBaseUrl = defaultBaseUrl;
        this.apiKeyVariables = List.copyOf(apiKeyVariables);
        this.baseUrlVariable = baseUrlVariable;
    }

    /** Whether the provider names an API-key variable: by default, whether it needs a key. */
    boolean hasKeyVariable() {
        return !apiKeyVariables.isEmpty();
    }

    /** A variable of the environment, stripped; empty when unset or blank. */
    Optional<String> environmentValue(String variable) {
        return Optional.ofNullable(blankToNull(environment.apply(variable)));
    }

    /** The API key from code, else from the first environment variable that holds one. */
    Optional<String> apiKey(String name) {
        if (apiKey != null) {
            return Optional.of(checkKey(name, apiKey, "apiKey(...)"));
        }
        for (String variable : apiKeyVariables) {
            String fromEnv = blankToNull(environment.apply(variable));
            if (fromEnv != null) {
                return Optional.of(checkKey(name, fromEnv, "the environment variable " + variable));
            }
        }
        return Optional.empty();
    }

    /** The API key, which must be given in code or by the environment. */
    String requireApiKey(String name) {
        return apiKey(name).orElseThrow(() -> new IllegalArgumentException(name + ": no API key: call apiKey(...)"
                + (apiKeyVariables.isEmpty() ? "" : " or set the environment variable "
                        + String.join(" or ", apiKeyVariables))));
    }

    /** The base URL from code, else from the environment variable, else the default. */
    String baseUrl(String name) {
        if (baseUrl != null) {
            return baseUrl;
        }
        String fromEnv = baseUrlVariable == null ? null : blankToNull(environment.apply(baseUrlVariable));
        if (fromEnv != null) {
            return fromEnv;
        }
        if (defaultBaseUrl == null) {
            throw new IllegalArgumentException(name + ": base URL must be set: call baseUrl(...)"
                    + (baseUrlVariable == null ? "" : " or set the environment variable " + baseUrlVariable));
        }
        return defaultBaseUrl;
    }

    /**
     * Checks, for settings read from configuration, that a base URL and (when required) a key
     * can be had, naming the field that lacks one.
     */
    void checkSettings(String name, boolean apiKeyRequired) {
        if (baseUrl == null && defaultBaseUrl == null
                && (baseUrlVariable == null || blankToNull(environment.apply(baseUrlVariable)) == null)) {
            throw new InvalidSettingException("base_url", "missing required field" + (baseUrlVariable == null ? ""
                    : "; set it, or the environment variable " + baseUrlVariable));
        }
        Optional<String> key;
        try {
            key = apiKey(name);
        } catch (IllegalArgumentException e) {
            throw new InvalidSettingException("api_key", e.getMessage());
        }
        if (key.isEmpty() && apiKeyRequired) {
            throw new InvalidSettingException("api_key", "no API key; set api_key"
                    + (apiKeyVariables.isEmpty() ? "" : ", or the environment variable "
                            + String.join(" or ", apiKeyVariables)));
        }
    }

    /** The base URL and key as a {@code toString} may show them: masked, the key never. */
    String describe() {
        return "baseUrl=" + (baseUrl != null ? Redaction.maskUrl(baseUrl) : "(environment or default)") + ", apiKey="
                + (apiKey != null ? "****" : "(environment)");
    }

    /** Refuses a key HTTP cannot carry, naming where it came from and never quoting it. */
    private static String checkKey(String name, String key, String source) {
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (c < 0x20 || c > 0x7e) {
                throw new IllegalArgumentException(name + ": the API key from " + source + " has a "
                        + (c > 0x7e ? "non-ASCII" : "control") + " character at index " + i
                        + " (a stray newline or quote?); the key is not shown");
            }
        }
        return key;
    }

    static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s.strip();
    }
}
