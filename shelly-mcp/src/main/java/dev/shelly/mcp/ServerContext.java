package dev.shelly.mcp;

import dev.shelly.chats.Part;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolOutput;
import io.modelcontextprotocol.spec.McpSchema;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import tools.jackson.databind.JsonNode;

/**
 * An MCP server's resources and prompts, as an {@link McpToolClient} reads them, and the tools
 * that bring them to an agent, each opt-in per server: {@code list_resources} and
 * {@code read_resource}; {@code get_prompt}, whose description names the server's prompts and
 * their arguments, so a model can pick one as instructions.
 */
final class ServerContext {
    private final ClientSession session;
    private final Duration callTimeout;
    private final boolean resourceTools;
    private final boolean promptTools;
    private final String prefix;

    ServerContext(ClientSession session, McpToolClient.Builder b) {
        this.session = session;
        this.callTimeout = b.callTimeout;
        this.resourceTools = b.resourceTools;
        this.promptTools = b.promptTools;
        this.prefix = b.toolNamePrefix;
    }

    List<McpBlock.Link> listResources(McpSchema.ServerCapabilities capabilities) {
        return capabilities == null || capabilities.resources() == null ? List.of() : links();
    }

    private List<McpBlock.Link> links() {
        List<McpBlock.Link> links = new ArrayList<>();
        McpSchema.ListResourcesResult listed = session.await(session.client.listResources().toFuture(), callTimeout,
                "list its resources");
        for (McpSchema.Resource r : listed.resources() == null ? List.<McpSchema.Resource>of() : listed.resources()) {
            links.add(new McpBlock.Link(r.uri(), r.name(), r.description(), r.mimeType()));
        }
        McpSchema.ListResourceTemplatesResult templates = session.await(session.client.listResourceTemplates().toFuture(),
                callTimeout, "list its resource templates");
        for (McpSchema.ResourceTemplate t : templates.resourceTemplates() == null
                ? List.<McpSchema.ResourceTemplate>of() : templates.resourceTemplates()) {
            links.add(new McpBlock.Link(t.uriTemplate(), t.name(), t.description(), t.mimeType()));
        }
        return links;
    }

    List<McpResource.Contents> readResource(String uri) {
        if (uri == null || uri.isBlank()) {
            throw new IllegalArgumentException("McpToolClient.readResource uri must not be null or blank");
        }
        McpSchema.ReadResourceResult read = session.await(session.client.readResource(
                McpSchema.ReadResourceRequest.builder(uri).build()).toFuture(), callTimeout, "read resource " + uri);
        List<McpResource.Contents> contents = new ArrayList<>();
        for (McpSchema.ResourceContents c : read.contents() == null ? List.<McpSchema.ResourceContents>of() : read.contents()) {
            if (c instanceof McpSchema.TextResourceContents t) {
                contents.add(McpResource.Contents.text(t.uri() == null ? uri : t.uri(), t.mimeType(),
                        t.text() == null ? "" : t.text()));
            } else if (c instanceof McpSchema.BlobResourceContents b) {
                contents.add(McpResource.Contents.blob(b.uri() == null ? uri : b.uri(), b.mimeType(),
                        b.blob() == null ? "" : b.blob()));
            }
        }
        return contents;
    }

    List<McpPrompt> listPrompts(McpSchema.ServerCapabilities capabilities) {
        if (capabilities == null || capabilities.prompts() == null) {
            return List.of();
        }
        McpSchema.ListPromptsResult listed = session.await(session.client.listPrompts().toFuture(), callTimeout,
                "list its prompts");
        List<McpPrompt> prompts = new ArrayList<>();
        for (McpSchema.Prompt p : listed.prompts() == null ? List.<McpSchema.Prompt>of() : listed.prompts()) {
            List<McpPrompt.Argument> arguments = new ArrayList<>();
            for (McpSchema.PromptArgument a : p.arguments() == null ? List.<McpSchema.PromptArgument>of() : p.arguments()) {
                arguments.add(new McpPrompt.Argument(a.name(), a.description(), Boolean.TRUE.equals(a.required())));
            }
            prompts.add(new McpPrompt(p.name(), p.title(), p.description(), arguments, given -> prompt(p.name(), given)));
        }
        return prompts;
    }

