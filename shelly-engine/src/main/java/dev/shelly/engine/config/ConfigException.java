package dev.shelly.engine.config;

import dev.shelly.chats.ShellyException;
import java.util.Optional;

/**
 * A configuration is wrong. The message names the file (when there is one), the line, the path
 * of the field such as {@code agents[2].provider}, and what was expected.
 */
public final class ConfigException extends ShellyException {
    private static final long serialVersionUID = 1L;

    /** The configuration file, or null for a configuration built in code. */
    private final String file;
    /** The line of the file, from 1, or 0 when unknown. */
    private final int line;
    /** The path of the offending field, such as {@code agents[2].provider}; empty for the whole file. */
    private final String path;
    /** What is wrong and what was expected, without the location. */
    private final String problem;

    /**
     * Creates the exception.
     *
     * @param file the configuration file, or null for a configuration built in code
     * @param line the 1-based line of the field, or 0 when unknown
     * @param path the path of the field, such as {@code agents[2].provider}; empty for the whole file
     * @param problem what is wrong and what was expected
     */
    public ConfigException(String file, int line, String path, String problem) {
        super(format(file, line, path, problem));
        this.file = file;
        this.line = line;
        this.path = path == null ? "" : path;
        this.problem = problem;
    }

    /**
     * The configuration file.
     *
     * @return the file, or empty for a configuration built in code
     */
    public Optional<String> file() {
        return Optional.ofNullable(file);
    }

    /**
     * The 1-based line of the offending field.
     *
     * @return the line, or 0 when unknown
     */
    public int line() {
        return line;
    }

    /**
     * The path of the offending field, such as {@code agents[2].provider}.
     *
     * @return the path; empty for the whole file
     */
    public String path() {
        return path;
    }

    /**
     * What is wrong and what was expected, without the location.
     *
     * @return the problem
     */
    public String problem() {
        return problem;
    }

    private static String format(String file, int line, String path, String problem) {
        StringBuilder sb = new StringBuilder();
        if (file != null) {
            sb.append(file);
            if (line > 0) {
                sb.append(':').append(line);
            }
            sb.append(": ");
        }
        if (path != null && !path.isEmpty()) {
            sb.append(path).append(": ");
        }
        return sb.append(problem).toString();
    }
}
