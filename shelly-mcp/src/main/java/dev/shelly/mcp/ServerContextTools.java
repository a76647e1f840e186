package dev.shelly.mcp;

import dev.shelly.chats.Part;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolOutput;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import tools.jackson.databind.JsonNode;

/**
 * The tools that bring an MCP server's resources and prompts to an agent, each opt-in per
 * server: {@code list_resources} and {@code read_resource}; {@code get_prompt}, whose description
 * names the server's prompts and their arguments, so a model can pick one as instructions.
 */
final class ServerContextTools {
    private ServerContextTools() {}

    static List<Tool> resources(McpToolClient client, String prefix) {
        Tool list = Tool.of(prefix + "list_resources", "List the resources (documents, data) MCP server '" + client.name()
                + "' offers: URI, name, type and description; a URI with {variables} is a template to fill in.",
                "{\"type\":\"object\",\"properties\":{}}", (in, ctx) -> {
                    List<McpBlock.Link> resources = client.listResources();
                    if (resources.isEmpty()) {
                        return ToolOutput.text("MCP server '" + client.name() + "' offers no resources");
                    }
                    return ToolOutput.text(resources.stream().map(r -> r.uri() + " - " + r.name()
                            + (r.mimeType() == null ? "" : " (" + r.mimeType() + ")")
                            + (r.description() == null ? "" : ": " + r.description())).collect(Collectors.joining("\n")));
                });
        Tool read = Tool.of(prefix + "read_resource", "Read a resource of MCP server '" + client.name() + "' by its URI.",
                "{\"type\":\"object\",\"properties\":{\"uri\":{\"type\":\"string\",\"description\":\"the resource's URI\"}},"
                        + "\"required\":[\"uri\"]}", (in, ctx) -> {
                    String uri = in.path("uri").asString("");
                    List<Part> parts = new ArrayList<>();
                    for (McpResourceContents contents : client.readResource(uri)) {
                        parts.add(McpContent.resource(McpContent.toMcp(contents)));
                    }
                    return parts.isEmpty() ? ToolOutput.text("resource " + uri + " is empty") : new ToolOutput(parts, false);
                }).withInputCheck();
        return List.of(list, read);
    }

    static Tool prompts(McpToolClient client, String prefix, List<McpPrompt> prompts) {
        String catalog = prompts.stream().map(p -> "- " + p.name() + (p.description() == null ? "" : ": " + p.description())
                + (p.arguments().isEmpty() ? "" : " (arguments: " + p.arguments().stream()
                        .map(a -> a.name() + (a.required() ? "" : "?")).collect(Collectors.joining(", ")) + ")"))
                .collect(Collectors.joining("\n"));
        return Tool.of(prefix + "get_prompt", "Get a prompt of MCP server '" + client.name()
                + "': instructions for a task, to follow. Its prompts:\n" + catalog,
                "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},\"arguments\":{\"type\":\"object\","
                        + "\"additionalProperties\":{\"type\":\"string\"}}},\"required\":[\"name\"]}", (in, ctx) -> {
                    Map<String, String> arguments = new LinkedHashMap<>();
                    JsonNode given = in.path("arguments");
                    given.properties().forEach(e -> arguments.put(e.getKey(), e.getValue().asString()));
                    List<Part> parts = new ArrayList<>();
                    for (McpPrompt.Message message : client.prompt(in.path("name").asString(""), arguments)) {
                        parts.add(McpContent.toPart(McpContent.toMcp(message.content())));
                    }
                    return new ToolOutput(parts, false);
                }).withInputCheck();
    }
}