    List<McpPrompt.Message> prompt(String name, Map<String, String> arguments) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("McpToolClient.prompt name must not be null or blank");
        }
        if (arguments == null) {
            throw new IllegalArgumentException("McpToolClient.prompt arguments must not be null");
        }
        McpSchema.GetPromptResult got = session.await(session.client.getPrompt(
                McpSchema.GetPromptRequest.builder(name).arguments(new LinkedHashMap<>(arguments)).build()).toFuture(), callTimeout,
                "give prompt '" + name + "'");
        List<McpPrompt.Message> messages = new ArrayList<>();
        for (McpSchema.PromptMessage m : got.messages() == null ? List.<McpSchema.PromptMessage>of() : got.messages()) {
            messages.add(new McpPrompt.Message(m.role() == McpSchema.Role.ASSISTANT, ClientRequests.block(m.content())));
        }
        return messages;
    }

    /** The resource and prompt tools a client asked for, those the server's capabilities allow. */
    List<Tool> tools(McpSchema.ServerCapabilities capabilities) {
        List<Tool> made = new ArrayList<>();
        if (resourceTools && capabilities != null && capabilities.resources() != null) {
            made.addAll(resourceTools());
        }
        if (promptTools && capabilities != null && capabilities.prompts() != null) {
            List<McpPrompt> offered = listPrompts(capabilities);
            if (!offered.isEmpty()) {
                made.add(promptTool(offered));
            }
        }
        return made;
    }

    private List<Tool> resourceTools() {
        String server = session.label;
        Tool list = Tool.of(prefix + "list_resources", "List the resources (documents, data) MCP server '" + server
                + "' offers: URI, name, type and description; a URI with {variables} is a template to fill in.",
                "{\"type\":\"object\",\"properties\":{}}", (in, ctx) -> {
                    List<McpBlock.Link> resources = links();
                    if (resources.isEmpty()) {
                        return ToolOutput.text("MCP server '" + server + "' offers no resources");
                    }
                    return ToolOutput.text(resources.stream().map(r -> r.uri() + " - " + r.name()
                            + (r.mimeType() == null ? "" : " (" + r.mimeType() + ")")
                            + (r.description() == null ? "" : ": " + r.description())).collect(Collectors.joining("\n")));
                });
        Tool read = Tool.of(prefix + "read_resource", "Read a resource of MCP server '" + server + "' by its URI.",
                "{\"type\":\"object\",\"properties\":{\"uri\":{\"type\":\"string\",\"description\":\"the resource's URI\"}},"
                        + "\"required\":[\"uri\"]}", (in, ctx) -> {
                    String uri = in.path("uri").asString("");
                    List<Part> parts = new ArrayList<>();
                    for (McpResource.Contents contents : readResource(uri)) {
                        parts.add(McpContent.resource(McpContent.toMcp(contents)));
                    }
                    return parts.isEmpty() ? ToolOutput.text("resource " + uri + " is empty") : new ToolOutput(parts, false);
                }).withInputCheck();
        // Both only read: a call a crash cut short runs again.
        return List.of(list.idempotent(true), read.idempotent(true));
    }

    private Tool promptTool(List<McpPrompt> prompts) {
        String server = session.label;
        String catalog = prompts.stream().map(p -> "- " + p.name() + (p.description() == null ? "" : ": " + p.description())
                + (p.arguments().isEmpty() ? "" : " (arguments: " + p.arguments().stream()
                        .map(a -> a.name() + (a.required() ? "" : "?")).collect(Collectors.joining(", ")) + ")"))
                .collect(Collectors.joining("\n"));
        return Tool.of(prefix + "get_prompt", "Get a prompt of MCP server '" + server
                + "': instructions for a task, to follow. Its prompts:\n" + catalog,
                "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},\"arguments\":{\"type\":\"object\","
                        + "\"additionalProperties\":{\"type\":\"string\"}}},\"required\":[\"name\"]}", (in, ctx) -> {
                    Map<String, String> arguments = new LinkedHashMap<>();
                    JsonNode given = in.path("arguments");
                    given.properties().forEach(e -> arguments.put(e.getKey(), e.getValue().asString()));
                    List<Part> parts = new ArrayList<>();
                    for (McpPrompt.Message message : prompt(in.path("name").asString(""), arguments)) {
                        parts.add(McpContent.toPart(McpContent.toMcp(message.content())));
                    }
                    return new ToolOutput(parts, false);
                }).withInputCheck().idempotent(true);
    }
}
