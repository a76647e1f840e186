package dev.shelly.engine.config;

import dev.shelly.modeladapter.spi.InvalidSettingException;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An MCP server the engine connects to: a subprocess speaking stdio, or a streamable HTTP URL.
 * Its tools become a toolbox named after the server.
 *
 * @param name the toolbox name agents use
 * @param command the program to start (stdio), or null for an HTTP server
 * @param args the program's arguments
 * @param env extra environment variables for the program
 * @param workingDir the program's working directory, or null for the engine's project folder
 * @param url the streamable HTTP endpoint, or null for a stdio server
 * @param headers HTTP headers for an HTTP server
 * @param resources whether agents get the server's resources as tools ({@code list_resources},
 *     {@code read_resource}); off by default
 * @param prompts whether agents get the server's prompts as a tool ({@code get_prompt}); off by default
 * @param sampling the provider whose model answers the server's sampling requests, or null to
 *     refuse them (the default: a server cannot spend the application's model budget unasked)
 * @param elicitation whether the server may ask the person questions (elicitation): each becomes
 *     a question of the calling run's approvals ({@code Approvals#ask}); off by default
 */
public record McpServerConfig(String name, String command, List<String> args, Map<String, String> env,
        Path workingDir, String url, Map<String, String> headers, boolean resources, boolean prompts, String sampling,
        boolean elicitation) {

    /**
     * Validates that exactly one of command and url is given, that the settings of the other
     * transport are not, and copies.
     */
    public McpServerConfig {
        Fields.required(name, "name");
        Fields.notBlank(command, "command");
        url = Fields.httpUrl(url, "url");
        if ((command == null) == (url == null)) {
            throw new IllegalArgumentException("MCP server '" + name + "' needs either 'command' (a subprocess "
                    + "speaking stdio) or 'url' (streamable HTTP), not " + (command != null ? "both" : "neither"));
        }
        if (url != null) {
            if (args != null && !args.isEmpty()) {
                throw new InvalidSettingException("args", "'args' applies to a command, not to a url server");
            }
            if (env != null && !env.isEmpty()) {
                throw new InvalidSettingException("env", "'env' applies to a command, not to a url server");
            }
            if (workingDir != null) {
                throw new InvalidSettingException("working_dir", "'working_dir' applies to a command, not to a url server");
            }
        } else if (headers != null && !headers.isEmpty()) {
            throw new InvalidSettingException("headers", "'headers' applies to a url server, not to a command");
        }
        Fields.notBlank(sampling, "sampling");
        args = args == null ? List.of() : List.copyOf(args);
        env = env == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(env));
        headers = headers == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(headers));
    }

    /**
     * A server started as a subprocess speaking MCP over stdio.
     *
     * @param name the toolbox name
     * @param command the program
     * @param args its arguments
     * @return the configuration
     */
    public static McpServerConfig stdio(String name, String command, String... args) {
        return new McpServerConfig(name, command, List.of(args), Map.of(), null, null, Map.of(), false, false, null, false);
    }

    /**
     * A server reached over streamable HTTP.
     *
     * @param name the toolbox name
     * @param url the endpoint
     * @return the configuration
     */
    public static McpServerConfig http(String name, String url) {
        return new McpServerConfig(name, null, List.of(), Map.of(), null, url, Map.of(), false, false, null, false);
    }

    /**
     * Whether this server is a subprocess.
     *
     * @return true for stdio
     */
    public boolean isStdio() {
        return command != null && !command.isBlank();
    }

    @Override
    public String toString() {
        return isStdio()
                ? "McpServerConfig[name=" + name + ", command=" + command + ", args=" + args + ", env=" + env.keySet()
                        + ", workingDir=" + workingDir + "]"
                : "McpServerConfig[name=" + name + ", url=" + url + ", headers=" + headers.keySet() + "]";
    }
}
