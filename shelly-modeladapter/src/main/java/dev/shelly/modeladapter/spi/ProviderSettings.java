package dev.shelly.modeladapter.spi;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The settings of one configured provider, as a {@link CompleterFactory} reads them: typed
 * accessors by field name, each throwing an {@link InvalidSettingException} that names the field
 * when it is missing or wrong.
 *
 * <p>Values are plain, as configuration gives them: text, numbers, booleans, and lists and
 * mappings of those. Each accessor converts what it reasonably can ({@code "4096"} is a whole
 * number, {@code 30} is a duration of 30 seconds) and says what it expected otherwise. The
 * {@code secret} accessors never quote the value, in an error or anywhere else; {@link #toString()}
 * shows field names only.
 *
 * <p>Every field an accessor asks for is marked as read, present or not; {@link #unread()} lists
 * the fields given but never asked for, which the engine reports as unknown. A nested mapping is
 * read with {@link #section(String)}, whose fields are named with the section's prefix
 * ({@code retry.max_attempts}).
 *
 * <p>Not thread-safe: a factory reads its settings on one thread.
 */
public final class ProviderSettings {
    private static final Pattern DURATION = Pattern.compile("(\\d+)\\s*(ms|s|m|h)");

    private final String provider;
    private final String prefix;
    private final Map<String, Object> values;
    private final UnaryOperator<String> environment;
    private final Set<String> read;

    private ProviderSettings(String provider, String prefix, Map<String, Object> values,
            UnaryOperator<String> environment, Set<String> read) {
        this.provider = provider;
        this.prefix = prefix;
        this.values = values;
        this.environment = environment;
        this.read = read;
    }

    /**
     * Settings of a provider.
     *
     * @param provider the provider's name, as agents refer to it
     * @param values the settings by field name, plain values; a null value counts as absent
     * @param environment looks up environment variables (null when unset), for kinds that read a
     *     key or a base URL from the environment when none is configured
     * @return the settings
     */
    public static ProviderSettings of(String provider, Map<String, ?> values, UnaryOperator<String> environment) {
        if (provider == null || provider.isBlank()) {
            throw new IllegalArgumentException("ProviderSettings.provider must not be null or blank");
        }
        if (values == null) {
            throw new IllegalArgumentException("ProviderSettings.values must not be null");
        }
        if (environment == null) {
            throw new IllegalArgumentException("ProviderSettings.environment must not be null");
        }
        Map<String, Object> copy = new LinkedHashMap<>();
        values.forEach((k, v) -> {
            if (v != null) {
                copy.put(k, v);
            }
        });
        return new ProviderSettings(provider, "", Collections.unmodifiableMap(copy), environment, new LinkedHashSet<>());
    }

    /**
     * The provider's name, as agents refer to it.
     *
     * @return the name
     */
    public String provider() {
        return provider;
    }

    /**
     * The fields given at this level, in order.
     *
     * @return the field names
     */
    public Set<String> fields() {
        return values.keySet();
    }

    /**
     * Whether a field is given; does not mark it as read.
     *
     * @param field the field
     * @return true when it has a value
     */
    public boolean has(String field) {
        return values.containsKey(field);
    }

    /**
     * A required text.
     *
     * @param field the field
     * @return the text, not blank
     * @throws InvalidSettingException when missing, blank or not a single value
     */
    public String string(String field) {
        return optionalString(field).orElseThrow(() -> missing(field));
    }

    /**
     * An optional text; a blank one counts as absent.
     *
     * @param field the field
     * @return the text, or empty
     * @throws InvalidSettingException when it is a list or a mapping
     */
    public Optional<String> optionalString(String field) {
        Object v = get(field);
        if (v == null) {
            return Optional.empty();
        }
        if (v instanceof Map || v instanceof List) {
            throw invalid(field, "expected a text value, got " + describe(v));
        }
        String text = v.toString();
        return text.isBlank() ? Optional.empty() : Optional.of(text.strip());
    }

    /**
     * A required secret, such as an API key. It is never quoted.
     *
     * @param field the field
     * @return the secret
     * @throws InvalidSettingException when missing, blank or not text
     */
    public String secret(String field) {
        return optionalSecret(field).orElseThrow(() -> missing(field));
    }

    /**
     * An optional secret; a blank one counts as absent. It is never quoted.
     *
     * @param field the field
     * @return the secret, or empty
     * @throws InvalidSettingException when it is not text
     */
    public Optional<String> optionalSecret(String field) {
        Object v = get(field);
        if (v == null) {
            return Optional.empty();
        }
        if (!(v instanceof CharSequence)) {
            throw invalid(field, "expected a text value, got " + kindOf(v));
        }
        String text = v.toString();
        return text.isBlank() ? Optional.empty() : Optional.of(text.strip());
    }

    /**
     * A required whole number.
     *
     * @param field the field
     * @param min the smallest value allowed
     * @return the number
     * @throws InvalidSettingException when missing, not a whole number or below {@code min}
     */
    public int integer(String field, int min) {
        return optionalInteger(field, min).orElseThrow(() -> missing(field));
    }

    /**
     * An optional whole number.
     *
     * @param field the field
     * @param min the smallest value allowed
     * @return the number, or empty
     * @throws InvalidSettingException when not a whole number or below {@code min}
     */
    public Optional<Integer> optionalInteger(String field, int min) {
        Object v = get(field);
        if (v == null) {
            return Optional.empty();
        }
        int value;
        try {
            BigDecimal number = v instanceof Number n ? new BigDecimal(n.toString()) : new BigDecimal(text(field, v));
            value = number.intValueExact();
        } catch (ArithmeticException | NumberFormatException e) {
            throw invalid(field, "expected a whole number, got " + describe(v));
        }
        if (value < min) {
            throw invalid(field, (min == 1 ? "expected a positive whole number" : "expected a whole number of at least "
                    + min) + ", got " + value);
        }
        return Optional.of(value);
    }

    /**
     * An optional number within a range.
     *
     * @param field the field
     * @param min the smallest value allowed
     * @param max the largest value allowed
     * @return the number, or empty
     * @throws InvalidSettingException when not a number or out of range
     */
    public Optional<Double> optionalNumber(String field, double min, double max) {
        Object v = get(field);
        if (v == null) {
            return Optional.empty();
        }
        double value;
        try {
            value = v instanceof Number n ? n.doubleValue() : Double.parseDouble(text(field, v));
        } catch (NumberFormatException e) {
            throw invalid(field, "expected a number, got " + describe(v));
        }
        if (!(value >= min && value <= max)) {
            throw invalid(field, "expected a number from " + min + " to " + max + ", got " + describe(v));
        }
        return Optional.of(value);
    }

    /**
     * An optional true or false.
     *
     * @param field the field
     * @return the value, or empty
     * @throws InvalidSettingException when neither
     */
    public Optional<Boolean> optionalBoolean(String field) {
        Object v = get(field);
        if (v == null) {
            return Optional.empty();
        }
        if (v instanceof Boolean b) {
            return Optional.of(b);
        }
        String text = text(field, v).strip();
        if (text.equals("true") || text.equals("false")) {
            return Optional.of(Boolean.parseBoolean(text));
        }
        throw invalid(field, "expected true or false, got " + describe(v));
    }

    /**
     * An optional positive duration: {@code 500ms}, {@code 30s}, {@code 2m}, {@code 1h},
     * ISO-8601 such as {@code PT1M30S}, or a whole number of seconds.
     *
     * @param field the field
     * @return the duration, or empty
     * @throws InvalidSettingException when it is not one
     */
    public Optional<Duration> optionalDuration(String field) {
        Object v = get(field);
        if (v == null) {
            return Optional.empty();
        }
        if (v instanceof Duration d) {
            if (d.isNegative() || d.isZero()) {
                throw invalid(field, "expected a positive duration, got " + d);
            }
            return Optional.of(d);
        }
        try {
            return Optional.of(parseDuration(v instanceof Number n ? n.toString() : text(field, v)));
        } catch (IllegalArgumentException e) {
            throw invalid(field, e.getMessage());
        }
    }

    /**
     * An optional absolute {@code http} or {@code https} URL.
     *
     * @param field the field
     * @return the URL, stripped, or empty
     * @throws InvalidSettingException when it is not one (the URL is quoted without its user
     *     info and query, which may hold credentials)
     */
    public Optional<String> optionalUrl(String field) {
        Optional<String> text = optionalString(field);
        if (text.isEmpty()) {
            return text;
        }
        String url = text.get();
        try {
            URI uri = new URI(url);
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
            if ((scheme.equals("http") || scheme.equals("https")) && uri.getHost() != null) {
                return text;
            }
            throw invalid(field, "expected an http or https URL, got '" + masked(uri) + "'");
        } catch (URISyntaxException e) {
            throw invalid(field, "expected an http or https URL (" + e.getReason() + ")");
        }
    }

    /**
     * A mapping of names to texts, such as HTTP headers; their values are treated as secrets
     * and never quoted.
     *
     * @param field the field
     * @return the entries in order; empty when absent
     * @throws InvalidSettingException when it is not a mapping of texts
     */
    public Map<String, String> stringMap(String field) {
        Object v = get(field);
        if (v == null) {
            return Map.of();
        }
        if (!(v instanceof Map<?, ?> map)) {
            throw invalid(field, "expected a mapping of names to values, got " + kindOf(v));
        }
        Map<String, String> out = new LinkedHashMap<>();
        map.forEach((k, value) -> {
            String name = String.valueOf(k);
            if (value == null || value instanceof Map || value instanceof List) {
                throw invalid(field + "." + name, "expected a text value, got " + kindOf(value));
            }
            out.put(name, value.toString());
        });
        return Collections.unmodifiableMap(out);
    }

    /**
     * A list of texts.
     *
     * @param field the field
     * @return the items in order; empty when absent
     * @throws InvalidSettingException when it is not a list of texts
     */
    public List<String> stringList(String field) {
        Object v = get(field);
        if (v == null) {
            return List.of();
        }
        if (!(v instanceof List<?> list)) {
            throw invalid(field, "expected a list, got " + describe(v));
        }
        List<String> out = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            Object item = list.get(i);
            if (item == null || item instanceof Map || item instanceof List) {
                throw invalid(field + "[" + i + "]", "expected a text value, got " + kindOf(item));
            }
            out.add(item.toString());
        }
        return List.copyOf(out);
    }

    /**
     * A nested mapping, read with the same accessors; its fields are named with this field as
     * prefix ({@code retry.max_attempts}).
     *
     * @param field the field
     * @return the section, or empty when absent
     * @throws InvalidSettingException when it is not a mapping
     */
    public Optional<ProviderSettings> section(String field) {
        Object v = get(field);
        if (v == null) {
            return Optional.empty();
        }
        if (!(v instanceof Map<?, ?> map)) {
            throw invalid(field, "expected a mapping, got " + describe(v));
        }
        Map<String, Object> nested = new LinkedHashMap<>();
        map.forEach((k, value) -> {
            if (value != null) {
                nested.put(String.valueOf(k), value);
            }
        });
        return Optional.of(new ProviderSettings(provider, prefix + field + ".", Collections.unmodifiableMap(nested),
                environment, read));
    }

    /**
     * An environment variable, for a kind that falls back to one (an API key, a base URL).
     *
     * @param variable the variable's name
     * @return its value, or empty when unset or blank
     */
    public Optional<String> environment(String variable) {
        String value = environment.apply(variable);
        return value == null || value.isBlank() ? Optional.empty() : Optional.of(value);
    }

    /**
     * How environment variables are looked up, to hand to a builder that reads them itself.
     *
     * @return the lookup; null for an unset variable
     */
    public UnaryOperator<String> environment() {
        return environment;
    }

    /**
     * The fields given but never asked for by any accessor, nested ones with their prefix.
     *
     * @return the unread fields, in order
     */
    public Set<String> unread() {
        Set<String> out = new LinkedHashSet<>();
        collectUnread(prefix, values, out);
        return Collections.unmodifiableSet(out);
    }

    /**
     * The fields asked for so far, present or not, nested ones with their prefix.
     *
     * @return the fields read, sorted
     */
    public Set<String> read() {
        return Collections.unmodifiableSet(new TreeSet<>(read));
    }

    private void collectUnread(String at, Map<?, ?> map, Set<String> out) {
        map.forEach((k, v) -> {
            String field = at + k;
            if (!read.contains(field)) {
                out.add(field);
            } else if (v instanceof Map<?, ?> nested && read.stream().anyMatch(r -> r.startsWith(field + "."))) {
                collectUnread(field + ".", nested, out);
            }
        });
    }

    /**
     * Parses a duration as {@link #optionalDuration} reads it.
     *
     * @param text such as {@code 500ms}, {@code 30s}, {@code 2m}, {@code 1h}, {@code PT1M30S} or {@code 45}
     * @return the duration, positive
     * @throws IllegalArgumentException saying what was expected, the text quoted
     */
    public static Duration parseDuration(String text) {
        String given = text.strip();
        String lower = given.toLowerCase(Locale.ROOT);
        Matcher m = DURATION.matcher(lower);
        Duration value;
        try {
            if (m.matches()) {
                long n = Long.parseLong(m.group(1));
                value = switch (m.group(2)) {
                    case "ms" -> Duration.ofMillis(n);
                    case "s" -> Duration.ofSeconds(n);
                    case "m" -> Duration.ofMinutes(n);
                    default -> Duration.ofHours(n);
                };
            } else if (lower.matches("\\d+")) {
                value = Duration.ofSeconds(Long.parseLong(lower));
            } else {
                value = Duration.parse(lower.toUpperCase(Locale.ROOT));
            }
        } catch (DateTimeParseException | ArithmeticException e) {
            throw new IllegalArgumentException("expected a duration such as 500ms, 30s, 2m or 1h, got '" + given + "'");
        }
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException("expected a positive duration, got '" + given + "'");
        }
        return value;
    }

    private Object get(String field) {
        if (field == null || field.isBlank()) {
            throw new IllegalArgumentException("a setting's field must not be null or blank");
        }
        read.add(prefix + field);
        return values.get(field);
    }

    private String text(String field, Object v) {
        if (v instanceof Map || v instanceof List) {
            throw invalid(field, "expected a single value, got " + kindOf(v));
        }
        return v.toString();
    }

    private InvalidSettingException missing(String field) {
        return new InvalidSettingException(prefix + field, "missing required field");
    }

    private InvalidSettingException invalid(String field, String reason) {
        return new InvalidSettingException(prefix + field, reason);
    }

    private static String describe(Object v) {
        if (v instanceof Map || v instanceof List || v == null) {
            return kindOf(v);
        }
        if (v instanceof Double || v instanceof Float || v instanceof BigDecimal) {
            return new BigDecimal(v.toString()).stripTrailingZeros().toPlainString();
        }
        if (v instanceof Number || v instanceof BigInteger) {
            return v.toString();
        }
        return "'" + v + "'";
    }

    private static String kindOf(Object v) {
        if (v == null) {
            return "nothing";
        }
        if (v instanceof Map) {
            return "a mapping";
        }
        if (v instanceof List) {
            return "a list";
        }
        if (v instanceof Number) {
            return "a number";
        }
        if (v instanceof Boolean) {
            return "true or false";
        }
        return "a text value";
    }

    private static String masked(URI uri) {
        String scheme = uri.getScheme() == null ? "" : uri.getScheme() + ":";
        if (uri.getHost() == null) {
            return scheme + (uri.getRawSchemeSpecificPart() == null || uri.getUserInfo() != null
                    || uri.getRawQuery() != null ? "..." : uri.getRawSchemeSpecificPart());
        }
        return scheme + "//" + uri.getHost() + (uri.getPort() < 0 ? "" : ":" + uri.getPort())
                + (uri.getRawPath() == null ? "" : uri.getRawPath());
    }

    @Override
    public String toString() {
        return "ProviderSettings[provider=" + provider + ", fields=" + values.keySet() + "]";
    }
}
