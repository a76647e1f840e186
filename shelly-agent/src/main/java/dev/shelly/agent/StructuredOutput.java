package dev.shelly.agent;

import dev.shelly.chats.Message;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.ResponseFormat;
import dev.shelly.modeladapter.StopReason;
import dev.shelly.tools.RecordBinder;
import java.util.List;

/**
 * A model answer as a Java record: the response format to ask for, and the check and binding of
 * the answer.
 *
 * <p>{@link #format()} is a JSON-schema {@link ResponseFormat} made from the record as typed
 * tools' schemas are, in its strict form when the record allows one (no {@code Map} or
 * {@code JsonNode} component). A provider sends it natively where it can (OpenAI's
 * {@code response_format}, Anthropic's structured outputs) or through a forced tool; which one is
 * the provider's business. {@link #bind(ModelResponse)} checks the answer against the schema that
 * was sent and binds it, accepting an answer wrapped in a Markdown code fence; a mismatch carries
 * the problems, each naming the field ({@code $.done is required}), and whether a corrective turn
 * ({@link #correction(List)}) can help. The agent's {@code run(prompt, MyRecord.class)} uses this
 * class; a workflow step can use it directly with a {@code Completer}. Immutable and thread-safe.
 *
 * @param <T> the record type
 */
public final class StructuredOutput<T extends Record> {
    /** The sender of the corrective user turn that follows a mismatching answer. */
    public static final String SENDER = "output-check";

    private final RecordBinder<T> binder;
    private final ResponseFormat.JsonSchema format;

    private StructuredOutput(RecordBinder<T> binder) {
        this.binder = binder;
        String strict = binder.strictSchema().orElse(null);
        this.format = ResponseFormat.jsonSchema(formatName(binder.type()), strict != null ? strict : binder.schema(),
                strict != null);
    }

    /**
     * The structured output of a record type.
     *
     * @param type the record type
     * @param <T> the record type
     * @return the structured output
     * @throws IllegalArgumentException when the type is null, not a record, or has a component
     *     without a JSON form (naming the component)
     */
    public static <T extends Record> StructuredOutput<T> of(Class<T> type) {
        if (type == null) {
            throw new IllegalArgumentException("StructuredOutput.of needs a record type, got null");
        }
        return new StructuredOutput<>(RecordBinder.of(type));
    }

    /**
     * The record type.
     *
     * @return the type
     */
    public Class<T> type() {
        return binder.type();
    }

    /**
     * The response format to request: named after the record's simple name (characters outside
     * letters, digits, {@code _} and {@code -} become {@code _}, at most 64), with the strict
     * schema when the record has one, else the plain schema with {@code strict} false.
     *
     * @return the format
     */
    public ResponseFormat.JsonSchema format() {
        return format;
    }

    /**
     * Checks and binds a model's answer.
     *
     * <p>A refusal and an answer cut off at the max-tokens limit are mismatches that a corrective
     * turn cannot fix. Otherwise the reply's text, unwrapped from a Markdown code fence, is
     * checked against the schema sent and bound; a problem there is correctable.
     *
     * @param response the model's response
     * @return the bound value, or the mismatch
     */
    public Binding<T> bind(ModelResponse response) {
        Message message = response.message();
        String answer = message.text();
        if (response.stopReason() == StopReason.REFUSAL) {
            return new Binding.Mismatch<>(answer, List.of("the model refused: " + answer.strip()), false);
        }
        if (response.stopReason() == StopReason.MAX_TOKENS) {
            return new Binding.Mismatch<>(answer, List.of("the answer was cut off at the max-tokens limit"), false);
        }
        RecordBinder.Result<T> result = binder.bind(unfence(answer.strip()), format.strict());
        if (result instanceof RecordBinder.Result.Ok<T> ok) {
            return new Binding.Bound<>(ok.value());
        }
        return new Binding.Mismatch<>(answer, ((RecordBinder.Result.Invalid<T>) result).problems(), true);
    }

    /**
     * The corrective user turn after a mismatching answer, for example:
     * {@code Your answer does not match the required JSON schema: $.done is required. Answer again
     * with only a JSON object that matches the schema.}
     *
     * @param problems what did not match
     * @return the message's text
     */
    public String correction(List<String> problems) {
        return "Your answer does not match the required JSON schema: " + String.join("; ", problems)
                + ". Answer again with only a JSON object that matches the schema.";
    }

    @Override
    public String toString() {
        return "StructuredOutput[" + binder.type().getName() + (format.strict() ? ", strict]" : "]");
    }

    /** The content of a Markdown code fence around the whole answer, or the answer itself. */
    static String unfence(String text) {
        if (!text.startsWith("```") || !text.endsWith("```") || text.length() < 6) {
            return text;
        }
        int firstLineEnd = text.indexOf('\n');
        if (firstLineEnd < 0) {
            return text.substring(3, text.length() - 3).strip();
        }
        return text.substring(firstLineEnd + 1, text.length() - 3).strip();
    }

    private static String formatName(Class<?> type) {
        String simple = type.getSimpleName();
        StringBuilder name = new StringBuilder(Math.min(simple.length(), 64));
        for (int i = 0; i < simple.length() && name.length() < 64; i++) {
            char c = simple.charAt(i);
            boolean plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'
                    || c == '-';
            name.append(plain ? c : '_');
        }
        return name.isEmpty() ? "output" : name.toString();
    }

    /**
     * What {@link #bind} made of an answer.
     *
     * @param <T> the record type
     */
    public sealed interface Binding<T> {
        /**
         * The answer fits.
         *
         * @param value the bound record
         * @param <T> the record type
         */
        record Bound<T>(T value) implements Binding<T> {}

        /**
         * The answer does not fit.
         *
         * @param answer the answer's text as the model gave it
         * @param problems what does not fit, one message per problem
         * @param correctable whether a corrective turn may help (false for a refusal or a cut-off answer)
         * @param <T> the record type
         */
        record Mismatch<T>(String answer, List<String> problems, boolean correctable) implements Binding<T> {
            /** Copies the problems. */
            public Mismatch {
                problems = List.copyOf(problems);
            }
        }
    }
}
