package dev.shelly.providers.gemini;

import dev.shelly.providers.internal.WireSupport;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Turns a JSON Schema into the subset of OpenAPI 3.0 schema that Gemini takes in a function's
 * {@code parameters} and in {@code responseSchema}, or says which keyword cannot be turned.
 *
 * <p>Kept as they are: {@code type}, {@code format} (only the formats Gemini knows:
 * {@code date-time}, {@code enum}, {@code int32}, {@code int64}, {@code float}, {@code double}),
 * {@code title}, {@code description}, {@code nullable}, {@code enum} (of strings),
 * {@code properties}, {@code required}, {@code items}, {@code anyOf}, {@code minItems},
 * {@code maxItems}, {@code minLength}, {@code maxLength}, {@code pattern}, {@code minimum},
 * {@code maximum}, {@code minProperties}, {@code maxProperties}, {@code example},
 * {@code default}, {@code propertyOrdering}.
 *
 * <p>Converted: a type list with {@code "null"} becomes the type with {@code nullable: true};
 * several types become {@code anyOf}; {@code oneOf} becomes {@code anyOf}; a {@code null} branch
 * of {@code anyOf} becomes {@code nullable}; a string {@code const} becomes a one-value
 * {@code enum}; an {@code allOf} of one schema is that schema; a non-recursive {@code $ref} into
 * {@code $defs} or {@code definitions} is inlined. Dropped, because they only annotate or only
 * narrow values the tool's own validation still checks: {@code $schema}, {@code $id},
 * {@code $comment}, {@code $defs}, {@code definitions}, {@code examples}, {@code deprecated},
 * {@code readOnly}, {@code writeOnly}, {@code additionalProperties}, {@code exclusiveMinimum},
 * {@code exclusiveMaximum}, {@code multipleOf}, {@code uniqueItems}, {@code contentEncoding},
 * {@code contentMediaType}, and unknown formats. Anything else ({@code not}, {@code if},
 * {@code patternProperties}, {@code prefixItems}, a recursive {@code $ref}, ...) is refused.
 */
final class GeminiSchema {
    /** What one conversion gives: the converted JSON text, or why it cannot be converted. */
    private record Result(String json, String refusal) {}

    private static final int MAX_ENTRIES = 1024;
    private static final Set<String> KEPT = Set.of("title", "description", "nullable", "properties", "required",
            "items", "minItems", "maxItems", "minLength", "maxLength", "pattern", "minimum", "maximum",
            "minProperties", "maxProperties", "example", "default", "propertyOrdering");
    private static final Set<String> DROPPED = Set.of("$schema", "$id", "$comment", "$defs", "definitions",
            "examples", "deprecated", "readOnly", "writeOnly", "additionalProperties", "exclusiveMinimum",
            "exclusiveMaximum", "multipleOf", "uniqueItems", "contentEncoding", "contentMediaType");
    private static final Set<String> FORMATS = Set.of("date-time", "enum", "int32", "int64", "float", "double");

    private final ConcurrentHashMap<String, Result> known = new ConcurrentHashMap<>();

