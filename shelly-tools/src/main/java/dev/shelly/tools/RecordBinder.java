package dev.shelly.tools;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The JSON Schema of a record type and the binding of a model's JSON answer to it: what
 * structured output is built on.
 *
 * <p>{@link #schema()} is the schema typed tools declare ({@link JsonSchemas#forRecord}).
 * {@link #strictSchema()} is the same schema reshaped for the providers' strict structured
 * output rules: every property is listed as required, a component that may be left out
 * ({@code Optional}, {@code @Nullable}) instead accepts {@code null}, {@code uniqueItems} is
 * dropped, and only the string formats those rules allow are kept. A {@code Map} or
 * {@code JsonNode} component is an open object, which strict rules forbid; such a record has no
 * strict schema. {@link #bind} checks an answer against the schema that was sent and binds it as
 * typed tools bind their input. Immutable and thread-safe.
 *
 * @param <T> the record type
 */
public final class RecordBinder<T extends Record> {
    private static final Set<String> STRICT_FORMATS = Set.of("date-time", "date", "time", "duration", "email",
            "hostname", "ipv4", "ipv6", "uuid");

    private final Class<T> type;
    private final String schema;
    private final SchemaCheck check;
    private final String strictSchema;
    private final SchemaCheck strictCheck;

    private RecordBinder(Class<T> type) {
        this.type = type;
        ObjectNode tree = JsonSchemas.schemaOf(type);
        this.schema = Json.MAPPER.writeValueAsString(tree);
        this.check = SchemaCheck.parse(schema);
        ObjectNode strict = tree.deepCopy();
        if (strict(strict)) {
            this.strictSchema = Json.MAPPER.writeValueAsString(strict);
            this.strictCheck = SchemaCheck.parse(strictSchema);
        } else {
            this.strictSchema = null;
            this.strictCheck = null;
        }
    }

    /**
     * A binder for a record type.
     *
     * @param type the record type
     * @param <T> the record type
     * @return the binder
     * @throws IllegalArgumentException when the type is not a record or a component has no JSON
     *     form (naming the component, as {@link JsonSchemas#forRecord} does)
     */
    public static <T extends Record> RecordBinder<T> of(Class<T> type) {
        return new RecordBinder<>(type);
    }

    /**
     * The record type.
     *
     * @return the type
     */
    public Class<T> type() {
        return type;
    }

    /**
     * The record's JSON Schema, the one typed tools declare.
     *
     * @return the schema text
     */
    public String schema() {
        return schema;
    }

    /**
     * The schema reshaped for strict structured output: every property required, a component
     * that may be left out accepting {@code null} instead, no {@code uniqueItems}, and only the
     * formats date-time, date, time, duration, email, hostname, ipv4, ipv6 and uuid.
     *
     * @return the strict schema text, or empty when a {@code Map} or {@code JsonNode} component
     *     makes an open object, which strict rules do not allow
     */
    public Optional<String> strictSchema() {
        return Optional.ofNullable(strictSchema);
    }

    /**
     * Checks a JSON answer against the schema that was sent and binds it to the record.
     *
     * @param json the answer text
     * @param strict whether the strict schema was sent (ignored when there is none)
     * @return the bound value, or every problem found, each naming the field by its path
     *     ({@code $.done is required}, {@code $.members[0] must be a string})
     */
    public Result<T> bind(String json, boolean strict) {
        JsonNode node;
        try {
            node = Json.MAPPER.readTree(json == null ? "" : json);
        } catch (JacksonException e) {
            return new Result.Invalid<>(List.of("the answer is not valid JSON (" + e.getOriginalMessage() + ")"));
        }
        if (node == null || node.isMissingNode()) {
            return new Result.Invalid<>(List.of("the answer is empty; a JSON object was expected"));
        }
        SchemaCheck against = strict && strictCheck != null ? strictCheck : check;
        List<String> problems = against.problems(node);
        if (!problems.isEmpty()) {
            return new Result.Invalid<>(problems);
        }
        try {
            return new Result.Ok<>(Json.MAPPER.treeToValue(node, type));
        } catch (JacksonException e) {
            return new Result.Invalid<>(List.of(TypedToolHandler.path(e) + ": "
                    + TypedToolHandler.firstLine(e.getOriginalMessage())));
        }
    }

    @Override
    public String toString() {
        return "RecordBinder[" + type.getName() + "]";
    }

    /**
     * What {@link #bind} made of an answer.
     *
     * @param <T> the record type
     */
    public sealed interface Result<T> {
        /**
         * The answer fits and was bound.
         *
         * @param value the bound record
         * @param <T> the record type
         */
        record Ok<T>(T value) implements Result<T> {}

        /**
         * The answer does not fit.
         *
         * @param problems what does not fit, one message per problem, never empty
         * @param <T> the record type
         */
        record Invalid<T>(List<String> problems) implements Result<T> {
            /** Copies the problems. */
            public Invalid {
                problems = List.copyOf(problems);
                if (problems.isEmpty()) {
                    throw new IllegalArgumentException("RecordBinder.Result.Invalid needs at least one problem");
                }
            }
        }
    }

    /** Reshapes a schema tree in place for strict rules; false when it contains an open object. */
    private static boolean strict(JsonNode node) {
        if (!(node instanceof ObjectNode schema)) {
            return true;
        }
        if (schema.isEmpty()) {
            return false; // JsonNode: any value
        }
        schema.remove("uniqueItems");
        JsonNode format = schema.get("format");
        if (format != null && !(format.isString() && STRICT_FORMATS.contains(format.asString()))) {
            schema.remove("format");
        }
        JsonNode additional = schema.get("additionalProperties");
        if (additional != null && !(additional.isBoolean() && !additional.asBoolean())) {
            return false; // Map<String, V>: an open object
        }
        if (schema.get("items") != null && !strict(schema.get("items"))) {
            return false;
        }
        if (schema.get("properties") instanceof ObjectNode properties) {
            List<String> required = new ArrayList<>();
            if (schema.get("required") instanceof ArrayNode listed) {
                for (JsonNode name : listed) {
                    required.add(name.asString());
                }
            }
            ArrayNode all = Json.MAPPER.createArrayNode();
            for (Map.Entry<String, JsonNode> property : properties.properties()) {
                if (!strict(property.getValue())) {
                    return false;
                }
                if (!required.contains(property.getKey()) && property.getValue() instanceof ObjectNode value) {
                    acceptNull(value);
                }
                all.add(property.getKey());
            }
            schema.set("required", all);
        }
        return true;
    }

    /** Lets a property schema accept null: adds "null" to its type and enum, once. */
    private static void acceptNull(ObjectNode schema) {
        JsonNode type = schema.get("type");
        if (type != null && type.isString() && !type.asString().equals("null")) {
            schema.set("type", Json.MAPPER.createArrayNode().add(type.asString()).add("null"));
            if (schema.get("enum") instanceof ArrayNode values) {
                values.addNull();
            }
        }
    }
}
