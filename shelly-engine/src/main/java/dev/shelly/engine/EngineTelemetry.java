package dev.shelly.engine;

import dev.shelly.agent.RunObserver;
import dev.shelly.engine.config.ConfigException;
import dev.shelly.engine.config.EngineConfig;
import dev.shelly.modeladapter.FallbackCompleter.FallbackListener;
import dev.shelly.modeladapter.RetryingCompleter.RetryListener;
import dev.shelly.otel.ShellyTelemetry;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the engine does with telemetry, in types every engine has: the observer of its turns, the
 * {@code _meta} of its MCP calls, the retry listener of the providers it builds. The only class of
 * the engine that names {@code shelly-otel}'s types, and it is loaded only when telemetry is on, so
 * an engine without that module on its class path runs as before.
 */
final class EngineTelemetry {
    private static final Logger LOG = LoggerFactory.getLogger(EngineTelemetry.class);
    private static final String OTEL_CLASS = "dev.shelly.otel.ShellyTelemetry";

    /** No telemetry. */
    static final EngineTelemetry OFF = new EngineTelemetry(null, null, RetryListener.NONE, FallbackListener.NONE, null);

    /** The observer of every turn, or null when off. */
    final RunObserver observer;
    /** The entries of each MCP call's {@code _meta}, or null when off. */
    final Supplier<Map<String, Object>> mcpMeta;
    /** Counts the retries of the providers the engine builds. */
    final RetryListener retries;
    /** Counts and marks the fallbacks between the providers the engine builds. */
    final FallbackListener fallbacks;
    private final AutoCloseable owned;

    private EngineTelemetry(RunObserver observer, Supplier<Map<String, Object>> mcpMeta, RetryListener retries,
            FallbackListener fallbacks, AutoCloseable owned) {
        this.observer = observer;
        this.mcpMeta = mcpMeta;
        this.retries = retries;
        this.fallbacks = fallbacks;
        this.owned = owned;
    }

    /** Telemetry the application gave in code; it stays the application's to close. */
    static EngineTelemetry given(ShellyTelemetry telemetry) {
        return new EngineTelemetry(telemetry, telemetry::mcpMeta, telemetry.retryListener(), telemetry.fallbackListener(), null);
    }

    /** Telemetry of the {@code telemetry:} section, on an autoconfigured SDK the engine closes. */
    static EngineTelemetry configured(EngineConfig.Telemetry settings, EngineConfig config) {
        try {
            Class.forName(OTEL_CLASS, false, EngineTelemetry.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            throw config.errorAt("telemetry", "the telemetry section needs dev.shelly:shelly-otel on the class path");
        }
        ShellyTelemetry telemetry;
        try {
            telemetry = ShellyTelemetry.autoConfigured(settings.autoconfigureProperties())
                    .captureContent(settings.captureContent()).build();
        } catch (RuntimeException e) {
            // The SDK's message names the property; the properties' values (headers) are not repeated.
            ConfigException error = config.errorAt("telemetry", "OpenTelemetry could not be set up: " + e.getMessage());
            error.initCause(e);
            throw error;
        }
        LOG.info("telemetry on: OTLP to {} as service '{}'{}", settings.endpoint() == null ? "the SDK's default endpoint"
                : settings.endpoint(), settings.serviceName(), settings.captureContent() ? ", with content" : "");
        return new EngineTelemetry(telemetry, telemetry::mcpMeta, telemetry.retryListener(), telemetry.fallbackListener(), telemetry);
    }

    /** Shuts down an SDK the engine made, exporting what is buffered. */
    void close() {
        if (owned == null) {
            return;
        }
        try {
            owned.close();
        } catch (Exception e) {
            LOG.warn("closing telemetry failed: {}", e.toString());
        }
    }
}
