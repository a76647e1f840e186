package dev.shelly.tools;

import java.math.BigDecimal;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * Checks a JSON value against a JSON Schema and says, per field, what does not fit.
 *
 * <p>It understands the keywords {@link JsonSchemas} emits and the common ones of hand-written
 * schemas: type, enum, const, properties, required, additionalProperties, patternProperties,
 * min/maxProperties, dependentRequired (and draft-07 array dependencies), items, prefixItems,
 * min/maxItems, uniqueItems, min/maxLength, pattern, minimum, maximum, exclusiveMinimum,
 * exclusiveMaximum (numeric and draft-04 boolean), multipleOf, allOf, anyOf, oneOf, not,
 * if/then/else and local {@code $ref}s ({@code #/...}). Any other keyword is ignored, so a value
 * is never rejected for a rule this class does not know. Thread-safe.
 */
final class SchemaCheck {
    private static final Set<String> TYPES = Set.of("string", "number", "integer", "boolean", "object", "array", "null");
    private static final Pattern PLAIN_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    private static final int MAX_REF_DEPTH = 64;
    private static final int MAX_SHOWN = 120;

    private final JsonNode root;
    private final Map<String, Pattern> patterns = new ConcurrentHashMap<>();

    private SchemaCheck(JsonNode root) {
        this.root = root;
    }

    /**
     * Parses a schema.
     *
     * @param schemaText the schema as JSON text
     * @return the check
     * @throws IllegalArgumentException when the text is not JSON or not a schema (an object or a boolean)
     */
    static SchemaCheck parse(String schemaText) {
        JsonNode node;
        try {
            node = Json.MAPPER.readTree(schemaText);
        } catch (JacksonException e) {
            throw new IllegalArgumentException("is not valid JSON (" + e.getOriginalMessage() + ")", e);
        }
        if (node == null || !(node.isObject() || node.isBoolean())) {
            throw new IllegalArgumentException("must be a JSON object, got "
                    + (node == null ? "nothing" : describe(node)));
        }
        return new SchemaCheck(node);
    }

    /**
     * What does not fit, one message per problem, each naming the field by its path ({@code $.a.b[2]}).
     *
     * @param value the value to check
     * @return the problems, empty when the value fits
     */
    List<String> problems(JsonNode value) {
        List<String> out = new ArrayList<>();
        check(root, value, "$", out, 0);
        return out;
    }

    private void check(JsonNode schema, JsonNode value, String path, List<String> out, int refDepth) {
        if (schema.isBoolean()) {
            if (!schema.asBoolean()) {
                out.add(path + " is not allowed");
            }
            return;
        }
        if (!schema.isObject()) {
            return;
        }
        JsonNode ref = schema.get("$ref");
        if (ref != null && ref.isString() && refDepth < MAX_REF_DEPTH) {
            JsonNode target = resolve(ref.asString());
            if (target != null) {
                check(target, value, path, out, refDepth + 1);
            }
        }
        if (!checkType(schema, value, path, out)) {
            return;
        }
        checkValues(schema, value, path, out);
        if (value.isString()) {
            checkString(schema, value.asString(), path, out);
        } else if (value.isNumber()) {
            checkNumber(schema, value, path, out);
        } else if (value.isArray()) {
            checkArray(schema, value, path, out, refDepth);
        } else if (value.isObject()) {
            checkObject(schema, value, path, out, refDepth);
        }
        checkCombinations(schema, value, path, out, refDepth);
    }

    private static boolean checkType(JsonNode schema, JsonNode value, String path, List<String> out) {
        JsonNode type = schema.get("type");
        if (type == null) {
            return true;
        }
        List<String> allowed = new ArrayList<>();
        if (type.isString()) {
            allowed.add(type.asString());
        } else if (type.isArray()) {
            for (JsonNode t : type) {
                if (t.isString()) {
                    allowed.add(t.asString());
                }
            }
        }
        allowed.retainAll(TYPES);
        if (allowed.isEmpty() || allowed.stream().anyMatch(t -> hasType(value, t))) {
            return true;
        }
        List<String> named = allowed.stream().map(SchemaCheck::withArticle).toList();
        out.add(path + " must be " + String.join(" or ", named) + ", got " + describe(value));
        return false;
    }

    private static void checkValues(JsonNode schema, JsonNode value, String path, List<String> out) {
        JsonNode allowed = schema.get("enum");
        if (allowed != null && allowed.isArray()) {
            boolean found = false;
            List<String> shown = new ArrayList<>();
            for (JsonNode candidate : allowed) {
                found |= same(candidate, value);
                shown.add(candidate.toString());
            }
            if (!found) {
                out.add(path + " must be one of " + String.join(", ", shown) + ", got " + show(value));
            }
        }
        JsonNode constant = schema.get("const");
        if (constant != null && !same(constant, value)) {
            out.add(path + " must be " + show(constant) + ", got " + show(value));
        }
    }

    private void checkString(JsonNode schema, String text, String path, List<String> out) {
        int length = text.codePointCount(0, text.length());
        JsonNode min = schema.get("minLength");
        if (min != null && min.isNumber() && length < min.asDouble()) {
            out.add(path + " must be at least " + count(min, "character") + " long, got " + length);
        }
        JsonNode max = schema.get("maxLength");
        if (max != null && max.isNumber() && length > max.asDouble()) {
            out.add(path + " must be at most " + count(max, "character") + " long, got " + length);
        }
        JsonNode pattern = schema.get("pattern");
        if (pattern != null && pattern.isString()) {
            Pattern compiled = pattern(pattern.asString());
            if (compiled != null && !compiled.matcher(text).find()) {
                out.add(path + " must match the pattern " + pattern + ", got " + show(text));
            }
        }
    }

    private static void checkNumber(JsonNode schema, JsonNode value, String path, List<String> out) {
        BigDecimal number = value.decimalValue();
        JsonNode minimum = schema.get("minimum");
        JsonNode maximum = schema.get("maximum");
        JsonNode exclusiveMinimum = schema.get("exclusiveMinimum");
        JsonNode exclusiveMaximum = schema.get("exclusiveMaximum");
        boolean draft4ExclusiveMin = exclusiveMinimum != null && exclusiveMinimum.isBoolean() && exclusiveMinimum.asBoolean();
        boolean draft4ExclusiveMax = exclusiveMaximum != null && exclusiveMaximum.isBoolean() && exclusiveMaximum.asBoolean();
        if (minimum != null && minimum.isNumber()) {
            int c = number.compareTo(minimum.decimalValue());
            if (draft4ExclusiveMin ? c <= 0 : c < 0) {
                out.add(path + " must be " + (draft4ExclusiveMin ? "> " : ">= ") + minimum + ", got " + value);
            }
        }
        if (maximum != null && maximum.isNumber()) {
            int c = number.compareTo(maximum.decimalValue());
            if (draft4ExclusiveMax ? c >= 0 : c > 0) {
                out.add(path + " must be " + (draft4ExclusiveMax ? "< " : "<= ") + maximum + ", got " + value);
            }
        }
        if (exclusiveMinimum != null && exclusiveMinimum.isNumber()
                && number.compareTo(exclusiveMinimum.decimalValue()) <= 0) {
            out.add(path + " must be > " + exclusiveMinimum + ", got " + value);
        }
        if (exclusiveMaximum != null && exclusiveMaximum.isNumber()
                && number.compareTo(exclusiveMaximum.decimalValue()) >= 0) {
            out.add(path + " must be < " + exclusiveMaximum + ", got " + value);
        }
        JsonNode multipleOf = schema.get("multipleOf");
        if (multipleOf != null && multipleOf.isNumber() && multipleOf.decimalValue().signum() > 0
                && number.remainder(multipleOf.decimalValue()).signum() != 0) {
            out.add(path + " must be a multiple of " + multipleOf + ", got " + value);
        }
    }

    private void checkArray(JsonNode schema, JsonNode array, String path, List<String> out, int refDepth) {
        int size = array.size();
        JsonNode min = schema.get("minItems");
        if (min != null && min.isNumber() && size < min.asDouble()) {
            out.add(path + " must have at least " + count(min, "item") + ", got " + size);
        }
        JsonNode max = schema.get("maxItems");
        if (max != null && max.isNumber() && size > max.asDouble()) {
            out.add(path + " must have at most " + count(max, "item") + ", got " + size);
        }
        JsonNode unique = schema.get("uniqueItems");
        if (unique != null && unique.isBoolean() && unique.asBoolean()) {
            outer:
            for (int i = 0; i < size; i++) {
                for (int j = i + 1; j < size; j++) {
                    if (same(array.get(i), array.get(j))) {
                        out.add(path + " must not contain duplicates, but items " + i + " and " + j + " are equal");
                        break outer;
                    }
                }
            }
        }
        JsonNode prefix = schema.get("prefixItems");
        JsonNode items = schema.get("items");
        if (items != null && items.isArray()) {
            prefix = items;
            items = null;
        }
        int first = 0;
        if (prefix != null && prefix.isArray()) {
            for (; first < Math.min(prefix.size(), size); first++) {
                check(prefix.get(first), array.get(first), path + "[" + first + "]", out, refDepth);
            }
            first = prefix.size();
        }
        if (items != null) {
            for (int i = first; i < size; i++) {
                check(items, array.get(i), path + "[" + i + "]", out, refDepth);
            }
        }
    }

    private void checkObject(JsonNode schema, JsonNode object, String path, List<String> out, int refDepth) {
        JsonNode required = schema.get("required");
        if (required != null && required.isArray()) {
            for (JsonNode name : required) {
                if (name.isString() && !object.has(name.asString())) {
                    out.add(child(path, name.asString()) + " is required");
                }
            }
        }
        checkDependencies(schema, object, path, out);
        JsonNode properties = schema.get("properties");
        JsonNode patternProperties = schema.get("patternProperties");
        JsonNode additional = schema.get("additionalProperties");
        for (Map.Entry<String, JsonNode> field : object.properties()) {
            String name = field.getKey();
            String fieldPath = child(path, name);
            boolean known = false;
            if (properties != null && properties.isObject() && properties.has(name)) {
                known = true;
                check(properties.get(name), field.getValue(), fieldPath, out, refDepth);
            }
            if (patternProperties != null && patternProperties.isObject()) {
                for (Map.Entry<String, JsonNode> entry : patternProperties.properties()) {
                    Pattern p = pattern(entry.getKey());
                    if (p == null || p.matcher(name).find()) {
                        known = true;
                        check(entry.getValue(), field.getValue(), fieldPath, out, refDepth);
                    }
                }
            }
            if (known || additional == null) {
                continue;
            }
            if (additional.isBoolean() && !additional.asBoolean()) {
                out.add(fieldPath + " is not allowed (" + allowedNames(properties) + ")");
            } else if (additional.isObject()) {
                check(additional, field.getValue(), fieldPath, out, refDepth);
            }
        }
        int size = object.size();
        JsonNode min = schema.get("minProperties");
        if (min != null && min.isNumber() && size < min.asDouble()) {
            out.add(path + " must have at least " + count(min, "property") + ", got " + size);
        }
        JsonNode max = schema.get("maxProperties");
        if (max != null && max.isNumber() && size > max.asDouble()) {
            out.add(path + " must have at most " + count(max, "property") + ", got " + size);
        }
    }

    private static void checkDependencies(JsonNode schema, JsonNode object, String path, List<String> out) {
        for (String keyword : List.of("dependentRequired", "dependencies")) {
            JsonNode dependencies = schema.get(keyword);
            if (dependencies == null || !dependencies.isObject()) {
                continue;
            }
            for (Map.Entry<String, JsonNode> entry : dependencies.properties()) {
                if (!object.has(entry.getKey()) || !entry.getValue().isArray()) {
                    continue;
                }
                for (JsonNode needed : entry.getValue()) {
                    if (needed.isString() && !object.has(needed.asString())) {
                        out.add(child(path, needed.asString()) + " is required when "
                                + child(path, entry.getKey()) + " is given");
                    }
                }
            }
        }
    }

    private void checkCombinations(JsonNode schema, JsonNode value, String path, List<String> out, int refDepth) {
        JsonNode allOf = schema.get("allOf");
        if (allOf != null && allOf.isArray()) {
            for (JsonNode part : allOf) {
                check(part, value, path, out, refDepth);
            }
        }
        JsonNode anyOf = schema.get("anyOf");
        if (anyOf != null && anyOf.isArray() && !anyOf.isEmpty()) {
            List<String> failures = new ArrayList<>();
            boolean matched = false;
            for (int i = 0; i < anyOf.size() && !matched; i++) {
                List<String> problems = sub(anyOf.get(i), value, path, refDepth);
                matched = problems.isEmpty();
                failures.add((i + 1) + ": " + String.join("; ", problems));
            }
            if (!matched) {
                out.add(path + " matches none of the anyOf alternatives (" + String.join("; ", failures) + ")");
            }
        }
        JsonNode oneOf = schema.get("oneOf");
        if (oneOf != null && oneOf.isArray() && !oneOf.isEmpty()) {
            List<String> failures = new ArrayList<>();
            List<String> matches = new ArrayList<>();
            for (int i = 0; i < oneOf.size(); i++) {
                List<String> problems = sub(oneOf.get(i), value, path, refDepth);
                if (problems.isEmpty()) {
                    matches.add(String.valueOf(i + 1));
                } else {
                    failures.add((i + 1) + ": " + String.join("; ", problems));
                }
            }
            if (matches.isEmpty()) {
                out.add(path + " matches none of the oneOf alternatives (" + String.join("; ", failures) + ")");
            } else if (matches.size() > 1) {
                out.add(path + " matches " + matches.size() + " of the oneOf alternatives (" + String.join(", ", matches)
                        + "); it must match exactly one");
            }
        }
        JsonNode not = schema.get("not");
        if (not != null && sub(not, value, path, refDepth).isEmpty()) {
            out.add(path + " must not match the schema under \"not\"");
        }
        JsonNode condition = schema.get("if");
        if (condition != null) {
            JsonNode branch = schema.get(sub(condition, value, path, refDepth).isEmpty() ? "then" : "else");
            if (branch != null) {
                check(branch, value, path, out, refDepth);
            }
        }
    }

    private List<String> sub(JsonNode schema, JsonNode value, String path, int refDepth) {
        List<String> problems = new ArrayList<>();
        check(schema, value, path, problems, refDepth);
        return problems;
    }

    private JsonNode resolve(String ref) {
        if (ref.equals("#")) {
            return root;
        }
        if (!ref.startsWith("#/")) {
            return null;
        }
        JsonNode node = root;
        for (String token : ref.substring(2).split("/", -1)) {
            String name = URLDecoder.decode(token.replace("+", "%2B"), StandardCharsets.UTF_8)
                    .replace("~1", "/").replace("~0", "~");
            if (node.isArray() && name.matches("\\d+") && Integer.parseInt(name) < node.size()) {
                node = node.get(Integer.parseInt(name));
            } else if (node.isObject() && node.has(name)) {
                node = node.get(name);
            } else {
                return null;
            }
        }
        return node;
    }

    private Pattern pattern(String regex) {
        Pattern compiled = patterns.get(regex);
        if (compiled == null) {
            try {
                compiled = Pattern.compile(regex);
            } catch (PatternSyntaxException e) {
                return null;
            }
            patterns.put(regex, compiled);
        }
        return compiled;
    }

    private static boolean hasType(JsonNode value, String type) {
        return switch (type) {
            case "string" -> value.isString();
            case "number" -> value.isNumber();
            case "integer" -> value.isNumber() && isWhole(value);
            case "boolean" -> value.isBoolean();
            case "object" -> value.isObject();
            case "array" -> value.isArray();
            case "null" -> value.isNull();
            default -> false;
        };
    }

    private static boolean isWhole(JsonNode number) {
        if (number.isIntegralNumber()) {
            return true;
        }
        if (number.isDouble() || number.isFloat()) {
            double d = number.asDouble();
            return !Double.isInfinite(d) && Math.rint(d) == d;
        }
        return number.decimalValue().stripTrailingZeros().scale() <= 0;
    }

    /** JSON equality: numbers by value (1 equals 1.0), objects regardless of key order. */
    private static boolean same(JsonNode a, JsonNode b) {
        if (a.isNumber() && b.isNumber()) {
            return a.decimalValue().compareTo(b.decimalValue()) == 0;
        }
        if (a.isArray() && b.isArray()) {
            if (a.size() != b.size()) {
                return false;
            }
            for (int i = 0; i < a.size(); i++) {
                if (!same(a.get(i), b.get(i))) {
                    return false;
                }
            }
            return true;
        }
        if (a.isObject() && b.isObject()) {
            if (a.size() != b.size()) {
                return false;
            }
            for (Map.Entry<String, JsonNode> field : a.properties()) {
                JsonNode other = b.get(field.getKey());
                if (other == null || !same(field.getValue(), other)) {
                    return false;
                }
            }
            return true;
        }
        return a.equals(b);
    }

    private static String withArticle(String type) {
        return switch (type) {
            case "null" -> "null";
            case "integer", "object", "array" -> "an " + type;
            default -> "a " + type;
        };
    }

    /** The kind of a value, as in "got a string". */
    static String describe(JsonNode value) {
        if (value.isNull()) {
            return "null";
        }
        if (value.isNumber()) {
            return "a number";
        }
        if (value.isString()) {
            return "a string";
        }
        if (value.isBoolean()) {
            return "a boolean";
        }
        return value.isArray() ? "an array" : "an object";
    }

    private static String show(JsonNode value) {
        return clip(value.toString());
    }

    private static String show(String text) {
        return clip(Json.MAPPER.writeValueAsString(text));
    }

    private static String clip(String json) {
        return json.length() <= MAX_SHOWN ? json : json.substring(0, MAX_SHOWN) + "...";
    }

    private static String count(JsonNode n, String noun) {
        String number = n.isIntegralNumber() ? n.toString() : String.valueOf((long) Math.ceil(n.asDouble()));
        boolean one = number.equals("1");
        String plural = noun.equals("property") ? "properties" : noun + "s";
        return number + " " + (one ? noun : plural);
    }

    private static String allowedNames(JsonNode properties) {
        if (properties == null || !properties.isObject() || properties.isEmpty()) {
            return "no properties are allowed here";
        }
        List<String> names = new ArrayList<>();
        Iterator<String> it = properties.propertyNames().iterator();
        while (it.hasNext()) {
            names.add(it.next());
        }
        return "allowed: " + String.join(", ", names);
    }

    /** The path of a property: {@code $.city}, or {@code $['max-results']} for names that are not plain. */
    static String child(String path, String name) {
        if (PLAIN_NAME.matcher(name).matches()) {
            return path + "." + name;
        }
        return path + "['" + name.replace("\\", "\\\\").replace("'", "\\'") + "']";
    }
}
