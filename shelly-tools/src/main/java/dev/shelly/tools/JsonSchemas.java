package dev.shelly.tools;

import java.lang.reflect.AnnotatedArrayType;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.AnnotatedParameterizedType;
import java.lang.reflect.AnnotatedType;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.lang.annotation.Annotation;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.URI;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Generates the JSON Schema of a record type, so a tool's input can be declared as a Java record.
 *
 * <p>Each record component becomes a property, in declaration order, so the schema text is the
 * same on every run. Types map as follows:
 * <ul>
 *   <li>{@code String}, {@code char} and {@code CharSequence}: {@code "string"}; an enum:
 *       {@code "string"} with its constants' names as {@code "enum"};</li>
 *   <li>{@code boolean}: {@code "boolean"}; {@code int}, {@code long}, {@code short},
 *       {@code byte}, {@code BigInteger}: {@code "integer"}; {@code double}, {@code float},
 *       {@code BigDecimal}: {@code "number"};</li>
 *   <li>a record: a nested object; {@code List}, {@code Set} (unique items) and arrays:
 *       {@code "array"} with {@code "items"}; {@code Map<String, V>}: an object whose values are
 *       V; {@code JsonNode}: any JSON value;</li>
 *   <li>{@code UUID}, {@code URI}, {@code LocalDate}, {@code LocalDateTime},
 *       {@code OffsetDateTime} and {@code Instant}: a string with a {@code "format"} where JSON
 *       Schema has one.</li>
 * </ul>
 * A component is required unless its type is an {@code Optional} (it may then be left out) or it
 * carries a runtime-visible annotation named {@code Nullable}, such as JSpecify's (it may then be
 * left out or be null). Objects allow no properties beyond their components. {@link Description}
 * supplies descriptions.
 */
public final class JsonSchemas {
    private static final Set<Class<?>> INTEGERS = Set.of(int.class, long.class, short.class, byte.class,
            Integer.class, Long.class, Short.class, Byte.class, BigInteger.class);
    private static final Set<Class<?>> NUMBERS = Set.of(double.class, float.class, Double.class, Float.class,
            BigDecimal.class, Number.class);
    private static final Map<Class<?>, String> FORMATS = Map.of(UUID.class, "uuid", URI.class, "uri",
            LocalDate.class, "date", OffsetDateTime.class, "date-time", Instant.class, "date-time");

    private JsonSchemas() {}

    /**
     * The JSON Schema of a record type, as compact JSON text.
     *
     * @param type the record type
     * @return the schema text, the same for the same type on every run
     * @throws IllegalArgumentException when a component's type has no JSON form (naming the
     *     component), when the record contains itself, or when, on the module path, the record's
     *     module does not open its package to Jackson (naming the {@code opens} line to add)
     */
    public static String forRecord(Class<? extends Record> type) {
        return Json.MAPPER.writeValueAsString(schemaOf(type));
    }

    /**
     * The JSON Schema of a record type, as a tree.
     *
     * @param type the record type
     * @return a new schema tree
     * @throws IllegalArgumentException as {@link #forRecord(Class)}
     */
    public static ObjectNode schemaOf(Class<? extends Record> type) {
        if (type == null || !type.isRecord()) {
            throw new IllegalArgumentException("JsonSchemas.forRecord needs a record type, got "
                    + (type == null ? "null" : type.getName()));
        }
        return recordSchema(type, new ArrayDeque<>());
    }

    private static ObjectNode recordSchema(Class<?> type, Deque<Class<?>> path) {
        if (path.contains(type)) {
            throw new IllegalArgumentException("record " + type.getSimpleName() + " contains itself (through "
                    + describePath(path, type) + "); recursive input types have no finite JSON Schema");
        }
        JacksonReach.check(type);
        path.addLast(type);
        ObjectNode schema = Json.MAPPER.createObjectNode();
        schema.put("type", "object");
        ObjectNode properties = schema.putObject("properties");
        ArrayNode required = Json.MAPPER.createArrayNode();
        for (RecordComponent component : type.getRecordComponents()) {
            String where = type.getSimpleName() + "." + component.getName();
            AnnotatedType annotated = component.getAnnotatedType();
            Class<?> raw = raw(annotated.getType(), where);
            boolean nullable = hasNullable(component) || hasNullable(component.getAccessor())
                    || hasNullable(annotated);
            boolean optional = raw == Optional.class || raw == OptionalInt.class || raw == OptionalLong.class
                    || raw == OptionalDouble.class;
            ObjectNode property;
            if (raw == Optional.class) {
                property = schema(typeArgument(annotated, 0, where), where, path);
            } else if (raw == OptionalInt.class || raw == OptionalLong.class) {
                property = typed("integer");
            } else if (raw == OptionalDouble.class) {
                property = typed("number");
            } else {
                property = schema(annotated, where, path);
            }
            if (nullable && !raw.isPrimitive()) {
                allowNull(property);
            }
            Description description = component.getAnnotation(Description.class);
            if (description != null) {
                property = describe(property, description.value());
            }
            properties.set(component.getName(), property);
            if (!optional && (!nullable || raw.isPrimitive())) {
                required.add(component.getName());
            }
        }
        if (!required.isEmpty()) {
            schema.set("required", required);
        }
        schema.put("additionalProperties", false);
        path.removeLast();
        return schema;
    }

