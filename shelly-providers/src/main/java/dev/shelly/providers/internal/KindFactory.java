package dev.shelly.providers.internal;

import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.spi.CompleterFactory;
import dev.shelly.modeladapter.spi.ProviderSettings;
import java.util.function.Function;

/**
 * A provider kind of this module: its name in configuration and how its builder reads the
 * settings (every kind reads those every HTTP provider shares, see
 * {@link dev.shelly.provider.spi.ProviderBuilder#build(ProviderSettings)}; some read their own
 * first). Each kind is a subclass that {@link java.util.ServiceLoader} finds.
 */
abstract class KindFactory implements CompleterFactory {
    private final String kind;
    private final Function<ProviderSettings, Completer> create;

    KindFactory(String kind, Function<ProviderSettings, Completer> create) {
        this.kind = kind;
        this.create = create;
    }

    @Override
    public final String kind() {
        return kind;
    }

    @Override
    public final Completer create(ProviderSettings settings) {
        return create.apply(settings);
    }
}
