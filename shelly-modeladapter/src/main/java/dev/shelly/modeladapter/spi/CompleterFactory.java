package dev.shelly.modeladapter.spi;

import dev.shelly.modeladapter.Completer;

/**
 * Builds the {@link Completer} of one kind of provider from its settings: the plug-in point for
 * providers. Whatever reads configuration (the engine's {@code config.yaml}) finds every factory
 * on the class path with {@link java.util.ServiceLoader} and picks the one whose {@link #kind()}
 * a provider names; a new kind, Shelly's or your own, needs no change anywhere else.
 *
 * <p>To add a kind: implement this interface in a public class with a public no-argument
 * constructor, and name the class in {@code META-INF/services/dev.shelly.modeladapter.spi.CompleterFactory}
 * (and, on the module path, {@code provides dev.shelly.modeladapter.spi.CompleterFactory with ...}).
 *
 * <pre>{@code
 * public final class EchoFactory implements CompleterFactory {
 *     public String kind() { return "echo"; }
 *     public Completer create(ProviderSettings settings) {
 *         String prefix = settings.optionalString("prefix").orElse("> ");
 *         int repeat = settings.optionalInteger("repeat", 1).orElse(1);
 *         return new EchoCompleter(settings.string("model"), prefix, repeat);
 *     }
 * }
 * }</pre>
 *
 * <p>{@link #create} reads every setting the kind understands through the settings' typed
 * accessors: a missing or wrong one is thrown by them as an {@link InvalidSettingException} naming
 * its field, which the engine reports with the file, line and path of that field. A setting the
 * factory never reads is reported as an unknown field. The engine applies {@code retry} and
 * {@code rate_limit} around the completer itself and counts its usage; the factory does not see
 * them.
 */
public interface CompleterFactory {

    /**
     * The kind this factory builds, as configuration names it.
     *
     * @return e.g. {@code anthropic} or {@code openai-compatible}: lower case, no spaces
     */
    String kind();

    /**
     * Builds a completer. It must not call the network: connections are made at the first call.
     *
     * @param settings the provider's settings, read through their typed accessors
     * @return the completer
     * @throws InvalidSettingException naming the field when a setting is missing or wrong
     */
    Completer create(ProviderSettings settings);
}
