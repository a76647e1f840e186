package dev.shelly.provider.spi;

import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.ModelException.Kind;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Completes a context overflow with what the provider's message says about it: the model asked
 * for, the request's size and the context window, read from the phrasings the supported APIs and
 * servers use.
 */
final class ContextOverflow {
    private static final String N = "(\\d[\\d,]*)";

    /** A phrasing, and which of its groups are the request's size and the window (0: not said). */
    private record Phrase(Pattern pattern, int request, int window) {
        Phrase(String regex, int request, int window) {
            this(Pattern.compile(regex), request, window);
        }
    }

    private static final List<Phrase> PHRASES = List.of(
            // llama.cpp's server, on both its OpenAI- and Anthropic-compatible endpoints
            new Phrase("request \\(" + N + " tokens\\) exceeds the available context size \\(" + N + " tokens\\)", 1, 2),
            // Anthropic
            new Phrase("prompt is too long: " + N + " tokens > " + N + " maximum", 1, 2),
            // Gemini
            new Phrase("input token count \\(" + N + "\\) exceeds the maximum number of tokens allowed \\(" + N + "\\)", 1, 2),
            // OpenAI and vLLM: "maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens"
            new Phrase("maximum context length is " + N + " tokens", 0, 1),
            new Phrase("(?:resulted in|you requested) " + N + " tokens", 1, 0));
    /** Anthropic, when the input fits but not with the output asked for: "N + M > L". */
    private static final Pattern WITH_OUTPUT = Pattern.compile("exceed context limit: " + N + " \\+ " + N + " > " + N);

    private ContextOverflow() {}

    /**
     * A failure with the model and the sizes filled in where it is a context overflow that does
     * not name them yet.
     *
     * @param e the failure
     * @param model the model the request asked for, or null
     * @return {@code e} itself when it is another kind or nothing was learned, else an equal
     *     failure with the facts added
     */
    static ModelException complete(ModelException e, String model) {
        if (e.kind() != Kind.CONTEXT_LENGTH_EXCEEDED) {
            return e;
        }
        String text = e.providerMessage().orElse("").toLowerCase(Locale.ROOT);
        long request = e.requestTokens().orElse(-1);
        long window = e.contextWindow().orElse(-1);
        for (Phrase p : PHRASES) {
            Matcher m = p.pattern().matcher(text);
            if (m.find()) {
                if (request < 0 && p.request() > 0) {
                    request = number(m.group(p.request()));
                }
                if (window < 0 && p.window() > 0) {
                    window = number(m.group(p.window()));
                }
            }
        }
        Matcher m = WITH_OUTPUT.matcher(text);
        if (m.find()) {
            request = request < 0 ? number(m.group(1)) + number(m.group(2)) : request;
            window = window < 0 ? number(m.group(3)) : window;
        }
        boolean named = e.model().isPresent() || model == null;
        if (named && request == e.requestTokens().orElse(-1) && window == e.contextWindow().orElse(-1)) {
            return e;
        }
        ModelException.Builder b = e.toBuilder().cause(e.getCause());
        if (!named) {
            b.model(model);
        }
        if (request > 0) {
            b.requestTokens(request);
        }
        if (window > 0) {
            b.contextWindow(window);
        }
        ModelException copy = b.build();
        copy.setStackTrace(e.getStackTrace());
        for (Throwable s : e.getSuppressed()) {
            copy.addSuppressed(s);
        }
        return copy;
    }

    private static long number(String digits) {
        try {
            return Long.parseLong(digits.replace(",", ""));
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
