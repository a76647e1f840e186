package dev.shelly.coding;

import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;

/** Reads a tool call's arguments, refusing a missing or mistyped one by name. */
final class Args {
    private final String tool;
    private final JsonNode in;

    Args(String tool, JsonNode in) {
        this.tool = tool;
        this.in = in;
    }

    String string(String name) {
        String v = optString(name);
        if (v == null) {
            throw new RefusedException("tool '" + tool + "' needs the string parameter '" + name + "'");
        }
        return v;
    }

    String optString(String name) {
        JsonNode n = in.get(name);
        if (n == null || n.isNull()) {
            return null;
        }
        if (!n.isString()) {
            throw new RefusedException("parameter '" + name + "' of tool '" + tool + "' must be a string, got " + n);
        }
        return n.stringValue();
    }

    int integer(String name, int dflt, int min, int max) {
        JsonNode n = in.get(name);
        if (n == null || n.isNull()) {
            return dflt;
        }
        if (!n.isIntegralNumber() || n.asLong() < min || n.asLong() > max) {
            throw new RefusedException("parameter '" + name + "' of tool '" + tool + "' must be a whole number from "
                    + min + " to " + max + ", got " + n);
        }
        return n.asInt();
    }

    boolean bool(String name) {
        JsonNode n = in.get(name);
        if (n == null || n.isNull()) {
            return false;
        }
        if (!n.isBoolean()) {
            throw new RefusedException("parameter '" + name + "' of tool '" + tool + "' must be true or false, got " + n);
        }
        return n.asBoolean();
    }

    List<String> strings(String name, boolean required) {
        JsonNode n = in.get(name);
        if (n == null || n.isNull()) {
            if (required) {
                throw new RefusedException("tool '" + tool + "' needs the parameter '" + name + "' (an array of strings)");
            }
            return List.of();
        }
        if (!n.isArray()) {
            throw new RefusedException("parameter '" + name + "' of tool '" + tool + "' must be an array of strings, got " + n);
        }
        List<String> out = new ArrayList<>();
        for (JsonNode e : n.values()) {
            if (!e.isString()) {
                throw new RefusedException("parameter '" + name + "' of tool '" + tool
                        + "' must be an array of strings; it holds " + e);
            }
            out.add(e.stringValue());
        }
        return out;
    }
}