    private static ObjectNode schema(AnnotatedType annotated, String where, Deque<Class<?>> path) {
        Type type = annotated.getType();
        Class<?> raw = raw(type, where);
        ObjectNode schema;
        if (raw == String.class || raw == CharSequence.class) {
            schema = typed("string");
        } else if (raw == char.class || raw == Character.class) {
            schema = typed("string");
            schema.put("minLength", 1);
            schema.put("maxLength", 1);
        } else if (raw == boolean.class || raw == Boolean.class) {
            schema = typed("boolean");
        } else if (INTEGERS.contains(raw)) {
            schema = typed("integer");
        } else if (NUMBERS.contains(raw)) {
            schema = typed("number");
        } else if (raw.isEnum()) {
            schema = typed("string");
            ArrayNode values = schema.putArray("enum");
            for (Object constant : raw.getEnumConstants()) {
                values.add(((Enum<?>) constant).name());
            }
        } else if (FORMATS.containsKey(raw)) {
            schema = typed("string");
            schema.put("format", FORMATS.get(raw));
        } else if (raw == LocalDateTime.class) {
            schema = typed("string");
        } else if (raw.isRecord()) {
            schema = recordSchema(raw, path);
        } else if (raw == byte[].class) {
            schema = typed("string");
            schema.put("contentEncoding", "base64");
        } else if (raw.isArray()) {
            schema = typed("array");
            schema.set("items", schema(((AnnotatedArrayType) annotated).getAnnotatedGenericComponentType(),
                    where + "[]", path));
        } else if (raw == List.class || raw == Collection.class || raw == Set.class) {
            schema = typed("array");
            schema.set("items", schema(typeArgument(annotated, 0, where), where + "[]", path));
            if (raw == Set.class) {
                schema.put("uniqueItems", true);
            }
        } else if (raw == Map.class) {
            Class<?> key = raw(typeArgument(annotated, 0, where).getType(), where);
            if (key != String.class) {
                throw new IllegalArgumentException(where + " is a Map with " + key.getSimpleName()
                        + " keys; JSON object keys are strings, use Map<String, ...>");
            }
            schema = typed("object");
            schema.set("additionalProperties", schema(typeArgument(annotated, 1, where), where + "{}", path));
        } else if (JsonNode.class.isAssignableFrom(raw)) {
            schema = Json.MAPPER.createObjectNode();
        } else if (raw == Optional.class || raw == OptionalInt.class || raw == OptionalLong.class
                || raw == OptionalDouble.class) {
            throw new IllegalArgumentException(where + " nests an Optional; Optional marks a record component"
                    + " that may be left out and is supported only as a component's own type");
        } else {
            throw new IllegalArgumentException(where + " has type " + type.getTypeName()
                    + ", which has no JSON Schema here; use a string, number, boolean, enum, record, List, Set,"
                    + " array, Map<String, ...>, Optional or JsonNode");
        }
        if (hasNullable(annotated) && !raw.isPrimitive()) {
            allowNull(schema);
        }
        Description typeDescription = raw.getAnnotation(Description.class);
        if (typeDescription != null) {
            schema = describe(schema, typeDescription.value());
        }
        return schema;
    }

    private static ObjectNode typed(String type) {
        ObjectNode node = Json.MAPPER.createObjectNode();
        node.put("type", type);
        return node;
    }

    /** Lets a schema accept null as well: adds "null" to its type and to its enum, once. */
    private static void allowNull(ObjectNode schema) {
        JsonNode type = schema.get("type");
        if (type == null || !type.isString() || type.asString().equals("null")) {
            return;
        }
        schema.set("type", Json.MAPPER.createArrayNode().add(type.asString()).add("null"));
        if (schema.get("enum") instanceof ArrayNode values) {
            values.addNull();
        }
    }

    /** A copy of the schema with the description placed right after its type and format. */
    private static ObjectNode describe(ObjectNode schema, String description) {
        ObjectNode described = Json.MAPPER.createObjectNode();
        for (String key : List.of("type", "format")) {
            if (schema.has(key)) {
                described.set(key, schema.get(key));
            }
        }
        described.put("description", description);
        for (Map.Entry<String, JsonNode> field : schema.properties()) {
            if (!described.has(field.getKey())) {
                described.set(field.getKey(), field.getValue());
            }
        }
        return described;
    }

    private static boolean hasNullable(AnnotatedElement element) {
        for (Annotation annotation : element.getAnnotations()) {
            if (annotation.annotationType().getSimpleName().equals("Nullable")) {
                return true;
            }
        }
        return false;
    }

    private static AnnotatedType typeArgument(AnnotatedType annotated, int index, String where) {
        if (annotated instanceof AnnotatedParameterizedType parameterized) {
            AnnotatedType argument = parameterized.getAnnotatedActualTypeArguments()[index];
            raw(argument.getType(), where);
            return argument;
        }
        throw new IllegalArgumentException(where + " uses the raw type " + annotated.getType().getTypeName()
                + "; give its type arguments, e.g. List<String>");
    }

    private static Class<?> raw(Type type, String where) {
        if (type instanceof Class<?> c) {
            return c;
        }
        if (type instanceof ParameterizedType p && p.getRawType() instanceof Class<?> c) {
            return c;
        }
        throw new IllegalArgumentException(where + " has type " + type.getTypeName()
                + ", which has no JSON Schema here; type variables and wildcards cannot be described");
    }

    private static String describePath(Deque<Class<?>> path, Class<?> again) {
        StringBuilder sb = new StringBuilder();
        Iterator<Class<?>> it = path.iterator();
        while (it.hasNext()) {
            sb.append(it.next().getSimpleName()).append(" -> ");
        }
        return sb.append(again.getSimpleName()).toString();
    }
}
