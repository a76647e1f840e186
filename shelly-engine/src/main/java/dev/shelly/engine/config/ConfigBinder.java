package dev.shelly.engine.config;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;
import dev.shelly.modeladapter.spi.InvalidSettingException;
import dev.shelly.modeladapter.spi.ProviderSettings;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.DatabindException;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.PropertyNamingStrategies;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.cfg.DateTimeFeature;
import tools.jackson.databind.exc.MismatchedInputException;
import tools.jackson.databind.exc.UnrecognizedPropertyException;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.module.SimpleModule;

/**
 * Binds a parsed configuration onto the config records with Jackson, and turns whatever Jackson
 * or a record's constructor refuses into a {@link ConfigException} at the field's path and line.
 *
 * <p>Field names are the records' component names in snake case ({@code maxTokens} is
 * {@code max_tokens}); unknown fields are errors; durations read as {@code 500ms}, {@code 30s},
 * {@code 2m}, {@code 1h}, ISO-8601 or whole seconds. A record's constructor checks its own values
 * and throws an {@link InvalidSettingException} naming the field at fault (or an
 * {@link IllegalArgumentException} about the section as a whole); the field's path is then the
 * section's path plus the exception's field. A section that configures a runtime value (a retry
 * policy, a rate limit, a tool policy, a context strategy) is read through {@link Bindings}.
 */
final class ConfigBinder {
    /** The one mapper for config records: binding from the tree, and writing provider settings. */
    static final JsonMapper MAPPER = JsonMapper.builder()
            .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
            // A list or map entry left empty ("- " or "key:") is a mistake, not a null to keep.
            .changeDefaultNullHandling(n -> JsonSetter.Value.forContentNulls(Nulls.FAIL))
            .changeDefaultPropertyInclusion(i -> JsonInclude.Value.construct(JsonInclude.Include.NON_NULL,
                    JsonInclude.Include.NON_NULL))
            .disable(DateTimeFeature.WRITE_DURATIONS_AS_TIMESTAMPS)
            .addModule(Bindings.register(new SimpleModule("shelly-config")
                    .addDeserializer(Duration.class, new DurationDeserializer())))
            .build();

    private ConfigBinder() {}

    /**
     * Binds a node.
     *
     * @param node the node, interpolated
     * @param type the record to bind onto
     * @param at where the node's fields are
     * @return the value
     * @throws ConfigException naming the field, its line and what is wrong
     */
    static <T> T bind(JsonNode node, Class<T> type, Locations at) {
        try {
            return MAPPER.treeToValue(node, type);
        } catch (DatabindException e) {
            throw translate(e, node, at);
        } catch (JacksonException e) {
            throw at.error("", e.getOriginalMessage());
        }
    }

    private static ConfigException translate(DatabindException e, JsonNode root, Locations at) {
        String path = path(e.getPath());
        InvalidSettingException setting = find(e, InvalidSettingException.class);
        if (setting != null) {
            return located(e, at, join(path, setting.field()), setting.reason());
        }
        if (e instanceof UnrecognizedPropertyException u) {
            return located(e, at, path, "unknown field '" + u.getPropertyName() + "'; expected one of "
                    + names(u.getKnownPropertyIds()));
        }
        if (e instanceof MismatchedInputException m && m.getTargetType() != null) {
            return located(e, at, path, "expected " + expected(m.getTargetType()) + ", got "
                    + describe(nodeAt(root, e.getPath())));
        }
        IllegalArgumentException invalid = find(e, IllegalArgumentException.class);
        if (invalid != null) {
            return located(e, at, path, invalid.getMessage());
        }
        return located(e, at, path, e.getOriginalMessage());
    }

    private static ConfigException located(Throwable cause, Locations at, String path, String problem) {
        ConfigException error = at.error(path, problem);
        error.initCause(cause);
        return error;
    }

