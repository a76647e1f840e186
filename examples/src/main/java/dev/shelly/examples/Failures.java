package dev.shelly.examples;

import dev.shelly.chats.ShellyException;
import dev.shelly.modeladapter.ModelException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * Says in one line why a program failed: a provider's error by its kind (a rejected key, an
 * unreachable endpoint, a missing model, a rate limit), an agent's limit or guardrail, an MCP
 * server that did not start, a setting that is missing.
 *
 * <pre>{@code
 * try {
 *     agent.run(prompt);
 * } catch (RuntimeException e) {
 *     System.err.println("error: " + Failures.reason(e, models));
 * }
 * }</pre>
 */
public final class Failures {
    private static final int MAX_LENGTH = 400;

    private Failures() {}

    /**
     * The reason a run failed, on one line without a stack trace.
     *
     * @param failure what the run threw
     * @param models the model the run used, to say where a provider failure came from
     * @return the reason, e.g. {@code cannot reach openai-compatible at http://localhost:11434/v1:
     *     Failed to connect to localhost/127.0.0.1:11434; is the server running?}
     */
    public static String reason(Throwable failure, ExampleModels models) {
        Throwable t = unwrap(failure);
        String reason = switch (t) {
            case ModelException m -> model(m, models);
            case CancellationException c -> "cancelled" + (c.getMessage() == null ? "" : ": " + c.getMessage());
            case ShellyException s -> message(s);
            case IllegalArgumentException e -> message(e);
            case IllegalStateException e -> message(e);
            default -> t.getClass().getSimpleName() + (t.getMessage() == null ? "" : ": " + t.getMessage())
                    + " (set SHELLY_DEBUG=1 for the stack trace)";
        };
        return clip(ConsoleView.oneLine(reason));
    }

    private static Throwable unwrap(Throwable t) {
        Throwable current = t;
        while ((current instanceof ExecutionException || current instanceof CompletionException)
                && current.getCause() != null) {
            current = current.getCause();
        }
        return current;
    }

    private static String model(ModelException e, ExampleModels models) {
        String provider = e.provider().orElse(models.provider().kind());
        String said = e.providerMessage().map(m -> ": " + m).orElse("");
        String status = e.status() > 0 ? " (HTTP " + e.status() + ")" : "";
        String where = models.baseUrl().map(u -> " at " + u).orElse("");
        String key = models.provider().apiKeyVariable().orElse("the API key");
        return switch (e.kind()) {
            case AUTHENTICATION -> provider + " rejected the API key" + status + said + "; check " + key;
            case PERMISSION -> provider + " refused access to model " + models.model() + status + said;
            case RATE_LIMITED -> provider + " is rate limiting requests" + status + said + "; try again later";
            case QUOTA_EXCEEDED -> provider + ": the account's quota or credit is used up" + status + said;
            case OVERLOADED -> provider + " is overloaded" + status + said + "; try again later";
            case CONTEXT_LENGTH_EXCEEDED -> "the conversation is too long for " + e.model().orElse(models.model())
                    + sizes(e) + status + said + e.advice().map(a -> "; " + a).orElse("");
            case INVALID_REQUEST -> provider + " refused the request" + status + said;
            case NOT_FOUND -> provider + " has no model " + models.model() + where + status + said
                    + "; set SHELLY_MODEL to a model it serves";
            // A status means the server answered, then cut the stream: it was reached.
            case NETWORK -> e.status() > 0 ? provider + where + status + said + "; try again"
                    : "cannot reach " + provider + where + said
                            + (models.provider() == ExampleModels.Provider.OPENAI_COMPATIBLE ? "; is the server running?" : "");
            case TIMEOUT -> provider + where + " did not answer in time" + status + said;
            case INVALID_RESPONSE -> provider + " sent a reply that cannot be read" + status + said;
            case SERVER -> provider + " failed on its side" + status + said + "; try again later";
            case CONTENT_FILTER -> provider + "'s content filter refused the request" + status + said;
        };
    }

    /** What a context overflow said of the sizes: {@code (2574 tokens; its context window: 2048 tokens)}. */
    private static String sizes(ModelException e) {
        String request = e.requestTokens().isPresent() ? e.requestTokens().getAsLong() + " tokens" : null;
        String window = e.contextWindow().isPresent() ? "its context window: " + e.contextWindow().getAsLong() + " tokens"
                : null;
        if (request == null && window == null) {
            return "";
        }
        return " (" + (request == null ? window : window == null ? request : request + "; " + window) + ")";
    }

    private static String message(Throwable t) {
        return t.getMessage() == null || t.getMessage().isBlank() ? t.getClass().getSimpleName() : t.getMessage();
    }

    private static String clip(String s) {
        return s.length() <= MAX_LENGTH ? s : s.substring(0, MAX_LENGTH - 1) + "…";
    }
}
