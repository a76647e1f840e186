package dev.shelly.engine.config;

import dev.shelly.engine.config.Locations.Place;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The environment variables that override the settings files, the highest level of the
 * settings. The list is short on purpose, and these are all:
 *
 * <ul>
 *   <li>{@code SHELLY_ENTRY_AGENT}: {@code entry_agent};
 *   <li>{@code SHELLY_MODEL}: the {@code model} of the entry agent (its own model on its provider);
 *   <li>{@code SHELLY_<SECTION>_<FIELD>} for the single-valued fields of the sections
 *       {@code approvals}, {@code redis}, {@code telemetry} and {@code console}, the section and field
 *       upper-cased:
 *       {@code SHELLY_APPROVALS_TIMEOUT}, {@code SHELLY_APPROVALS_ON_TIMEOUT},
 *       {@code SHELLY_REDIS_URL}, {@code SHELLY_REDIS_KEY_PREFIX}, {@code SHELLY_REDIS_TLS},
 *       {@code SHELLY_REDIS_TIMEOUT}, {@code SHELLY_TELEMETRY_ENDPOINT},
 *       {@code SHELLY_TELEMETRY_PROTOCOL}, {@code SHELLY_TELEMETRY_SERVICE_NAME},
 *       {@code SHELLY_TELEMETRY_CAPTURE_CONTENT}, {@code SHELLY_CONSOLE_PORT},
 *       {@code SHELLY_CONSOLE_BIND} and {@code SHELLY_CONSOLE_TOKEN}.
 * </ul>
 * A variable that is unset or empty overrides nothing. A bad value is reported at the variable:
 * {@code environment variable SHELLY_APPROVALS_TIMEOUT: must be positive, was PT0S}.
 */
final class EnvOverrides {
    /** The variable that sets the entry agent. */
    static final String ENTRY_AGENT = "SHELLY_ENTRY_AGENT";
    /** The variable that sets the entry agent's model. */
    static final String MODEL = "SHELLY_MODEL";

    /** The overridable fields of each section; true for a field read as true or false. */
    private static final Map<String, Map<String, Boolean>> SECTIONS = Map.of(
            "approvals", Map.of("timeout", false, "on_timeout", false),
            "redis", Map.of("url", false, "key_prefix", false, "tls", true, "timeout", false, "task_lease", false),
            "telemetry", Map.of("endpoint", false, "protocol", false, "service_name", false, "capture_content", true),
            "console", Map.of("port", false, "bind", false, "token", false));

    private EnvOverrides() {}

    /**
     * Lays the variables that are set over the settings.
     *
     * @param settings the merged settings, editable
     * @param env looks up the variables
     * @throws ConfigException at the variable when {@code SHELLY_MODEL} is set and no entry agent is named
     */
    static void apply(Layer settings, Function<String, String> env) {
        ObjectNode root = settings.root();
        String entry = value(env, ENTRY_AGENT);
        if (entry != null) {
            root.put("entry_agent", entry);
            settings.places().put("entry_agent", place(ENTRY_AGENT));
        }
        for (Map.Entry<String, Map<String, Boolean>> section : SECTIONS.entrySet()) {
            for (Map.Entry<String, Boolean> field : section.getValue().entrySet()) {
                String name = variable(section.getKey(), field.getKey());
                String value = value(env, name);
                if (value == null) {
                    continue;
                }
                JsonNode existing = root.get(section.getKey());
                ObjectNode node = existing instanceof ObjectNode o ? o : root.putObject(section.getKey());
                if (field.getValue() && (value.equalsIgnoreCase("true") || value.equalsIgnoreCase("false"))) {
                    node.put(field.getKey(), Boolean.parseBoolean(value));
                } else {
                    node.put(field.getKey(), value);
                }
                settings.places().put(section.getKey() + "." + field.getKey(), place(name));
            }
        }
        String model = value(env, MODEL);
        if (model != null) {
            setModel(settings, model);
        }
    }

    /** Sets the entry agent's model: the named entry agent, or the only agent. */
    private static void setModel(Layer settings, String model) {
        JsonNode agents = settings.root().get("agents");
        JsonNode entry = settings.root().get("entry_agent");
        int index = -1;
        if (agents != null && agents.isArray()) {
            if (entry != null && entry.isString()) {
                for (int i = 0; i < agents.size(); i++) {
                    if (entry.stringValue().equals(Layer.nameOf(agents.get(i)))) {
                        index = i;
                    }
                }
            } else if (agents.size() == 1) {
                index = 0;
            }
        }
        if (index < 0 && (entry == null || !entry.isString())) {
            throw new ConfigException(place(MODEL).source(), 0, "", "sets the model of the entry agent, but none is "
                    + "named: set entry_agent (or " + ENTRY_AGENT + ")");
        }
        if (index >= 0 && agents.get(index) instanceof ObjectNode agent) {
            agent.put("model", model);
            settings.places().put("agents[" + index + "].model", place(MODEL));
        }
        // An entry agent that is not configured is reported by the checks, at entry_agent.
    }

    private static String variable(String section, String field) {
        return "SHELLY_" + section.toUpperCase(Locale.ROOT) + "_" + field.toUpperCase(Locale.ROOT);
    }

    private static String value(Function<String, String> env, String name) {
        String value = env.apply(name);
        return value == null || value.isEmpty() ? null : value;
    }

    private static Place place(String variable) {
        return new Place("environment variable " + variable, 0, "");
    }
}
