package dev.shelly.engine.config;

import java.util.HashMap;
import java.util.Map;

/**
 * Where each field of a configuration came from: its path, such as {@code agents[2].provider},
 * to the file (or environment variable) that gave it, the 1-based line its value starts on, and
 * the field's path as that source spells it. Built in the same pass that parses a file, so that
 * any error found later (while binding, checking references or building a provider) is reported
 * at the line of its field; when the settings of several files are merged, each field keeps the
 * place it came from.
 */
final class Locations {
    /** The locations of a configuration built in code: no file, no lines. */
    static final Locations NONE = new Locations(null, Map.of());

    /**
     * Where one field's value came from.
     *
     * @param source the file, or the environment variable, that gave the value
     * @param line the 1-based line, or 0 when the source has no lines
     * @param path the field's path as the source spells it (empty when the source names it)
     */
    record Place(String source, int line, String path) {}

    private final String file;
    private final Map<String, Place> places;

    /**
     * The locations of settings, from one file or merged from several sources.
     *
     * @param file the main file: where a field no source gave is reported
     * @param places each field's path to where it came from
     */
    Locations(String file, Map<String, Place> places) {
        this.file = file;
        this.places = Map.copyOf(places);
    }

    /**
     * The locations of one file.
     *
     * @param file the file
     * @param lines each field's path to its line
     */
    static Locations of(String file, Map<String, Integer> lines) {
        Map<String, Place> all = new HashMap<>();
        lines.forEach((path, line) -> all.put(path, new Place(file, line, path)));
        return new Locations(file, all);
    }

    /** The file, or null for a configuration built in code. */
    String file() {
        return file;
    }

    /** Every field's place, by its path. */
    Map<String, Place> places() {
        return places;
    }

    /**
     * The place of a field, or of its nearest enclosing field when the field itself is absent
     * (a missing required field is reported at its section).
     *
     * @return the path found and its place, or null when neither the field nor any enclosing one is known
     */
    private Map.Entry<String, Place> nearest(String path) {
        String p = path;
        while (!p.isEmpty()) {
            Place place = places.get(p);
            if (place != null) {
                return Map.entry(p, place);
            }
            int cut = Math.max(p.lastIndexOf('.'), p.lastIndexOf('['));
            p = cut < 0 ? "" : p.substring(0, cut);
        }
        return null;
    }

    /** An error at a field, located by this index: in the source that gave the field, by its spelling there. */
    ConfigException error(String path, String problem) {
        Map.Entry<String, Place> found = nearest(path);
        if (found == null) {
            return new ConfigException(file, 0, path, problem);
        }
        Place place = found.getValue();
        String rest = path.substring(found.getKey().length());
        String shown = place.path().isEmpty() && rest.startsWith(".") ? rest.substring(1) : place.path() + rest;
        return new ConfigException(place.source(), place.line(), shown, problem);
    }
}
