/**
 * API: OpenTelemetry traces and metrics for Shelly's runs, following the OpenTelemetry GenAI
 * semantic conventions ({@link dev.shelly.otel.ShellyTelemetry}).
 */
package dev.shelly.otel;
