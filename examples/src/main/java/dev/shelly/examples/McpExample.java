package dev.shelly.examples;

import dev.shelly.agent.Agent;
import dev.shelly.chats.Message;
import dev.shelly.testing.Step;
import dev.shelly.mcp.McpEndpoint;
import dev.shelly.mcp.McpToolClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * MCP tools (section 14.7): the program starts an MCP server as a subprocess speaking stdio
 * ({@link DemoMcpServer}, from the same jar), connects with {@link McpToolClient}, and gives its
 * tools to an agent, which cannot tell them from local ones. Closing the client stops the server.
 */
public final class McpExample implements Example {

    @Override
    public String name() {
        return "mcp";
    }

    @Override
    public String description() {
        return "an agent uses the tools of an MCP server it starts as a subprocess";
    }

    @Override
    public String defaultPrompt() {
        return "Which files mention a deadline? Quote the lines.";
    }

    @Override
    public Message run(ExampleRun run) {
        McpEndpoint.Stdio server = DemoMcpServer.endpoint();
        McpToolClient.Builder client = McpToolClient.builder(server).name("demo-files");
        run.telemetry().ifPresent(t -> client.requestMeta(t::mcpMeta));   // the trace goes on in the server's _meta
        try (McpToolClient files = client.connect()) {
            run.note("[mcp] started " + files.serverName() + " " + files.serverVersion() + " as process "
                    + files.process().map(p -> Long.toString(p.pid())).orElse("?") + "; its tools: "
                    + String.join(", ", files.toolBox().names()));

            Agent agent = Agent.builder("file-agent")
                    .description("Answers questions about files")
                    .instructions("Use the available tools to find and read the files you need.")
                    .completer(run.model(script()))
                    .toolboxes(files.toolBox())   // live: follows the server's tool list
                    .maxIterations(10)
                    .listener(run.listener())
                    .build();
            return agent.run(run.prompt(), run.scope());
        }
    }

    /** The scripted model: lists the files, reads them all in one turn, quotes the lines about deadlines. */
    static List<Step> script() {
        return List.of(
                Step.toolCall("list_files", "{}"),
                Scripts.calls(chat -> Scripts.lastResult(chat).lines()
                        .map(name -> new Step.Call("read_file", Scripts.object("path", name)))
                        .toList()),
                Step.reply(chat -> {
                    List<String> names = Scripts.allResults(chat).getFirst().lines().toList();
                    List<String> texts = Scripts.lastResults(chat);
                    List<String> quotes = new ArrayList<>();
                    for (int i = 0; i < Math.min(names.size(), texts.size()); i++) {
                        for (String line : texts.get(i).lines().toList()) {
                            if (line.toLowerCase(Locale.ROOT).contains("deadline")) {
                                quotes.add("- " + names.get(i) + ": \"" + line.replaceFirst("^- ", "") + "\"");
                            }
                        }
                    }
                    return quotes.isEmpty() ? "No file mentions a deadline."
                            : "These files mention a deadline:\n" + String.join("\n", quotes);
                }));
    }
}
