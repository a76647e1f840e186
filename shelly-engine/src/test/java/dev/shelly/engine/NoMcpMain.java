package dev.shelly.engine;

import dev.shelly.engine.config.ConfigException;
import dev.shelly.testing.ScriptedCompleter;
import dev.shelly.testing.Step;
import java.nio.file.Path;

/**
 * Run by {@link McpSupportTest} in a JVM without shelly-mcp: builds an engine from a config
 * without MCP servers and runs a turn, then builds one from a config with MCP servers.
 */
public final class NoMcpMain {
    private NoMcpMain() {}

    /**
     * Prints what happened, one line each.
     *
     * @param args the .shelly folder without MCP servers, then the one with
     */
    public static void main(String[] args) {
        try {
            Class.forName(McpSupport.CLIENT_CLASS);
            System.out.println("shelly-mcp: present");
        } catch (ClassNotFoundException e) {
            System.out.println("shelly-mcp: absent");
        }
        try (Engine engine = Engine.builder().dir(new ShellyDir(Path.of(args[0])))
                .completer("m", ScriptedCompleter.of(Step.reply("hello"))).build()) {
            System.out.println("reply: " + engine.newSession().send("hi").text());
        }
        try (Engine engine = Engine.builder().dir(new ShellyDir(Path.of(args[1])))
                .completer("m", ScriptedCompleter.of()).build()) {
            System.out.println("built: " + engine);
        } catch (ConfigException e) {
            System.out.println("error: " + e.getMessage());
        }
    }
}
