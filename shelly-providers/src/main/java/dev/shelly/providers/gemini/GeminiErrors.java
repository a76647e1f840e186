package dev.shelly.providers.gemini;

import static dev.shelly.providers.internal.WireSupport.text;

import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.ModelException.Kind;
import dev.shelly.provider.spi.ErrorResponse;
import dev.shelly.providers.internal.WireSupport;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;

/**
 * Google's errors as failures: the error body of an HTTP error response, or an error object
 * after HTTP 200, with the retry delay and the daily quota its details may carry.
 */
final class GeminiErrors {
    private static final Pattern SECONDS = Pattern.compile("^(\\d+(?:\\.\\d+)?)s$");

    private final String provider;

    GeminiErrors(String provider) {
        this.provider = provider;
    }

    /** The fields of Google's error body: {@code {"error": {"code", "message", "status", "details"}}}. */
    private record ErrorFields(int code, String message, String status, JsonNode details) {}

    private static ErrorFields fields(JsonNode root) {
        JsonNode error = root == null ? null : root.get("error");
        if (error == null || !error.isObject()) {
            return new ErrorFields(0, null, null, null);
        }
        JsonNode code = error.get("code");
        return new ErrorFields(code != null && code.isIntegralNumber() ? code.asInt() : 0, text(error, "message"),
                text(error, "status"), error.get("details"));
    }

    /** An HTTP error response as the failure to throw. */
    ModelException error(ErrorResponse response) {
        ErrorFields f = fields(WireSupport.tryParse(response.body()));
        Kind kind = kind(f, response.status());
        ModelException.Builder b = response.toException(kind, f.message() != null ? f.message() : response.bodyExcerpt(),
                response.header("x-request-id").orElse(null));
        if (response.retryAfter().isEmpty()) {
            retryDelay(f.details()).ifPresent(b::retryAfter);
        }
        return b.build();
    }

    /** An error object that arrived with HTTP 200, in a stream or as the body. */
    ModelException inStreamError(JsonNode root) {
        ErrorFields f = fields(root);
        ModelException.Builder b = ModelException.builder(kind(f, 0)).provider(provider)
                .providerMessage(f.message() != null ? f.message() : "an error occurred during streaming");
        if (f.code() > 0) {
            b.status(f.code());
        }
        retryDelay(f.details()).ifPresent(b::retryAfter);
        return b.build();
    }

    /** The {@code google.rpc.RetryInfo} delay ({@code "retryDelay": "30s"}) of an error's details. */
    static Optional<Duration> retryDelay(JsonNode details) {
        if (details == null || !details.isArray()) {
            return Optional.empty();
        }
        for (JsonNode d : details) {
            String type = text(d, "@type");
            String delay = text(d, "retryDelay");
            if (type != null && type.endsWith("google.rpc.RetryInfo") && delay != null) {
                Matcher m = SECONDS.matcher(delay.strip());
                if (m.matches()) {
                    return Optional.of(Duration.ofNanos(Math.round(Double.parseDouble(m.group(1)) * 1e9)));
                }
            }
        }
        return Optional.empty();
    }

    /** Whether a {@code google.rpc.QuotaFailure} names a daily quota, which waiting a minute does not lift. */
    private static boolean dailyQuota(JsonNode details) {
        if (details == null || !details.isArray()) {
            return false;
        }
        for (JsonNode d : details) {
            JsonNode violations = d.get("violations");
            if (violations != null && violations.isArray()) {
                for (JsonNode v : violations) {
                    String id = text(v, "quotaId");
                    if (id != null && id.contains("PerDay")) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /** Whether the details carry {@code google.rpc.ErrorInfo} with this reason. */
    private static boolean reason(JsonNode details, String reason) {
        if (details == null || !details.isArray()) {
            return false;
        }
        for (JsonNode d : details) {
            if (reason.equals(text(d, "reason"))) {
                return true;
            }
        }
        return false;
    }

    private static Kind kind(ErrorFields f, int httpStatus) {
        int status = httpStatus != 0 ? httpStatus : f.code();
        String message = f.message() == null ? "" : f.message().toLowerCase(Locale.ROOT);
        String code = f.status() == null ? "" : f.status();
        if (reason(f.details(), "API_KEY_INVALID") || message.contains("api key not valid")
                || message.contains("api key expired") || code.equals("UNAUTHENTICATED")) {
            return Kind.AUTHENTICATION;
        }
        if (message.contains("exceeds the maximum number of tokens") || WireSupport.contextOverflow(null, null, message)) {
            return Kind.CONTEXT_LENGTH_EXCEEDED;
        }
        return switch (code) {
            case "INVALID_ARGUMENT", "FAILED_PRECONDITION", "OUT_OF_RANGE" -> Kind.INVALID_REQUEST;
            case "PERMISSION_DENIED" -> Kind.PERMISSION;
            case "NOT_FOUND" -> Kind.NOT_FOUND;
            case "RESOURCE_EXHAUSTED" -> dailyQuota(f.details()) ? Kind.QUOTA_EXCEEDED : Kind.RATE_LIMITED;
            case "UNAVAILABLE" -> Kind.OVERLOADED;
            case "DEADLINE_EXCEEDED" -> Kind.TIMEOUT;
            case "INTERNAL", "UNKNOWN", "ABORTED", "CANCELLED", "DATA_LOSS" -> Kind.SERVER;
            default -> status == 503 ? Kind.OVERLOADED : status == 0 ? Kind.SERVER : ErrorResponse.kindForStatus(status);
        };
    }
}
