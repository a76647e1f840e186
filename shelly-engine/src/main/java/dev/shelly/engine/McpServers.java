package dev.shelly.engine;

import dev.shelly.agent.AgentEvent;
import dev.shelly.agent.RunContext;
import dev.shelly.chats.Image;
import dev.shelly.chats.Message;
import dev.shelly.chats.Part;
import dev.shelly.chats.Role;
import dev.shelly.chats.Text;
import dev.shelly.engine.config.AgentConfig;
import dev.shelly.engine.config.ConfigException;
import dev.shelly.engine.config.EngineConfig;
import dev.shelly.engine.config.McpServerConfig;
import dev.shelly.mcp.McpBlock;
import dev.shelly.mcp.McpEndpoint;
import dev.shelly.mcp.McpException;
import dev.shelly.mcp.McpOAuth;
import dev.shelly.mcp.McpPrompt;
import dev.shelly.mcp.McpToolClient;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.ModelTable;
import dev.shelly.tools.ToolContext;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Connects the configured MCP servers. The only engine classes that name types of shelly-mcp, an
 * optional dependency, are this one and {@link McpTokenFile}: the engine loads them only when the
 * config lists MCP servers, after {@link McpSupport#require} has checked that shelly-mcp is there.
 */
final class McpServers {
    /** How long the engine waits for the person's browser to come back from an authorization page. */
    static final Duration CONSENT_TIMEOUT = Duration.ofMinutes(5);

    private final EngineConfig config;
    private final Path projectDir;
    private final Supplier<Map<String, Object>> meta;
    private final Map<String, Completer> models;
    private final ModelTable prices;
    private final McpOAuth.Consent consent;
    private final McpOAuth.TokenStore tokens;

    /**
     * Connects servers with these settings.
     *
     * @param meta gives each tool call's {@code _meta} (the trace context), or null
     * @param models each provider's completer, fallbacks included, by name
     * @param prices what model calls cost
     * @param consent the application's consent step, or null
     * @param tokens the token store given in code, or null for {@code .shelly/mcp-tokens.json}
     *     (in memory without a folder)
     */
    McpServers(EngineConfig config, Path projectDir, ShellyDir dir, Supplier<Map<String, Object>> meta,
            Map<String, Completer> models, ModelTable prices, McpOAuth.Consent consent, McpOAuth.TokenStore tokens) {
        this.config = config;
        this.projectDir = projectDir;
        this.meta = meta;
        this.models = models;
        this.prices = prices;
        this.consent = consent;
        this.tokens = tokens != null ? tokens
                : dir != null ? new McpTokenFile(dir.root().resolve(McpTokenFile.NAME)) : McpOAuth.TokenStore.inMemory();
    }

    /** Connects one server, the {@code index}th of the configuration. */
    McpConnection connect(McpServerConfig server, int index) {
        try {
            return open(server);
        } catch (RuntimeException e) {
            ConfigException error = config.errorAt("mcp_servers[" + index + "]", "MCP server '" + server.name()
                    + "' did not start: " + e.getMessage());
            error.initCause(e);
            throw error;
        }
    }

    /**
     * Connects one server: a configured one, or one a skill brings (whose working directory is
     * already absolute).
     *
     * @throws RuntimeException when it does not start
     */
    McpConnection open(McpServerConfig server) {
        McpEndpoint endpoint;
        if (server.isStdio()) {
            Path cwd = server.workingDir() == null ? projectDir : projectDir.resolve(server.workingDir());
            endpoint = new McpEndpoint.Stdio(server.command(), server.args(), server.env(), cwd, false);
        } else {
            endpoint = new McpEndpoint.Http(URI.create(server.url()), server.headers());
        }
        McpToolClient.Builder builder = McpToolClient.builder(endpoint).name(server.name());
        if (meta != null) {
            builder.requestMeta(meta);
        }
        if (server.resources()) {
            builder.resourceTools();
        }
        List<URI> roots = roots(config, projectDir);
        if (!roots.isEmpty()) {
            builder.roots(roots);
        }
        if (server.prompts()) {
            builder.promptTools();
        }
        builder.onProgress(McpServers::announce);
        if (server.elicitation()) {
            builder.elicitation(McpQuestions::ask);
        }
        if (server.sampling() != null) {
            builder.sampling(sampler(server));
        }
        if (server.oauth() != null) {
            builder.oauth(oauth(server.name(), server.oauth()));
        }
        McpToolClient client = builder.connect();
        return new McpConnection(client.name(), client::toolBox, client::close);
    }

    /** The OAuth of a server's {@code oauth:} section, with the engine's token store and the application's consent. */
    McpOAuth oauth(String name, McpServerConfig.OAuth settings) {
        McpOAuth.Builder oauth = McpOAuth.builder().clientName(settings.clientName()).tokenStore(tokens)
                .scopes(settings.scopes());
        if (settings.resource() != null) {
            oauth.resource(settings.resource());
        }
        if (settings.grant() == McpServerConfig.OAuth.Grant.CLIENT_CREDENTIALS) {
            return oauth.clientCredentials(settings.clientId(), settings.clientSecret()).build();
        }
        if (settings.clientId() != null) {
            oauth.preRegistered(settings.clientId(), settings.clientSecret());
        }
        McpOAuth.Consent step = consent != null ? consent : page -> {
            throw new McpException("MCP server '" + name + "' needs the person's authorization, and the engine has no"
                    + " consent step to show them the page; give it one with Engine.Builder.mcpConsent");
        };
        return oauth.redirectUri(settings.redirectUri())
                .consent(settings.consent() == McpServerConfig.OAuth.Consent.LOOPBACK
                        ? McpOAuth.Consent.loopback(step, CONSENT_TIMEOUT) : step)
                .build();
    }

    /** The coding agents' workspaces, which MCP servers are given as their roots ({@code roots/list}). */
    static List<URI> roots(EngineConfig config, Path projectDir) {
        List<URI> roots = new ArrayList<>();
        for (AgentConfig agent : config.agents()) {
            if (agent.coding() != null) {
                URI root = projectDir.resolve(agent.coding().workspace() == null ? "." : agent.coding().workspace())
                        .toAbsolutePath().normalize().toUri();
                if (!roots.contains(root)) {
                    roots.add(root);
                }
            }
        }
        return roots;
    }

    /** Progress of a tool call goes to the calling run's listener as an {@link AgentEvent.ToolProgress}. */
    static void announce(McpToolClient.Progress progress) {
        ToolContext caller = progress.caller();
        RunContext run = caller == null ? null : caller.values().get(RunContext.KEY).orElse(null);
        if (run != null) {
            run.listener().onEvent(new AgentEvent.ToolProgress(source(caller), progress.tool(), progress.progress(),
                    progress.total(), progress.message()));
        }
    }

    private static AgentEvent.Source source(ToolContext caller) {
        return new AgentEvent.Source(caller.agent(), caller.parent(), caller.depth(), caller.runId(), caller.parentRunId(),
                caller.sessionId());
    }

    /**
     * Who answers a server's sampling requests ({@code sampling:}): the named provider's model,
     * or, for {@value McpServerConfig#AGENT_MODEL}, the model of the agent whose tool call the
     * server is serving (refused outside a tool call).
     */
    McpToolClient.Sampling.Handler sampler(McpServerConfig server) {
        String named = server.sampling();
        return sampler(request -> {
            if (!named.equals(McpServerConfig.AGENT_MODEL)) {
                return models.get(named);
            }
            ToolContext caller = request.caller();
            if (caller == null) {
                throw new IllegalArgumentException("MCP server '" + server.name() + "' asked for sampling outside a tool call;"
                        + " it is answered by the model of the agent whose tool call it serves");
            }
            return config.agents().stream().filter(a -> a.name().equals(caller.agent())).findFirst()
                    .map(a -> models.get(config.providerOf(a).name()))
                    .orElseThrow(() -> new IllegalArgumentException("agent '" + caller.agent() + "', whose tool call MCP server '"
                            + server.name() + "' serves, is not a configured agent; its model is not known here"));
        }, prices);
    }

    /**
     * Answers a server's sampling requests with a model: its system prompt and messages (text;
     * images as they are), at most its token limit. A request made during a tool call is a model
     * call of the calling run ({@link RunContext#complete}): it passes the run's interceptors and
     * observers, and its usage and cost count in the run's totals and budget.
     *
     * @param model the model for a request
     * @param prices what a call's usage costs
     */
    static McpToolClient.Sampling.Handler sampler(Function<McpToolClient.Sampling, Completer> model, ModelTable prices) {
        return request -> {
            Completer completer = model.apply(request);
            List<Message> messages = new ArrayList<>();
            if (request.systemPrompt() != null && !request.systemPrompt().isBlank()) {
                messages.add(Message.system(request.systemPrompt()));
            }
            for (McpPrompt.Message m : request.messages()) {
                Part part = switch (m.content()) {
                    case McpBlock.Text t -> new Text(t.text());
                    case McpBlock.Image i -> Image.ofBase64(i.base64(), i.mimeType());
                    default -> throw new IllegalArgumentException("MCP server '" + request.server() + "' asked for sampling"
                            + " with content the models here are not sent: " + m.content().getClass().getSimpleName());
                };
                messages.add(Message.of(m.assistant() ? "assistant" : "user", m.assistant() ? Role.ASSISTANT : Role.USER, part));
            }
            ModelRequest.Builder call = ModelRequest.builder().messages(messages);
            if (request.maxTokens() > 0) {
                call.maxTokens(request.maxTokens());
            }
            RunContext run = request.caller() == null ? null : RunContext.from(request.caller()).orElse(null);
            ModelResponse response = run == null ? completer.complete(call.build()) : run.complete(completer, call.build(), prices);
            return new McpToolClient.Sampling.Reply(response.message().text(), response.model(),
                    switch (response.stopReason()) {
                        case MAX_TOKENS -> "maxTokens";
                        case STOP_SEQUENCE -> "stopSequence";
                        default -> "endTurn";
                    });
        };
    }
}
