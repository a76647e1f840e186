package dev.shelly.engine.config;

import java.util.Map;

/**
 * Where each field of a configuration file is: its path, such as {@code agents[2].provider},
 * to the 1-based line its value starts on. Built in the same pass that parses the file, so that
 * any error found later (while binding, checking references or building a provider) is reported
 * at the line of its field.
 */
final class Locations {
    /** The locations of a configuration built in code: no file, no lines. */
    static final Locations NONE = new Locations(null, Map.of());

    private final String file;
    private final Map<String, Integer> lines;

    Locations(String file, Map<String, Integer> lines) {
        this.file = file;
        this.lines = Map.copyOf(lines);
    }

    /** The file, or null for a configuration built in code. */
    String file() {
        return file;
    }

    /**
     * The line of a field, or of its nearest enclosing field when the field itself is absent
     * from the file (a missing required field is reported at its section).
     *
     * @return the line, or 0 when neither the field nor any enclosing one is in the file
     */
    int lineOf(String path) {
        String p = path;
        while (!p.isEmpty()) {
            Integer line = lines.get(p);
            if (line != null) {
                return line;
            }
            int cut = Math.max(p.lastIndexOf('.'), p.lastIndexOf('['));
            p = cut < 0 ? "" : p.substring(0, cut);
        }
        return 0;
    }

    /** An error at a field, located by this index. */
    ConfigException error(String path, String problem) {
        return new ConfigException(file, lineOf(path), path, problem);
    }
}
