package dev.shelly.modeladapter;

import java.util.regex.Pattern;

/**
 * The shape the model's answer must take: free text, or a JSON object following a schema.
 * Providers with native structured output send the schema as theirs; others force a tool whose
 * input is the answer (see the provider's README).
 */
public sealed interface ResponseFormat {

    /** Free text: the provider's default. */
    ResponseFormat TEXT = new Text();

    /**
     * A JSON object following a schema.
     *
     * @param name the schema's name: 1 to 64 letters, digits, '_' or '-'
     * @param schema the JSON Schema of an object, as text
     * @param strict whether the schema follows the strict rules
     * @return the format
     */
    static JsonSchema jsonSchema(String name, String schema, boolean strict) {
        return new JsonSchema(name, schema, strict);
    }

    /** Free text. */
    record Text() implements ResponseFormat {}

    /**
     * A JSON object following a schema.
     *
     * @param name the schema's name: 1 to 64 letters, digits, '_' or '-'
     * @param schema the JSON Schema text of an object (that it is an object is checked by the
     *     provider, which parses JSON)
     * @param strict the schema follows the strict rules: every property required,
     *     {@code additionalProperties: false} everywhere, no open maps
     */
    record JsonSchema(String name, String schema, boolean strict) implements ResponseFormat {
        private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");

        /** Validates the name and the schema. */
        public JsonSchema {
            if (name == null || !NAME.matcher(name).matches()) {
                throw new IllegalArgumentException("ResponseFormat.jsonSchema name "
                        + (name == null ? "null" : "'" + name + "'")
                        + " is invalid: use 1 to 64 letters, digits, '_' or '-'");
            }
            if (schema == null || schema.isBlank()) {
                throw new IllegalArgumentException("ResponseFormat.jsonSchema '" + name
                        + "': the schema must not be null or blank");
            }
        }
    }
}
