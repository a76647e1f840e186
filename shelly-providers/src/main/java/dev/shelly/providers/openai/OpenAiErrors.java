package dev.shelly.providers.openai;

import static dev.shelly.providers.internal.WireSupport.text;

import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.ModelException.Kind;
import dev.shelly.provider.spi.ErrorResponse;
import dev.shelly.providers.internal.WireSupport;
import java.util.Locale;
import java.util.Set;
import tools.jackson.databind.JsonNode;

/**
 * OpenAI-style errors as failures, for both APIs and every server that speaks them: the body
 * shapes of OpenAI, xAI, vLLM and others, as an HTTP error response or as an error object after
 * HTTP 200.
 */
final class OpenAiErrors {
    /** Error codes and types that mean the account is out of quota, credit or spend: never retried. */
    private static final Set<String> QUOTA_CODES = Set.of("insufficient_quota", "credit_balance_exhausted",
            "organization_spend_limit_exceeded", "project_spend_limit_exceeded", "organization_usage_limit_exceeded",
            "billing_hard_limit_reached", "billing_not_active");

    private OpenAiErrors() {}

    /** The fields of an error body in any of the shapes servers send. */
    private record ErrorFields(String message, String type, String code) {}

    private static ErrorFields fields(JsonNode root) {
        if (root == null || !root.isObject()) {
            return new ErrorFields(null, null, null);
        }
        JsonNode error = root.get("error");
        if (error != null && error.isObject()) { // OpenAI: {"error": {"message", "type", "code", "param"}}
            return new ErrorFields(text(error, "message"), text(error, "type"), code(error.get("code")));
        }
        if (error != null && error.isString()) { // xAI: {"code": "...", "error": "..."}
            return new ErrorFields(error.stringValue(), null, code(root.get("code")));
        }
        // vLLM before 0.16: {"object": "error", "message", "type", "code"}; others: {"message"}
        return new ErrorFields(text(root, "message"), text(root, "type"), code(root.get("code")));
    }

    private static String code(JsonNode code) {
        return code == null || code.isNull() ? null : code.isString() ? code.stringValue() : code.asString();
    }

    /**
     * An OpenAI-style error response as a failure: the same body shapes serve Chat Completions
     * and the Responses API.
     */
    static ModelException of(ErrorResponse response) {
        ErrorFields f = fields(WireSupport.tryParse(response.body()));
        Kind kind = kind(f, response.status());
        return response.toException(kind, f.message() != null ? f.message() : response.bodyExcerpt(),
                response.header("x-request-id").orElse(null)).build();
    }

    /** An OpenAI-style error object that came with HTTP 200, for any provider name. */
    static ModelException inStreamError(String provider, JsonNode root) {
        ErrorFields f = fields(root);
        return ModelException.builder(kind(f, 0)).provider(provider)
                .providerMessage(f.message() != null ? f.message() : "an error occurred during streaming")
                .build();
    }

    private static Kind kind(ErrorFields f, int status) {
        String message = f.message() == null ? "" : f.message().toLowerCase(Locale.ROOT);
        String type = f.type() == null ? "" : f.type();
        String code = f.code() == null ? "" : f.code();
        // xAI says it only in words, with HTTP 429 or 403: "Your team ... has either used all
        // available credits or reached its monthly spending limit."
        if (QUOTA_CODES.contains(code) || QUOTA_CODES.contains(type) || message.contains("used all available credits")
                || message.contains("monthly spending limit")) {
            return Kind.QUOTA_EXCEEDED;
        }
        if (WireSupport.contextOverflow(type, code, message)) {
            return Kind.CONTEXT_LENGTH_EXCEEDED;
        }
        if (message.startsWith("request too large")) {
            return Kind.INVALID_REQUEST; // larger than the per-minute limit itself: waiting never helps
        }
        if (code.equals("invalid_api_key") || message.startsWith("incorrect api key")) {
            return Kind.AUTHENTICATION;
        }
        if (code.equals("model_not_found")) {
            return Kind.NOT_FOUND;
        }
        if (status == 503 && (message.contains("overloaded") || message.contains("slow down")
                || code.contains("overloaded"))) {
            return Kind.OVERLOADED;
        }
        if (status != 0) {
            return ErrorResponse.kindForStatus(status);
        }
        if (code.matches("[45]\\d\\d")) {
            // An error after HTTP 200 that names the status it stands for (vLLM: "code": 400).
            return ErrorResponse.kindForStatus(Integer.parseInt(code));
        }
        return switch (type) {
            case "invalid_request_error" -> Kind.INVALID_REQUEST;
            case "authentication_error" -> Kind.AUTHENTICATION;
            case "rate_limit_error", "tokens", "requests" -> Kind.RATE_LIMITED;
            default -> code.equals("rate_limit_exceeded") ? Kind.RATE_LIMITED : Kind.SERVER;
        };
    }
}
