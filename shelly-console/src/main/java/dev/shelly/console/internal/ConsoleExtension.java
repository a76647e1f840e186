package dev.shelly.console.internal;

import dev.shelly.console.Console;
import dev.shelly.engine.Engine;
import dev.shelly.engine.config.EngineConfig;

/** Starts the console of a configuration's {@code console:} section when the engine is built. */
public final class ConsoleExtension implements Engine.Extension {
    /** Made by the service loader. */
    public ConsoleExtension() {}

    @Override
    public String section() {
        return "console";
    }

    @Override
    public AutoCloseable start(Engine engine) {
        EngineConfig.Console settings = engine.config().console().orElseThrow();
        Console.Options.Builder options = Console.Options.builder().port(settings.port()).bind(settings.bind());
        if (settings.token() != null) {
            options.token(settings.token());
        }
        return Console.start(engine, options.build());
    }
}
