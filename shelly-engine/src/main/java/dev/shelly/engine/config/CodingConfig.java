package dev.shelly.engine.config;

import dev.shelly.modeladapter.spi.InvalidSettingException;
import java.time.Duration;
import java.util.List;

/**
 * The coding toolbox of an agent: the {@code coding:} section of an agent. The agent gets the
 * file, search, command and git tools of shelly-coding (an optional dependency of the engine,
 * which must then be on the class path), confined to the workspace.
 *
 * <pre>{@code
 * agents:
 *   - name: coder
 *     coding:
 *       workspace: .            # relative to the project directory
 *       allow_commands: [java, mvn, git]
 *       deny_commands: [rm]
 *       timeout: 60s
 *       shell: false
 *       push: false
 *       sensitive: ["*.secret", "config/prod/*"]
 *       sandbox: bubblewrap     # default on Linux; none runs commands unconfined, on purpose
 *       network: false          # default: sandboxed commands have no network
 *       hide: [/srv/data]       # more paths commands must not see
 *     approval:
 *       allow: [fs_edit]        # the agent's rules win over the coding defaults
 * }</pre>
 *
 * <p>Approval defaults: writes, deletes, commands and commits ask, reads and searches are
 * allowed; the agent's {@code approval:} rules win over them for the tools they name.
 *
 * @param workspace the workspace directory, relative to the project directory (the one holding
 *     {@code .shelly}) or absolute; null for the project directory
 * @param allowCommands the only programs commands may run: names (resolved once on the search
 *     path) or absolute paths, each optionally with the arguments every call must start with
 *     ({@code "python3 -m pytest"}); empty for every program not denied
 * @param denyCommands programs refused beside the toolbox's default denylist
 * @param timeout how long a command may run (default 30 s; from 1 s to 10 min)
 * @param shell whether commands may be a line run by {@code sh -c}; null for no
 * @param push whether {@code git push} is allowed; null for no
 * @param sensitive sensitive-file patterns beside the defaults ({@code .env}, private keys,
 *     {@code .shelly}, ...)
 * @param sandbox {@code bubblewrap} (the default on Linux) or {@code none} to run commands and
 *     git without confinement, on purpose; null for the default
 * @param network whether sandboxed commands may reach the network; null for no
 * @param hide absolute paths, beside the defaults, that sandboxed commands must not see
 */
public record CodingConfig(String workspace, List<String> allowCommands, List<String> denyCommands, Duration timeout,
        Boolean shell, Boolean push, List<String> sensitive, String sandbox, Boolean network, List<String> hide) {

    /** The values {@code sandbox:} takes. */
    public static final List<String> SANDBOXES = List.of("bubblewrap", "none");

    /** Validates and copies. */
    public CodingConfig {
        Fields.notBlank(workspace, "workspace");
        allowCommands = entries(allowCommands, "allow_commands");
        denyCommands = programs(denyCommands, "deny_commands");
        if (timeout != null && (timeout.toSeconds() < 1 || timeout.compareTo(Duration.ofMinutes(10)) > 0)) {
            throw new InvalidSettingException("timeout", "must be from 1s to 10m, got " + timeout);
        }
        if (sensitive == null) {
            sensitive = List.of();
        }
        for (int i = 0; i < sensitive.size(); i++) {
            if (sensitive.get(i) == null || sensitive.get(i).isBlank()) {
                throw new InvalidSettingException("sensitive[" + i + "]", "a pattern must not be empty");
            }
        }
        sensitive = List.copyOf(sensitive);
        if (sandbox != null && !SANDBOXES.contains(sandbox)) {
            throw new InvalidSettingException("sandbox", "expected one of " + String.join(", ", SANDBOXES) + ", got '"
                    + sandbox + "'");
        }
        if (hide == null) {
            hide = List.of();
        }
        for (int i = 0; i < hide.size(); i++) {
            String h = hide.get(i);
            if (h == null || !h.startsWith("/")) {
                throw new InvalidSettingException("hide[" + i + "]", "expected an absolute path, got '" + h + "'");
            }
        }
        hide = List.copyOf(hide);
    }

    private static List<String> entries(List<String> values, String field) {
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

    private static List<String> programs(List<String> values, String field) {
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

    /**
     * Whether commands may use a shell.
     *
     * @return true when {@code shell: true}
     */
    public boolean shellAllowed() {
        return Boolean.TRUE.equals(shell);
    }

    /**
     * Whether sandboxed commands may reach the network.
     *
     * @return true when {@code network: true}
     */
    public boolean networkAllowed() {
        return Boolean.TRUE.equals(network);
    }

    /**
     * Whether {@code git push} is allowed.
     *
     * @return true when {@code push: true}
     */
    public boolean pushAllowed() {
        return Boolean.TRUE.equals(push);
    }
}
