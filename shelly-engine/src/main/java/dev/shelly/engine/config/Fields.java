package dev.shelly.engine.config;

import dev.shelly.modeladapter.spi.InvalidSettingException;
import java.math.BigDecimal;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Locale;

/**
 * The checks the config records share, each throwing an {@link InvalidSettingException} that
 * names the field as the configuration file spells it, so that the same record reports the same
 * problem whether it was read from a file (with the file's line) or built in code.
 */
final class Fields {
    private Fields() {}

    /** A required text: present and not blank. */
    static String required(String value, String field) {
        if (value == null) {
            throw new InvalidSettingException(field, "missing required field");
        }
        if (value.isBlank()) {
            throw new InvalidSettingException(field, "must not be blank");
        }
        return value;
    }

    /** An address to listen on: an IP address, or a name that is looked up. */
    static InetAddress address(String value, String field) {
        try {
            return InetAddress.getByName(value);
        } catch (UnknownHostException e) {
            throw new InvalidSettingException(field, "is not an address: " + value);
        }
    }

    /** An optional text that, when given, is not blank. */
    static String notBlank(String value, String field) {
        if (value != null && value.isBlank()) {
            throw new InvalidSettingException(field, "must not be blank");
        }
        return value;
    }

    /** An optional whole number that, when given, is at least 1. */
    static <N extends Number> N positive(N value, String field) {
        if (value != null && value.longValue() < 1) {
            throw new InvalidSettingException(field, "expected a positive whole number, got " + value);
        }
        return value;
    }

    /** An optional whole number that, when given, is 0 or more. */
    static Integer notNegative(Integer value, String field) {
        if (value != null && value < 0) {
            throw new InvalidSettingException(field, "expected a whole number of 0 or more, got " + value);
        }
        return value;
    }

    /** An optional number that, when given, lies within the range. */
    static Double within(Double value, double min, double max, String field) {
        if (value != null && !(value >= min && value <= max)) {
            throw new InvalidSettingException(field, "expected a number from " + min + " to " + max + ", got "
                    + plain(value));
        }
        return value;
    }

    /** A required price: a number of zero or more. */
    static BigDecimal price(BigDecimal value, String field) {
        if (value == null) {
            throw new InvalidSettingException(field, "missing required field");
        }
        if (value.signum() < 0) {
            throw new InvalidSettingException(field, "must be a number of zero or more, got '" + value.toPlainString() + "'");
        }
        return value;
    }

    /** An optional absolute http or https URL, stripped. */
    static String httpUrl(String value, String field) {
        if (value == null) {
            return null;
        }
        String url = required(value, field).strip();
        try {
            URI uri = new URI(url);
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
            if (!(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null) {
                throw new InvalidSettingException(field, "expected an http or https URL, got '" + url + "'");
            }
        } catch (URISyntaxException e) {
            throw new InvalidSettingException(field, "expected an http or https URL, got '" + url + "' ("
                    + e.getReason() + ")");
        }
        return url;
    }

    /** A list's items, none blank; null for null. */
    static List<String> names(List<String> values, String field) {
        if (values == null) {
            return null;
        }
        for (int i = 0; i < values.size(); i++) {
            required(values.get(i), field + "[" + i + "]");
        }
        return List.copyOf(values);
    }

    /** Programs commands may run: names or absolute paths, each optionally with arguments; empty for null. */
    static List<String> commands(List<String> values, String field) {
        if (values == null) {
            return List.of();
        }
        for (int i = 0; i < values.size(); i++) {
            String v = values.get(i);
            if (v == null || v.isBlank() || v.indexOf('\\') >= 0
                    || (v.strip().indexOf('/') >= 0 && !v.strip().startsWith("/"))) {
                throw new InvalidSettingException(field + "[" + i + "]", "expected a program name or an absolute path, "
                        + "optionally with arguments, got '" + v + "'");
            }
        }
        return List.copyOf(values);
    }

    /** Program names without a directory; empty for null. */
    static List<String> programs(List<String> values, String field) {
        if (values == null) {
            return List.of();
        }
        for (int i = 0; i < values.size(); i++) {
            String v = values.get(i);
            if (v == null || v.isBlank() || v.indexOf('/') >= 0 || v.indexOf('\\') >= 0) {
                throw new InvalidSettingException(field + "[" + i + "]", "expected a program name without a directory, got '"
                        + v + "'");
            }
        }
        return List.copyOf(values);
    }

    /** Patterns, none empty; empty for null. */
    static List<String> patterns(List<String> values, String field) {
        if (values == null) {
            return List.of();
        }
        for (int i = 0; i < values.size(); i++) {
            if (values.get(i) == null || values.get(i).isBlank()) {
                throw new InvalidSettingException(field + "[" + i + "]", "a pattern must not be empty");
            }
        }
        return List.copyOf(values);
    }

    /** Absolute paths; empty for null. */
    static List<String> absolutePaths(List<String> values, String field) {
        if (values == null) {
            return List.of();
        }
        for (int i = 0; i < values.size(); i++) {
            String h = values.get(i);
            if (h == null || !h.startsWith("/")) {
                throw new InvalidSettingException(field + "[" + i + "]", "expected an absolute path, got '" + h + "'");
            }
        }
        return List.copyOf(values);
    }

    private static String plain(double value) {
        return BigDecimal.valueOf(value).stripTrailingZeros().toPlainString();
    }
}