    /** Thrown inside a conversion with the keyword and where it stands. */
    static final class Unsupported extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Unsupported(String message) {
            super(message, null, false, false);
        }
    }

    /**
     * The Gemini form of a schema.
     *
     * @param schema the JSON Schema text, already known to be one JSON object
     * @return the converted schema as compact JSON text
     * @throws Unsupported naming the keyword and its place ({@code properties.city}) when the
     *     schema uses what Gemini cannot take
     */
    String convert(String schema) {
        Result result = known.get(schema);
        if (result == null) {
            try {
                JsonNode root = WireSupport.JSON.readTree(schema);
                result = new Result(WireSupport.compact(convert(root, root, "", new HashSet<>())), null);
            } catch (Unsupported e) {
                result = new Result(null, e.getMessage());
            }
            if (known.size() >= MAX_ENTRIES) {
                known.clear();
            }
            known.put(schema, result);
        }
        if (result.refusal() != null) {
            throw new Unsupported(result.refusal());
        }
        return result.json();
    }

    private static ObjectNode convert(JsonNode node, JsonNode root, String at, Set<String> refs) {
        if (!node.isObject()) {
            throw new Unsupported("the schema " + where(at) + " is not an object");
        }
        ObjectNode out = WireSupport.JSON.createObjectNode();
        JsonNode ref = node.get("$ref");
        if (ref != null) {
            String target = ref.isString() ? ref.stringValue() : "";
            JsonNode resolved = resolve(root, target);
            if (resolved == null) {
                throw new Unsupported("'$ref' " + where(at) + " points to '" + target
                        + "', which is not under #/$defs or #/definitions");
            }
            if (refs.contains(target)) {
                throw new Unsupported("'$ref' " + where(at) + " to '" + target + "' is recursive, which Gemini's schema"
                        + " cannot express");
            }
            Set<String> inner = new HashSet<>(refs);
            inner.add(target);
            out.setAll(convert(resolved, root, at, inner));
        }
        for (Map.Entry<String, JsonNode> e : node.properties()) {
            String key = e.getKey();
            JsonNode value = e.getValue();
            String here = at.isEmpty() ? key : at + "." + key;
            switch (key) {
                case "$ref" -> { }
                case "type" -> type(out, value, here);
                case "format" -> {
                    if (value.isString() && FORMATS.contains(value.stringValue())) {
                        out.set("format", value);
                    }
                }
                case "enum" -> enumeration(out, value, here);
                case "const" -> {
                    if (!value.isString()) {
                        throw new Unsupported("'const' " + where(here) + " is not a string; Gemini's enum takes strings only");
                    }
                    out.set("enum", WireSupport.JSON.createArrayNode().add(value));
                }
                case "properties" -> {
                    if (!value.isObject()) {
                        throw new Unsupported("'properties' " + where(here) + " is not an object");
                    }
                    ObjectNode props = WireSupport.JSON.createObjectNode();
                    for (Map.Entry<String, JsonNode> p : value.properties()) {
                        props.set(p.getKey(), convert(p.getValue(), root, here + "." + p.getKey(), refs));
                    }
                    out.set("properties", props);
                }
                case "items" -> {
                    if (value.isArray()) {
                        throw new Unsupported("'items' " + where(here) + " is a list of schemas (a tuple), which Gemini's"
                                + " schema does not have");
                    }
                    out.set("items", convert(value, root, here, refs));
                }
                case "anyOf", "oneOf" -> anyOf(out, value, root, here, refs);
                case "allOf" -> {
                    if (!value.isArray() || value.size() != 1) {
                        throw new Unsupported("'allOf' " + where(here) + " combines several schemas, which Gemini's"
                                + " schema does not have");
                    }
                    out.setAll(convert(value.get(0), root, here + "[0]", refs));
                }
                default -> {
                    if (KEPT.contains(key)) {
                        out.set(key, value);
                    } else if (!DROPPED.contains(key)) {
                        throw new Unsupported("'" + key + "' " + where(here) + " is not part of Gemini's schema subset");
                    }
                }
            }
        }
        return out;
    }

    private static String where(String at) {
        return at.isEmpty() ? "at the top" : "at " + at;
    }

    private static JsonNode resolve(JsonNode root, String ref) {
        for (String prefix : List.of("#/$defs/", "#/definitions/")) {
            if (ref.startsWith(prefix)) {
                JsonNode defs = root.get(prefix.substring(2, prefix.length() - 1));
                JsonNode target = defs == null ? null : defs.get(ref.substring(prefix.length()));
                return target != null && target.isObject() ? target : null;
            }
        }
        return null;
    }

    /** {@code "type"}: a name, or a list whose {@code "null"} becomes {@code nullable}. */
    private static void type(ObjectNode out, JsonNode value, String at) {
        if (value.isString()) {
            if (value.stringValue().equals("null")) {
                out.put("nullable", true);
            } else {
                out.set("type", value);
            }
            return;
        }
        if (!value.isArray()) {
            throw new Unsupported("'type' " + where(at) + " is neither a name nor a list of names");
        }
        List<String> types = new ArrayList<>();
        boolean nullable = false;
        for (JsonNode t : value) {
            if (!t.isString()) {
                throw new Unsupported("'type' " + where(at) + " lists something that is not a name");
            }
            if (t.stringValue().equals("null")) {
                nullable = true;
            } else {
                types.add(t.stringValue());
            }
        }
        if (types.size() == 1) {
            out.put("type", types.getFirst());
        } else if (types.size() > 1) {
            ArrayNode any = WireSupport.JSON.createArrayNode();
            for (String t : types) {
                any.add(WireSupport.JSON.createObjectNode().put("type", t));
            }
            out.set("anyOf", any);
        }
        if (nullable) {
            out.put("nullable", true);
        }
    }

    private static void enumeration(ObjectNode out, JsonNode value, String at) {
        if (!value.isArray()) {
            throw new Unsupported("'enum' " + where(at) + " is not a list");
        }
        ArrayNode values = WireSupport.JSON.createArrayNode();
        for (JsonNode v : value) {
            if (v.isNull()) {
                out.put("nullable", true);
            } else if (v.isString()) {
                values.add(v);
            } else {
                throw new Unsupported("'enum' " + where(at) + " has the value " + v + "; Gemini's enum takes strings only");
            }
        }
        out.set("enum", values);
    }

    private static void anyOf(ObjectNode out, JsonNode value, JsonNode root, String at, Set<String> refs) {
        if (!value.isArray() || value.isEmpty()) {
            throw new Unsupported("'" + at.substring(at.lastIndexOf('.') + 1) + "' " + where(at) + " is not a list of schemas");
        }
        ArrayNode any = WireSupport.JSON.createArrayNode();
        for (int i = 0; i < value.size(); i++) {
            JsonNode branch = value.get(i);
            if (branch.isObject() && branch.size() == 1 && "null".equals(WireSupport.text(branch, "type"))) {
                out.put("nullable", true);
            } else {
                any.add(convert(branch, root, at + "[" + i + "]", refs));
            }
        }
        if (any.size() == 1) {
            out.setAll((ObjectNode) any.get(0));
        } else if (!any.isEmpty()) {
            out.set("anyOf", any);
        }
    }
}
