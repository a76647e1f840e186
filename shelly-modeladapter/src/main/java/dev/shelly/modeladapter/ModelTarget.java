package dev.shelly.modeladapter;

/**
 * What a {@link Completer} calls: the provider and the model it asks for, as logs and telemetry
 * name them before a call is made (the response then says which model answered).
 *
 * @param provider the provider's name, such as {@code anthropic} or {@code openai}; null when unknown
 * @param model the model asked for, such as {@code claude-sonnet-4-5}; null when unknown
 */
public record ModelTarget(String provider, String model) {

    /** A completer that cannot say what it calls (a test double, a router). */
    public static final ModelTarget UNKNOWN = new ModelTarget(null, null);

    /** Refuses blank names: a name is either known or null. */
    public ModelTarget {
        if (provider != null && provider.isBlank()) {
            throw new IllegalArgumentException("ModelTarget.provider must not be blank; use null when unknown");
        }
        if (model != null && model.isBlank()) {
            throw new IllegalArgumentException("ModelTarget.model must not be blank; use null when unknown");
        }
    }
}
