package dev.shelly.mcp;

import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.util.DefaultMcpUriTemplateManager;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * Turns an {@link McpToolServer}'s resources, prompts and completions into the SDK's
 * specifications; every reader, renderer and completer runs on the server's virtual threads.
 */
final class ServedFeatures {
    private final String server;
    private final Scheduler threads;

    ServedFeatures(String server, Scheduler threads) {
        this.server = server;
        this.threads = threads;
    }

    /**
     * Adds the server's resources (fixed or templates), prompts and completions to the SDK's
     * specification, with the capabilities they need.
     */
    void register(McpServer.AsyncSpecification<?> spec, McpSchema.ServerCapabilities.Builder capabilities,
            McpToolServer.Builder settings) {
        if (!settings.resources.isEmpty()) {
            capabilities.resources(true, false);
        }
        if (!settings.prompts.isEmpty()) {
            capabilities.prompts(false);
        }
        if (!settings.completions.isEmpty()) {
            capabilities.completions();
        }
        for (McpResource resource : settings.resources.values()) {
            if (resource.isTemplate()) {
                spec.resourceTemplates(template(resource));
            } else {
                spec.resources(resource(resource));
            }
        }
        for (McpPrompt prompt : settings.prompts.values()) {
            spec.prompts(prompt(prompt));
        }
        settings.completions.forEach((reference, completer) -> spec.completions(completion(reference, completer)));
    }

    McpServerFeatures.AsyncResourceSpecification resource(McpResource resource) {
        McpSchema.Resource wire = McpSchema.Resource.builder(resource.uri(), resource.name()).title(resource.title())
                .description(resource.description()).mimeType(resource.mimeType()).build();
        return new McpServerFeatures.AsyncResourceSpecification(wire,
                (exchange, request) -> read(resource, request.uri(), Map.of()));
    }

    McpServerFeatures.AsyncResourceTemplateSpecification template(McpResource resource) {
        McpSchema.ResourceTemplate wire = McpSchema.ResourceTemplate.builder(resource.uri(), resource.name())
                .title(resource.title()).description(resource.description()).mimeType(resource.mimeType()).build();
        DefaultMcpUriTemplateManager template = new DefaultMcpUriTemplateManager(resource.uri());
        return new McpServerFeatures.AsyncResourceTemplateSpecification(wire,
                (exchange, request) -> read(resource, request.uri(), template.extractVariableValues(request.uri())));
    }

    private Mono<McpSchema.ReadResourceResult> read(McpResource resource, String uri, Map<String, String> variables) {
        return Mono.fromCallable(() -> {
            List<McpResource.Contents> contents;
            try {
                contents = resource.reader().read(uri, variables);
            } catch (Exception e) {
                throw failure("reading resource " + uri + " failed: " + e.getMessage());
            }
            if (contents == null) {
                throw failure("the reader of resource " + uri + " returned nothing");
            }
            List<McpSchema.ResourceContents> wire = new ArrayList<>();
            for (McpResource.Contents c : contents) {
                wire.add(McpContent.toMcp(c));
            }
            return McpSchema.ReadResourceResult.builder(wire).build();
        }).subscribeOn(threads);
    }

    McpServerFeatures.AsyncPromptSpecification prompt(McpPrompt prompt) {
        List<McpSchema.PromptArgument> arguments = new ArrayList<>();
        for (McpPrompt.Argument a : prompt.arguments()) {
            arguments.add(McpSchema.PromptArgument.builder(a.name()).description(a.description()).required(a.required()).build());
        }
        McpSchema.Prompt wire = McpSchema.Prompt.builder(prompt.name()).title(prompt.title()).description(prompt.description())
                .arguments(arguments).build();
        return new McpServerFeatures.AsyncPromptSpecification(wire, (exchange, request) -> Mono.fromCallable(() -> {
            Map<String, String> given = new LinkedHashMap<>();
            if (request.arguments() != null) {
                request.arguments().forEach((k, v) -> given.put(k, v == null ? null : String.valueOf(v)));
            }
            for (McpPrompt.Argument a : prompt.arguments()) {
                if (a.required() && given.get(a.name()) == null) {
                    throw invalid("prompt '" + prompt.name() + "' needs the argument '" + a.name() + "'");
                }
            }
            List<McpPrompt.Message> messages;
            try {
                messages = prompt.renderer().render(Map.copyOf(given));
            } catch (Exception e) {
                throw failure("rendering prompt '" + prompt.name() + "' failed: " + e.getMessage());
            }
            List<McpSchema.PromptMessage> wireMessages = new ArrayList<>();
            for (McpPrompt.Message m : messages) {
                wireMessages.add(new McpSchema.PromptMessage(m.assistant() ? McpSchema.Role.ASSISTANT : McpSchema.Role.USER,
                        McpContent.toMcp(m.content())));
            }
            return McpSchema.GetPromptResult.builder(wireMessages).description(prompt.description()).build();
        }).subscribeOn(threads));
    }

    McpServerFeatures.AsyncCompletionSpecification completion(String reference, McpToolServer.ArgumentCompleter completer) {
        McpSchema.CompleteReference ref = reference.contains(":")
                ? new McpSchema.ResourceReference(reference)
                : new McpSchema.PromptReference(reference);
        return new McpServerFeatures.AsyncCompletionSpecification(ref, (exchange, request) -> Mono.fromCallable(() -> {
            String argument = request.argument() == null ? "" : request.argument().name();
            String value = request.argument() == null || request.argument().value() == null ? "" : request.argument().value();
            List<String> values;
            try {
                values = completer.complete(argument, value);
            } catch (Exception e) {
                throw failure("completing argument '" + argument + "' of " + reference + " failed: " + e.getMessage());
            }
            List<String> first = values == null ? List.of() : values.subList(0, Math.min(values.size(), 100));
            return new McpSchema.CompleteResult(new McpSchema.CompleteResult.CompleteCompletion(first,
                    values == null ? 0 : values.size(), values != null && values.size() > first.size()));
        }).subscribeOn(threads));
    }

    private McpError failure(String message) {
        return McpError.builder(McpSchema.ErrorCodes.INTERNAL_ERROR).message("MCP server '" + server + "': " + message).build();
    }

    private McpError invalid(String message) {
        return McpError.builder(McpSchema.ErrorCodes.INVALID_PARAMS).message("MCP server '" + server + "': " + message).build();
    }
}
