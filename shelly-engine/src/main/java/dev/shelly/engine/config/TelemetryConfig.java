package dev.shelly.engine.config;

import dev.shelly.modeladapter.spi.InvalidSettingException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code telemetry:} section of {@code config.yaml}: OpenTelemetry traces and metrics of every
 * session turn (GenAI semantic conventions), sent over OTLP. The OpenTelemetry SDK's own
 * autoconfiguration sets the SDK up from these settings; the {@code OTEL_*} environment variables
 * and {@code otel.*} system properties are read as usual and win over them. It takes effect through
 * {@code dev.shelly:shelly-otel}, which must be on the class path.
 *
 * <pre>{@code
 * telemetry:
 *   endpoint: http://collector.internal:4318   # OTLP endpoint; default: the SDK's (localhost)
 *   protocol: http/protobuf                    # or grpc; default: the SDK's (grpc)
 *   service_name: orders-assistant             # default: shelly
 *   headers:                                   # sent with every export; never printed
 *     authorization: Bearer ${OTLP_TOKEN}
 *   capture_content: false                     # prompts, replies, tool arguments and results; default false
 *   properties:                                # any other autoconfiguration property
 *     otel.traces.sampler: parentbased_traceidratio
 *     otel.traces.sampler.arg: "0.25"
 * }</pre>
 *
 * @param endpoint the OTLP endpoint, an http or https URL; null for the SDK's default
 * @param protocol {@code grpc} or {@code http/protobuf}; null for the SDK's default
 * @param serviceName the {@code service.name} of the resource; null for {@value #DEFAULT_SERVICE_NAME}
 * @param headers headers sent with every export, such as an API key; never printed
 * @param captureContent whether spans carry prompts, replies, tool arguments and results; null for false
 * @param properties further autoconfiguration properties, each named {@code otel.*}
 */
public record TelemetryConfig(String endpoint, String protocol, String serviceName, Map<String, String> headers,
        Boolean captureContent, Map<String, String> properties) {

    /** The service name when none is given. */
    public static final String DEFAULT_SERVICE_NAME = "shelly";

    /** Fills in the defaults and validates the fields; an error never repeats a header's value. */
    public TelemetryConfig {
        endpoint = Fields.httpUrl(endpoint, "endpoint");
        if (protocol != null && !protocol.equals("grpc") && !protocol.equals("http/protobuf")) {
            throw new InvalidSettingException("protocol", "must be 'grpc' or 'http/protobuf', was '" + protocol + "'");
        }
        serviceName = serviceName == null ? DEFAULT_SERVICE_NAME : Fields.notBlank(serviceName, "service_name").strip();
        headers = headers == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(headers));
        for (Map.Entry<String, String> h : headers.entrySet()) {
            if (h.getKey().isBlank() || h.getKey().contains("=") || h.getKey().contains(",")) {
                throw new InvalidSettingException("headers", "header name '" + h.getKey()
                        + "' must not be blank or hold '=' or ','");
            }
            if (h.getValue() == null || h.getValue().isBlank()) {
                throw new InvalidSettingException("headers." + h.getKey(), "must not be empty");
            }
        }
        captureContent = captureContent != null && captureContent;
        properties = properties == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(properties));
        for (Map.Entry<String, String> p : properties.entrySet()) {
            if (!p.getKey().startsWith("otel.")) {
                throw new InvalidSettingException("properties", "'" + p.getKey()
                        + "' is not an OpenTelemetry autoconfiguration property (they are named otel.*)");
            }
            if (p.getValue() == null) {
                throw new InvalidSettingException("properties." + p.getKey(), "must have a value");
            }
        }
    }

    /**
     * Telemetry with the SDK's defaults, to an OTLP endpoint.
     *
     * @param endpoint the OTLP endpoint, or null for the SDK's default
     * @return the configuration
     */
    public static TelemetryConfig of(String endpoint) {
        return new TelemetryConfig(endpoint, null, null, null, null, null);
    }

    /**
     * The autoconfiguration properties these settings stand for: {@code otel.exporter.otlp.*},
     * {@code otel.service.name} and the given {@code properties}, which win.
     *
     * @return the properties, by their {@code otel.*} names
     */
    public Map<String, String> autoconfigureProperties() {
        Map<String, String> all = new LinkedHashMap<>();
        all.put("otel.service.name", serviceName);
        if (endpoint != null) {
            all.put("otel.exporter.otlp.endpoint", endpoint);
        }
        if (protocol != null) {
            all.put("otel.exporter.otlp.protocol", protocol);
        }
        if (!headers.isEmpty()) {
            StringBuilder sb = new StringBuilder();
            for (Map.Entry<String, String> h : headers.entrySet()) {
                if (!sb.isEmpty()) {
                    sb.append(',');
                }
                sb.append(h.getKey()).append('=').append(java.net.URLEncoder.encode(h.getValue(),
                        java.nio.charset.StandardCharsets.UTF_8).replace("+", "%20"));
            }
            all.put("otel.exporter.otlp.headers", sb.toString());
        }
        all.putAll(properties);
        return Collections.unmodifiableMap(all);
    }

    @Override
    public String toString() {
        return "TelemetryConfig[endpoint=" + endpoint + ", protocol=" + protocol + ", serviceName=" + serviceName
                + ", headers=" + headers.keySet() + ", captureContent=" + captureContent + ", properties="
                + properties.keySet() + "]";
    }
}
