/**
 * OpenTelemetry traces and metrics for Shelly's runs, model calls and tool calls, following the
 * GenAI semantic conventions.
 */
// Parts of OpenTelemetry's SDK have no module descriptor: their automatic module names are stable.
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module dev.shelly.otel {
    requires transitive dev.shelly.agent;
    requires transitive io.opentelemetry.api;
    requires transitive io.opentelemetry.context;
    requires io.opentelemetry.sdk;
    requires io.opentelemetry.sdk.common;
    requires io.opentelemetry.sdk.autoconfigure;
    requires tools.jackson.databind;
    requires org.slf4j;

    exports dev.shelly.otel;
}