    private static <X extends Throwable> X find(Throwable e, Class<X> type) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
        }
        return null;
    }

    static String join(String path, String field) {
        if (field == null || field.isEmpty()) {
            return path;
        }
        if (path.isEmpty()) {
            return field;
        }
        return field.startsWith("[") ? path + field : path + "." + field;
    }

    private static String path(List<JacksonException.Reference> refs) {
        StringBuilder sb = new StringBuilder();
        for (JacksonException.Reference ref : refs) {
            if (ref.getPropertyName() != null) {
                if (!sb.isEmpty()) {
                    sb.append('.');
                }
                sb.append(ref.getPropertyName());
            } else if (ref.getIndex() >= 0) {
                sb.append('[').append(ref.getIndex()).append(']');
            }
        }
        return sb.toString();
    }

    private static JsonNode nodeAt(JsonNode root, List<JacksonException.Reference> refs) {
        JsonNode node = root;
        for (JacksonException.Reference ref : refs) {
            if (node == null) {
                return null;
            }
            node = ref.getPropertyName() != null ? node.get(ref.getPropertyName())
                    : ref.getIndex() >= 0 ? node.get(ref.getIndex()) : node;
        }
        return node;
    }

    /** How a value is described in a message: a mapping, a list, nothing, or its text quoted. */
    static String describe(JsonNode node) {
        if (node == null || node.isNull() || node.isMissingNode()) {
            return "nothing";
        }
        if (node.isObject()) {
            return "a mapping";
        }
        if (node.isArray()) {
            return "a list";
        }
        return "'" + node.asString() + "'";
    }

    private static String expected(Class<?> type) {
        if (type == Integer.class || type == int.class || type == Long.class || type == long.class
                || type == BigInteger.class) {
            return "a whole number";
        }
        if (type == Double.class || type == double.class || type == BigDecimal.class) {
            return "a number";
        }
        if (type == Boolean.class || type == boolean.class) {
            return "true or false";
        }
        if (type == String.class || type == Path.class) {
            return "a text value";
        }
        if (Collection.class.isAssignableFrom(type)) {
            return "a list";
        }
        if (Map.class.isAssignableFrom(type)) {
            return "a mapping of names to values";
        }
        if (type.isRecord()) {
            TreeSet<String> fields = new TreeSet<>();
            for (var c : type.getRecordComponents()) {
                fields.add(snakeCase(c.getName()));
            }
            return "a mapping of " + String.join(", ", fields);
        }
        return "a " + type.getSimpleName();
    }

    /** A component's name as the file spells it: {@code maxTokens} is {@code max_tokens}. */
    private static String snakeCase(String name) {
        StringBuilder sb = new StringBuilder();
        for (char c : name.toCharArray()) {
            if (Character.isUpperCase(c)) {
                sb.append('_').append(Character.toLowerCase(c));
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }

    private static String names(Collection<Object> ids) {
        TreeSet<String> names = new TreeSet<>();
        ids.forEach(id -> names.add(String.valueOf(id)));
        return String.join(", ", names);
    }

    /** Reads a {@link Duration} as {@link ProviderSettings#parseDuration} does: {@code 30s}, {@code 2m}, ... */
    private static final class DurationDeserializer extends ValueDeserializer<Duration> {
        @Override
        public Duration deserialize(JsonParser p, DeserializationContext ctxt) {
            JsonToken t = p.currentToken();
            if (t == JsonToken.VALUE_STRING || t == JsonToken.VALUE_NUMBER_INT) {
                try {
                    return ProviderSettings.parseDuration(p.getString());
                } catch (IllegalArgumentException e) {
                    throw new InvalidSettingException("", e.getMessage());
                }
            }
            throw new InvalidSettingException("", "expected a duration such as 500ms, 30s, 2m or 1h, got "
                    + (t == JsonToken.START_OBJECT ? "a mapping" : t == JsonToken.START_ARRAY ? "a list"
                            : "'" + p.getString() + "'"));
        }
    }
}
