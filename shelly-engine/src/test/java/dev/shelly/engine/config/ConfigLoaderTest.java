package dev.shelly.engine.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.agent.Agent;
import dev.shelly.agent.Approvals;
import dev.shelly.agent.ToolPolicy;
import dev.shelly.agent.context.ContextStrategy;
import dev.shelly.modeladapter.ModelTable.Price;
import dev.shelly.modeladapter.ModelTable;
import dev.shelly.modeladapter.RateLimit;
import dev.shelly.modeladapter.RetryPolicy;
import dev.shelly.storage.spi.RedisConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest {

    private static final Function<String, String> ENV = Map.of("ANTHROPIC_KEY", "sk-ant-secret", "MODEL", "gpt-5")::get;

    private static EngineConfig parse(String yaml) {
        return ConfigLoader.parse(yaml, "config.yaml", ENV).check(null, Set.of());
    }

    private static ConfigException error(String yaml) {
        try {
            parse(yaml);
        } catch (ConfigException e) {
            return e;
        }
        throw new AssertionError("expected a ConfigException");
    }

    private static final String FULL = """
            providers:
              - name: claude
                kind: anthropic
                model: claude-sonnet-4-5
                api_key: ${ANTHROPIC_KEY}
                max_tokens: 4096
                temperature: 0.2
                timeout: 90s
                headers: { anthropic-beta: "tools-2024" }
                retry: { max_attempts: 5, initial_delay: 500ms, max_delay: 1m }
                rate_limit: { requests_per_minute: 50 }
              - name: local
                kind: openai-compatible
                model: ${LOCAL_MODEL:-llama3.2}
                base_url: http://localhost:11434/v1
            mcp_servers:
              - name: files
                command: npx
                args: [-y, "@modelcontextprotocol/server-filesystem", "."]
                env: { DEBUG: "0" }
                working_dir: /tmp
              - name: remote
                url: https://mcp.example.com/mcp
                headers: { Authorization: "Bearer ${TOKEN:-none}" }
                resources: true
                prompts: true
                sampling: local
                elicitation: true
            agents:
              - name: lead
                description: Leads the work
                instructions: |
                  Break the task down.
                  Delegate.
                provider: claude
                toolboxes: [files, { name: state, tools: [shared_state_get, shared_state_set] }]
                skills: [review]
                options: { max_iterations: 12, max_delegation_depth: 2 }
              - name: helper
                provider: local
            entry_agent: lead
            """;

    @Test
    void readsEveryField() {
        EngineConfig c = parse(FULL);
        assertThat(c.file()).contains("config.yaml");
        ProviderConfig claude = c.providers().get(0);
        assertThat(claude.name()).isEqualTo("claude");
        assertThat(claude.kind()).isEqualTo("anthropic");
        assertThat(claude.model()).isEqualTo("claude-sonnet-4-5");
        assertThat(claude.apiKey()).isEqualTo("sk-ant-secret");
        assertThat(claude.maxTokens()).isEqualTo(4096);
        assertThat(claude.temperature()).isEqualTo(0.2);
        assertThat(claude.timeout()).isEqualTo(Duration.ofSeconds(90));
        assertThat(claude.headers()).containsExactly(Map.entry("anthropic-beta", "tools-2024"));
        assertThat(claude.retry()).isEqualTo(RetryPolicy.defaults().withMaxAttempts(5).withDelays(Duration.ofMillis(500),
                Duration.ofMinutes(1)));
        assertThat(claude.rateLimit()).isEqualTo(RateLimit.requestsPerMinute(50));
        ProviderConfig local = c.providers().get(1);
        assertThat(local.kind()).isEqualTo("openai-compatible");
        assertThat(local.model()).isEqualTo("llama3.2");
        assertThat(local.baseUrl()).isEqualTo("http://localhost:11434/v1");
        assertThat(local.apiKey()).isNull();
        assertThat(local.retry()).isEqualTo(ProviderConfig.DEFAULT_RETRY);
        assertThat(local.retry().maxAttempts()).isEqualTo(3);
        assertThat(local.retry().initialDelay()).isEqualTo(Duration.ofSeconds(1));
        assertThat(local.retry().maxDelay()).isEqualTo(Duration.ofSeconds(30));

        McpServerConfig files = c.mcpServers().get(0);
        assertThat(files.isStdio()).isTrue();
        assertThat(files.command()).isEqualTo("npx");
        assertThat(files.args()).containsExactly("-y", "@modelcontextprotocol/server-filesystem", ".");
        assertThat(files.env()).containsExactly(Map.entry("DEBUG", "0"));
        assertThat(files.workingDir()).isEqualTo(Path.of("/tmp"));
        McpServerConfig remote = c.mcpServers().get(1);
        assertThat(remote.isStdio()).isFalse();
        assertThat(remote.url()).isEqualTo("https://mcp.example.com/mcp");
        assertThat(remote.headers()).containsExactly(Map.entry("Authorization", "Bearer none"));
        assertThat(remote.resources()).isTrue();
        assertThat(remote.prompts()).isTrue();
        assertThat(remote.sampling()).isEqualTo("local");
        assertThat(remote.elicitation()).isTrue();
        assertThat(files.elicitation()).isFalse();
        assertThat(files.resources()).isFalse();
        assertThat(files.sampling()).isNull();

        AgentConfig lead = c.agents().get(0);
        assertThat(lead.instructions()).isEqualTo("Break the task down.\nDelegate.");
        assertThat(lead.toolboxes()).containsExactly(AgentConfig.Toolbox.all("files"),
                new AgentConfig.Toolbox("state", List.of("shared_state_get", "shared_state_set")));
        assertThat(lead.skills()).containsExactly("review");
        assertThat(lead.options().maxIterations()).isEqualTo(12);
        assertThat(lead.options().maxDelegationDepth()).isEqualTo(2);
        AgentConfig helper = c.agents().get(1);
        assertThat(helper.skills()).as("absent skills means every skill").isNull();
        assertThat(helper.options().maxIterations()).isNull();
        assertThat(c.providerOf(helper)).isSameAs(local);
        assertThat(c.entryAgent()).contains("lead");
    }

    @Test
    void theKeyNeverShowsInToString() {
        EngineConfig c = parse(FULL);
        assertThat(c.providers().get(0).toString()).doesNotContain("sk-ant-secret").contains("apiKey=***");
        assertThat(c.mcpServers().get(1).toString()).doesNotContain("Bearer");
    }

    @Test
    void oneProviderAndOneAgentNeedNoNames() {
        EngineConfig c = parse("""
                providers: [{ name: p, kind: openai, model: "${MODEL}" }]
                agents: [{ name: solo }]
                """);
        assertThat(c.entryAgent()).contains("solo");
        assertThat(c.providerOf(c.agents().getFirst()).model()).isEqualTo("gpt-5");
    }

    @Test
    void unknownFieldsAreErrorsWithTheirLine() {
        ConfigException e = error("""
                providers: [{ name: p, kind: openai, model: m }]
                agents:
                  - name: a
                    options:
                      max_iteration: 10
                """);
        assertThat(e).hasMessage("config.yaml:5: agents[0].options.max_iteration: unknown field 'max_iteration'; "
                + "expected one of max_delegation_depth, max_iterations, max_tool_result_chars");
        assertThat(e.line()).isEqualTo(5);
        assertThat(e.path()).isEqualTo("agents[0].options.max_iteration");
        assertThat(e.file()).contains("config.yaml");
    }

    @Test
    void unknownProviderReferenceIsCaughtAtLoadTime() {
        ConfigException e = error("""
                providers:
                  - { name: claude, kind: anthropic, model: m }
                  - { name: gpt, kind: openai, model: m }
                agents:
                  - name: a
                    provider: claude
                  - name: b
                    provider: clade
                entry_agent: a
                """);
        assertThat(e).hasMessage("config.yaml:8: agents[1].provider: unknown provider 'clade'; expected one of: claude, gpt");
    }

    @Test
    void missingProviderWithSeveralIsReported() {
        assertThat(error("""
                providers: [{ name: x, kind: anthropic, model: m }, { name: y, kind: grok, model: m }]
                agents: [{ name: a }]
                """)).hasMessage("config.yaml:2: agents[0].provider: missing; name one of the providers: x, y");
    }

    @Test
    void unknownToolboxIsCaughtAtLoadTime() {
        assertThat(error("""
                providers: [{ name: p, kind: openai, model: m }]
                mcp_servers: [{ name: files, command: npx }]
                agents:
                  - name: a
                    toolboxes: [files, fils]
                """)).hasMessage("config.yaml:5: agents[0].toolboxes[1]: unknown toolbox 'fils'; expected an MCP server "
                + "name or a built-in toolbox: files, state, tasks");
    }

    @Test
    void unknownEntryAgentAndMissingEntryAgent() {
        assertThat(error("""
                providers: [{ name: p, kind: openai, model: m }]
                agents: [{ name: a }, { name: b }]
                entry_agent: c
                """)).hasMessage("config.yaml:3: entry_agent: unknown agent 'c'; expected one of: a, b");
        assertThat(error("""
                providers: [{ name: p, kind: openai, model: m }]
                agents: [{ name: a }, { name: b }]
                """)).hasMessage("config.yaml: entry_agent: missing; with several agents, name the one that answers: a, b");
    }

    @Test
    void duplicateNamesAreReported() {
        assertThat(error("""
                providers: [{ name: p, kind: openai, model: m }]
                agents:
                  - name: a
                  - name: a
                """)).hasMessage("config.yaml:4: agents[1].name: the name 'a' is used twice in agents");
        assertThat(error("""
                providers: [{ name: p, kind: openai, model: m }]
                mcp_servers: [{ name: state, command: x }]
                agents: [{ name: a }]
                """)).hasMessage("config.yaml:2: mcp_servers[0].name: 'state' is the name of a built-in toolbox; choose another name");
    }

    @Test
    void anMcpServersOAuthSectionIsReadWithItsDefaultsAndCheckedAsAWhole() {
        EngineConfig c = parse("""
                providers: [{ name: p, kind: openai, model: m }]
                mcp_servers:
                  - name: docs
                    url: https://mcp.example.com/mcp
                    oauth: { scopes: [docs.read] }
                  - name: ci
                    url: https://ci.example.com/mcp
                    oauth:
                      client_id: shelly-ci
                      client_secret: ${ANTHROPIC_KEY}
                      grant: client_credentials
                      resource: https://ci.example.com
                  - name: wiki
                    url: https://wiki.example.com/mcp
                    oauth: { client_id: wiki-app, consent: application, redirect_uri: "https://app.example.com/back" }
                agents: [{ name: a }]
                """);
        McpServerConfig.OAuth docs = c.mcpServers().get(0).oauth();
        assertThat(docs).isEqualTo(new McpServerConfig.OAuth(null, null, "shelly", McpServerConfig.OAuth.Grant.AUTHORIZATION_CODE,
                List.of("docs.read"), null, McpServerConfig.OAuth.DEFAULT_REDIRECT, McpServerConfig.OAuth.Consent.LOOPBACK));
        McpServerConfig.OAuth ci = c.mcpServers().get(1).oauth();
        assertThat(ci.grant()).isEqualTo(McpServerConfig.OAuth.Grant.CLIENT_CREDENTIALS);
        assertThat(ci.resource()).isEqualTo(java.net.URI.create("https://ci.example.com"));
        assertThat(ci.redirectUri()).isNull();
        assertThat(ci.toString()).contains("clientSecret=***").doesNotContain("sk-ant-secret");
        assertThat(c.mcpServers().get(1).toString()).doesNotContain("sk-ant-secret");
        McpServerConfig.OAuth wiki = c.mcpServers().get(2).oauth();
        assertThat(wiki.consent()).isEqualTo(McpServerConfig.OAuth.Consent.APPLICATION);
        assertThat(wiki.redirectUri()).isEqualTo(java.net.URI.create("https://app.example.com/back"));

        String server = """
                providers: [{ name: p, kind: openai, model: m }]
                mcp_servers:
                  - name: docs
                    url: https://mcp.example.com/mcp
                    oauth: { %s }
                agents: [{ name: a }]
                """;
        assertThat(error(server.formatted("grant: implicit"))).hasMessage("config.yaml:5: mcp_servers[0].oauth.grant: expected "
                + "authorization_code or client_credentials, got 'implicit'");
        assertThat(error(server.formatted("grant: client_credentials, client_id: x"))).hasMessage("config.yaml:5: "
                + "mcp_servers[0].oauth.client_secret: the client_credentials grant needs client_id and client_secret");
        assertThat(error(server.formatted("redirect_uri: \"https://app.example.com/back\""))).hasMessage("config.yaml:5: "
                + "mcp_servers[0].oauth.redirect_uri: with consent: loopback the engine takes the redirect itself, so it must be an"
                + " http URL on 127.0.0.1, [::1] or localhost with a port, got 'https://app.example.com/back'");
        assertThat(error(server.formatted("client_secret: s"))).hasMessage("config.yaml:5: mcp_servers[0].oauth.client_secret: "
                + "a client_secret needs the client_id it belongs to");
        assertThat(error(server.formatted("scope: a"))).hasMessageStartingWith("config.yaml:5: mcp_servers[0].oauth.scope: "
                + "unknown field 'scope'");
        assertThat(error("""
                providers: [{ name: p, kind: openai, model: m }]
                mcp_servers: [{ name: files, command: npx, oauth: {} }]
                agents: [{ name: a }]
                """)).hasMessageContaining("mcp_servers[0].oauth: 'oauth' applies to a url server, not to a command");
    }

    @Test
    void wrongValuesSayWhatWasExpected() {
        assertThat(error("""
                providers: [{ name: p, kind: openai, model: m, max_tokens: lots }]
                agents: [{ name: a }]
                """)).hasMessage("config.yaml:1: providers[0].max_tokens: expected a whole number, got 'lots'");
        assertThat(error("""
                providers: [{ name: p, kind: openai, model: m, timeout: soon }]
                agents: [{ name: a }]
                """)).hasMessage("config.yaml:1: providers[0].timeout: expected a duration such as 500ms, 30s, 2m or 1h, got 'soon'");
        assertThat(error("""
                providers: [{ name: p, kind: openai, model: m, temperature: 3 }]
                agents: [{ name: a }]
                """)).hasMessage("config.yaml:1: providers[0].temperature: expected a number from 0.0 to 2.0, got 3");
        assertThat(error("""
                providers: [{ name: p, kind: openai, model: m, base_url: "localhost:1234" }]
                agents: [{ name: a }]
                """)).hasMessage("config.yaml:1: providers[0].base_url: expected an http or https URL, got 'localhost:1234'");
        assertThat(error("""
                providers: [{ name: p, kind: openai }]
                agents: [{ name: a }]
                """)).hasMessage("config.yaml:1: providers[0].model: missing required field");
        assertThat(error("""
                providers: [{ name: p, kind: openai, model: m }]
                agents: [{ name: a, options: { max_iterations: -1 } }]
                """)).hasMessage("config.yaml:2: agents[0].options.max_iterations: expected a positive whole number or 'unlimited', got '-1'");
        assertThat(error("""
                providers: [{ name: p, kind: openai, model: m }]
                agents: [{ name: a, options: { max_iterations: 0 } }]
                """)).hasMessage("config.yaml:2: agents[0].options.max_iterations: expected a positive whole number or 'unlimited', got '0'");
        assertThat(error("""
                providers: { name: p }
                agents: [{ name: a }]
                """)).hasMessage("config.yaml:1: providers: expected a list, got a mapping");
    }

    @Test
    void maxIterationsMayBeUnlimitedByName() {
        EngineConfig c = parse("""
                providers: [{ name: p, kind: openai, model: m }]
                agents: [{ name: a, options: { max_iterations: unlimited, max_delegation_depth: 0 } }]
                """);

        assertThat(c.agents().getFirst().options().maxIterations()).isEqualTo(Agent.UNLIMITED);
        assertThat(c.agents().getFirst().options().maxDelegationDepth()).isZero();
    }

    @Test
    void mcpServersNeedACommandOrAUrl() {
        assertThat(error("""
                providers: [{ name: p, kind: openai, model: m }]
                mcp_servers: [{ name: s, command: x, url: "http://h/mcp" }]
                agents: [{ name: a }]
                """)).hasMessage("config.yaml:2: mcp_servers[0]: MCP server 's' needs either 'command' (a subprocess "
                + "speaking stdio) or 'url' (streamable HTTP), not both");
        assertThat(error("""
                providers: [{ name: p, kind: openai, model: m }]
                mcp_servers:
                  - name: s
                    url: "http://h/mcp"
                    args: [x]
                agents: [{ name: a }]
                """)).hasMessage("config.yaml:5: mcp_servers[0].args: 'args' applies to a command, not to a url server");
    }

    @Test
    void environmentInterpolation() {
        assertThat(error("""
                providers: [{ name: p, kind: openai, model: m, api_key: "${OPENAI_KEY}" }]
                agents: [{ name: a }]
                """)).hasMessage("config.yaml:1: providers[0].api_key: environment variable OPENAI_KEY is not set; "
                + "set it, or give a default with ${OPENAI_KEY:-default}");
        EngineConfig c = parse("""
                providers: [{ name: p, kind: openai, model: "$${literal}-${MODEL}" }]
                agents: [{ name: a, instructions: "Use ${UNSET:-the defaults}." }]
                """);
        assertThat(c.providers().getFirst().model()).isEqualTo("${literal}-gpt-5");
        assertThat(c.agents().getFirst().instructions()).isEqualTo("Use the defaults.");
        assertThat(error("""
                providers: [{ name: p, kind: openai, model: "${MODEL" }]
                agents: [{ name: a }]
                """)).hasMessage("config.yaml:1: providers[0].model: unclosed '${' in '${MODEL'; write ${NAME} or ${NAME:-default}");
    }

    @Test
    void yamlSyntaxErrorsHaveALine() {
        ConfigException e = error("""
                providers:
                  - name: p
                   kind: openai
                """);
        assertThat(e.getMessage()).startsWith("config.yaml:3: not valid YAML: ");
        assertThat(error("   ")).hasMessage("config.yaml: the file is empty; expected at least 'providers' and 'agents'");
        assertThat(error("providers: []\n")).hasMessage("config.yaml: agents: no agent is configured; add at least one under 'agents'");
    }

    @Test
    void samplingMustNameAConfiguredProvider() {
        assertThatThrownBy(() -> parse(FULL.replace("sampling: local", "sampling: nowhere")))
                .isInstanceOf(ConfigException.class)
                .hasMessage("config.yaml:27: mcp_servers[1].sampling: sampling names provider 'nowhere', which is not configured;"
                        + " configured providers: claude, local");
    }

    @Test
    void skillReferencesAreCheckedAgainstTheLoadedSkills() {
        EngineConfig c = parse(FULL);
        assertThat(c.check(Set.of("review", "deploy"), Set.of())).isSameAs(c);
        assertThatThrownBy(() -> c.check(Set.of("deploy"), Set.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessage("config.yaml:37: agents[0].skills[0]: unknown skill 'review'; expected one of: deploy");
        assertThatThrownBy(() -> c.check(Set.of(), Set.of()))
                .hasMessage("config.yaml:37: agents[0].skills[0]: unknown skill 'review'; no skills are loaded "
                        + "(put them in .shelly/skills/<name>/SKILL.md)");
    }

    @Test
    void aMissingFileIsNamed(@TempDir Path dir) {
        Path missing = dir.resolve("config.yaml");
        assertThatThrownBy(() -> ConfigLoader.load(missing))
                .isInstanceOf(ConfigException.class)
                .hasMessage(missing + ": cannot read the file: NoSuchFileException " + missing);
    }

    @Test
    void loadsAFile(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("config.yaml");
        Files.writeString(file, "providers: [{ name: p, kind: grok, model: grok-4 }]\nagents: [{ name: a }]\n");
        EngineConfig c = ConfigLoader.load(file, name -> null);
        assertThat(c.file()).contains(file.toString());
        assertThat(c.providers().getFirst().kind()).isEqualTo("grok");
    }

    @Test
    void configsBuiltInCodeAreCheckedTheSameWay() {
        EngineConfig ok = EngineConfig.builder()
                .provider(ProviderConfig.builder("p", "openai", "gpt-5").apiKey("k").build())
                .agent(AgentConfig.builder("a").toolboxes("tasks").build())
                .build();
        assertThat(ok.check(Set.of(), Set.of())).isSameAs(ok);
        EngineConfig bad = EngineConfig.builder()
                .provider(ProviderConfig.builder("p", "openai", "gpt-5").build())
                .agent(AgentConfig.builder("a").provider("q").build())
                .build();
        assertThatThrownBy(() -> bad.check(Set.of(), Set.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessage("agents[0].provider: unknown provider 'q'; expected one of: p");
    }

    @Test
    void aRedisSectionIsReadWithItsPasswordFromTheEnvironmentAndNeverPrinted() {
        EngineConfig c = ConfigLoader.parse("""
                providers: [{ name: p, kind: openai, model: m, rate_limit: { requests_per_minute: 60, tokens_per_minute: 90000 } }]
                agents: [{ name: a }]
                redis:
                  url: redis://:${REDIS_PASSWORD}@cache.internal:6380/2
                  key_prefix: "orders:"
                  timeout: 2s
                """, "config.yaml", Map.of("REDIS_PASSWORD", "s3cret")::get);
        RedisConfig redis = c.redis().orElseThrow();
        assertThat(redis.url()).isEqualTo("redis://:s3cret@cache.internal:6380/2");
        assertThat(redis.keyPrefix()).isEqualTo("orders:");
        assertThat(redis.tls()).isFalse();
        assertThat(redis.timeout()).isEqualTo(java.time.Duration.ofSeconds(2));
        assertThat(redis.toString()).doesNotContain("s3cret")
                .isEqualTo("RedisConfig[url=redis://cache.internal:6380, keyPrefix=orders:, tls=false, timeout=PT2S]");
        assertThat(c.providers().getFirst().rateLimit()).isEqualTo(new RateLimit(60, 90000L));
        RedisConfig defaults = ConfigLoader.parse("""
                agents: [{ name: a }]
                redis: { url: "rediss://h" }
                """, "config.yaml", ENV).redis().orElseThrow();
        assertThat(defaults).isEqualTo(new RedisConfig("rediss://h", "shelly:", true, java.time.Duration.ofSeconds(5)));
        assertThat(ConfigLoader.parse("agents: [{ name: a }]", "config.yaml", ENV).redis()).isEmpty();
    }

    @Test
    void redisErrorsNameFileLineAndFieldWithoutThePassword() {
        assertThat(error("""
                agents: [{ name: a }]
                redis:
                  url: http://user:pw@h:1
                """)).hasMessage("config.yaml:3: redis.url: must start with redis:// or rediss://, got 'http://'");
        assertThat(error("""
                agents: [{ name: a }]
                redis:
                  key_prefix: x
                """)).hasMessage("config.yaml:3: redis.url: missing required field");
        assertThat(error("""
                agents: [{ name: a }]
                redis:
                  url: redis://h
                  tls: yes
                """)).hasMessage("config.yaml:4: redis.tls: expected true or false, got 'yes'");
        assertThat(error("""
                agents: [{ name: a }]
                redis:
                  url: redis://h
                  password: x
                """)).hasMessage("config.yaml:4: redis.password: unknown field 'password'; expected one of "
                        + "key_prefix, nodes, replicas, task_lease, timeout, tls, url");
    }

    @Test
    void aRedisClusterIsNamedByItsNodesOrOneUrlAndItsMistakesByTheirField() {
        RedisConfig listed = ConfigLoader.parse("""
                agents: [{ name: a }]
                redis:
                  nodes: ["redis://:${REDIS_PASSWORD}@10.0.0.1:7000", 10.0.0.2:7000]
                  task_lease: 10s
                """, "config.yaml", Map.of("REDIS_PASSWORD", "s3cret")::get).redis().orElseThrow();
        assertThat(listed.cluster()).isTrue();
        assertThat(listed.nodes()).containsExactly("10.0.0.1:7000", "10.0.0.2:7000");
        assertThat(listed.clusterUserInfo()).isEqualTo(":s3cret@");
        assertThat(listed.taskLease()).isEqualTo(java.time.Duration.ofSeconds(10));
        assertThat(listed.replicas()).isEqualTo(1);
        assertThat(listed.toString()).doesNotContain("s3cret").isEqualTo("RedisConfig[url=redis-cluster://10.0.0.1:7000,"
                + "10.0.0.2:7000, keyPrefix=shelly:, tls=false, timeout=PT5S, taskLease=PT10S]");
        RedisConfig url = ConfigLoader.parse("""
                agents: [{ name: a }]
                redis: { url: "redis-cluster://10.0.0.1:7000,10.0.0.2:7000", replicas: 0 }
                """, "config.yaml", ENV).redis().orElseThrow();
        assertThat(url.nodes()).isEqualTo(listed.nodes());
        assertThat(url.replicas()).isZero();
        assertThat(ConfigLoader.parse("agents: [{ name: a }]\nredis: { url: redis://h }", "config.yaml", ENV).redis()
                .orElseThrow().cluster()).isFalse();

        assertThat(error("""
                agents: [{ name: a }]
                redis:
                  url: redis://h
                  nodes: [h:1]
                """)).hasMessage("config.yaml:4: redis.nodes: give either url (one server, or redis-cluster://) or nodes "
                        + "(a cluster), not both");
        assertThat(error("""
                agents: [{ name: a }]
                redis:
                  nodes: [h:1, "http://h:2"]
                """)).hasMessage("config.yaml:3: redis.nodes[1]: must be host:port or redis://host:port, got 'http://'");
        assertThat(error("""
                agents: [{ name: a }]
                redis:
                  url: redis-cluster://h:1,:2
                """)).hasMessageStartingWith("config.yaml:3: redis.url: node 2 is not host:port");
        assertThat(error("""
                agents: [{ name: a }]
                redis:
                  url: redis://h
                  task_lease: 50ms
                """)).hasMessage("config.yaml:4: redis.task_lease: must be at least 100ms, was PT0.05S");
    }

    @Test
    void aClusterOfRedissNodesUsesTlsAndTakesTheCredentialsOfWhicheverNodeCarriesThem() {
        RedisConfig secure = ConfigLoader.parse("""
                agents: [{ name: a }]
                redis:
                  nodes: [10.0.0.1:7000, "rediss://:${REDIS_PASSWORD}@10.0.0.2:7000", "rediss://10.0.0.3:7000"]
                """, "config.yaml", Map.of("REDIS_PASSWORD", "s3cret")::get).redis().orElseThrow();
        assertThat(secure.tls()).as("TLS when the nodes are rediss://").isTrue();
        assertThat(secure.clusterUserInfo()).as("the password of nodes[1], for every node").isEqualTo(":s3cret@");
        assertThat(secure.nodes()).containsExactly("10.0.0.1:7000", "10.0.0.2:7000", "10.0.0.3:7000");
        assertThat(secure.toString()).doesNotContain("s3cret");
        assertThat(ConfigLoader.parse("""
                agents: [{ name: a }]
                redis: { nodes: ["rediss://10.0.0.1:7000"], tls: false }
                """, "config.yaml", ENV).redis().orElseThrow().tls()).as("an explicit tls wins").isFalse();

        assertThat(error("""
                agents: [{ name: a }]
                redis:
                  nodes: ["rediss://h:1", h:2, "redis://h:3"]
                """)).hasMessage("config.yaml:3: redis.nodes[2]: is redis:// but nodes[0] is rediss:// (TLS); "
                        + "every node of a cluster takes the same");
        assertThat(error("""
                agents: [{ name: a }]
                redis:
                  nodes: ["redis://h:1", "rediss://h:2"]
                """)).hasMessage("config.yaml:3: redis.nodes[1]: is rediss:// (TLS) but nodes[0] is redis://; "
                        + "every node of a cluster takes the same");
        assertThat(error("""
                agents: [{ name: a }]
                redis:
                  nodes: [h:1, "redis://:one@h:2", "redis://h:3", "redis://:two@h:4"]
                """)).hasMessage("config.yaml:3: redis.nodes[3]: has other credentials than nodes[1]; every node "
                        + "of a cluster takes the same");
    }

    @Test
    void pricesAndPromptCachingAreRead() {
        EngineConfig c = parse("""
                providers: [{ name: p, kind: openai, model: m }]
                agents: [{ name: a, prompt_caching: false }, { name: b }]
                entry_agent: a
                prices:
                  my-model: { input: 0.5, output: 1.5, cache_read: 0.05, cache_write: 0.6 }
                  gpt-4.1: { input: 1, output: 4 }
                """);

        assertThat(c.agents().get(0).promptCaching()).isFalse();
        assertThat(c.agents().get(1).promptCaching()).isNull();
        assertThat(c.prices().price("my-model-2026")).contains(Price.of(0.5, 1.5, 0.05, 0.6));
        assertThat(c.prices().price("gpt-4.1")).contains(Price.of(1, 4, 1, 1));
        assertThat(c.prices().asMap()).hasSize(2);
        assertThat(parse("""
                providers: [{ name: p, kind: openai, model: m }]
                agents: [{ name: a }]
                """).prices()).isEqualTo(ModelTable.empty());
    }

    @Test
    void badPricesNameTheirPath() {
        String head = """
                providers: [{ name: p, kind: openai, model: m }]
                agents: [{ name: a }]
                prices:
                """;
        assertThat(error(head + "  my-model: { input: -1, output: 1 }\n"))
                .hasMessage("config.yaml:4: prices.my-model.input: must be a number of zero or more, got '-1'");
        assertThat(error(head + "  my-model: { input: 1, output: cheap }\n"))
                .hasMessage("config.yaml:4: prices.my-model.output: expected a number, got 'cheap'");
        assertThat(error(head + "  my-model: { input: 1 }\n"))
                .hasMessage("config.yaml:4: prices.my-model.output: missing required field");
        assertThat(error(head + "  my-model: { input: 1, output: 2, cache: 1 }\n"))
                .hasMessage("config.yaml:4: prices.my-model.cache: unknown field 'cache'; expected one of "
                        + "cache_read, cache_write, input, output");
        assertThat(error(head + "  - my-model\n"))
                .hasMessage("config.yaml:4: prices: expected a mapping of names to values, got a list");
        assertThat(error("""
                providers: [{ name: p, kind: openai, model: m }]
                agents: [{ name: a, prompt_caching: sometimes }]
                """)).hasMessage("config.yaml:2: agents[0].prompt_caching: expected true or false, got 'sometimes'");
    }

    @Test
    void aSecondYamlDocumentIsRefusedAtItsLineInsteadOfIgnored() {
        assertThat(error("""
                providers: [{ name: p, kind: openai, model: m }]
                agents: [{ name: a }]
                ---
                agents: [{ name: b }]
                """)).hasMessageStartingWith("config.yaml:4: ")
                .hasMessageEndingWith("a second YAML document begins here; a configuration is one document: merge the "
                        + "two, or remove the '---' between them");
    }

    @Test
    void keysGivenTwiceAliasesAndEmptyItemsAreRefusedAtTheirLine() {
        assertThat(error("""
                providers: [{ name: p, kind: openai, model: m }]
                agents:
                  - name: a
                    name: b
                """)).hasMessage("config.yaml:4: agents[0].name: field 'name' is given twice");
        assertThat(error("""
                providers: [{ name: p, kind: openai, model: &m gpt-5 }]
                agents: [{ name: a, instructions: *m }]
                """)).hasMessage("config.yaml:2: agents[0].instructions: aliases such as *m are not supported in a "
                + "configuration; repeat the value instead");
        assertThat(error("""
                providers: [{ name: p, kind: openai, model: m }]
                agents:
                  - name: a
                    skills: [review, ""]
                """)).hasMessage("config.yaml:4: agents[0].skills[1]: must not be blank");
        assertThat(error("""
                providers: [{ name: p, kind: openai, model: m }]
                agents:
                  -
                """)).hasMessage("config.yaml:3: agents[0]: expected a mapping of approval, coding, context, "
                + "delegate_targets, description, instructions, model, name, options, prompt_caching, provider, skills, toolboxes, got nothing");
    }

    @Test
    void interpolatedTextBindsToNumbersDurationsAndBooleans() {
        EngineConfig c = ConfigLoader.parse("""
                providers:
                  - name: p
                    kind: openai
                    model: m
                    max_tokens: ${MAX}
                    timeout: ${TIMEOUT}
                agents: [{ name: a, prompt_caching: "${CACHE}" }]
                """, "config.yaml", Map.of("MAX", "2048", "TIMEOUT", "45s", "CACHE", "false")::get);
        assertThat(c.providers().getFirst().maxTokens()).isEqualTo(2048);
        assertThat(c.providers().getFirst().timeout()).isEqualTo(Duration.ofSeconds(45));
        assertThat(c.agents().getFirst().promptCaching()).isFalse();
        assertThat(error("""
                providers: [{ name: p, kind: openai, model: m, retry: { initial_delay: 5s, max_delay: 2s } }]
                agents: [{ name: a }]
                """)).hasMessage("config.yaml:1: providers[0].retry.max_delay: max_delay (PT2S) must not be shorter "
                + "than initial_delay (PT5S)");
    }

    @Test
    void aTelemetrySectionIsReadWithItsHeadersFromTheEnvironmentAndNeverPrinted() {
        EngineConfig c = ConfigLoader.parse("""
                agents: [{ name: a }]
                telemetry:
                  endpoint: http://collector.internal:4318
                  protocol: http/protobuf
                  service_name: orders-assistant
                  headers:
                    authorization: Bearer ${OTLP_TOKEN}
                  capture_content: true
                  properties:
                    otel.traces.sampler: always_on
                """, "config.yaml", Map.of("OTLP_TOKEN", "s3cret token")::get);
        EngineConfig.Telemetry t = c.telemetry().orElseThrow();
        assertThat(t).isEqualTo(new EngineConfig.Telemetry("http://collector.internal:4318", "http/protobuf", "orders-assistant",
                Map.of("authorization", "Bearer s3cret token"), true, Map.of("otel.traces.sampler", "always_on")));
        assertThat(t.autoconfigureProperties()).containsExactly(
                Map.entry("otel.service.name", "orders-assistant"),
                Map.entry("otel.exporter.otlp.endpoint", "http://collector.internal:4318"),
                Map.entry("otel.exporter.otlp.protocol", "http/protobuf"),
                Map.entry("otel.exporter.otlp.headers", "authorization=Bearer%20s3cret%20token"),
                Map.entry("otel.traces.sampler", "always_on"));
        assertThat(t.toString()).doesNotContain("s3cret").isEqualTo("Telemetry[endpoint=http://collector.internal:4318, "
                + "protocol=http/protobuf, serviceName=orders-assistant, headers=[authorization], captureContent=true, "
                + "properties=[otel.traces.sampler]]");
        EngineConfig.Telemetry defaults = ConfigLoader.parse("""
                agents: [{ name: a }]
                telemetry: {}
                """, "config.yaml", ENV).telemetry().orElseThrow();
        assertThat(defaults).isEqualTo(EngineConfig.Telemetry.of(null));
        assertThat(defaults.captureContent()).isFalse();
        assertThat(defaults.autoconfigureProperties()).containsExactly(Map.entry("otel.service.name", "shelly"));
        assertThat(ConfigLoader.parse("agents: [{ name: a }]", "config.yaml", ENV).telemetry()).isEmpty();
    }

    @Test
    void aConsoleSectionIsReadWithItsTokenFromTheEnvironmentAndNeverPrinted() {
        EngineConfig.Console c = ConfigLoader.parse("""
                agents: [{ name: a }]
                console:
                  port: 7171
                  bind: 0.0.0.0
                  token: ${CONSOLE_TOKEN}
                """, "config.yaml", Map.of("CONSOLE_TOKEN", "s3cret-console-token")::get).console().orElseThrow();
        assertThat(c).isEqualTo(new EngineConfig.Console(7171, "0.0.0.0", "s3cret-console-token"));
        assertThat(c.toString()).doesNotContain("s3cret").isEqualTo("Console[port=7171, bind=0.0.0.0, token=set]");
        EngineConfig.Console defaults = ConfigLoader.parse("""
                agents: [{ name: a }]
                console: {}
                """, "config.yaml", ENV).console().orElseThrow();
        assertThat(defaults).isEqualTo(new EngineConfig.Console(7070, "127.0.0.1", null));
        assertThat(ConfigLoader.parse("agents: [{ name: a }]", "config.yaml", ENV).console()).isEmpty();
        assertThat(error("""
                agents: [{ name: a }]
                console:
                  port: 70000
                """)).hasMessage("config.yaml:3: console.port: must be between 0 and 65535, was 70000");
        assertThat(error("""
                agents: [{ name: a }]
                console:
                  token: short
                """)).hasMessage("config.yaml:3: console.token: must have at least 16 characters");
        assertThat(error("""
                agents: [{ name: a }]
                console:
                  bind: 0.0.0.0
                """)).hasMessageStartingWith("config.yaml:3: console.token: is required when bind is not a loopback "
                + "address (0.0.0.0)");
    }

    @Test
    void telemetryErrorsNameFileLineAndField() {
        assertThat(error("""
                agents: [{ name: a }]
                telemetry:
                  protocol: udp
                """)).hasMessage("config.yaml:3: telemetry.protocol: must be 'grpc' or 'http/protobuf', was 'udp'");
        assertThat(error("""
                agents: [{ name: a }]
                telemetry:
                  endpoint: collector:4317
                """)).hasMessage("config.yaml:3: telemetry.endpoint: expected an http or https URL, got 'collector:4317'");
        assertThat(error("""
                agents: [{ name: a }]
                telemetry:
                  properties:
                    sampler: always_on
                """)).hasMessage("config.yaml:4: telemetry.properties: 'sampler' is not an OpenTelemetry "
                        + "autoconfiguration property (they are named otel.*)");
        assertThat(error("""
                agents: [{ name: a }]
                telemetry:
                  capture_content: sometimes
                """)).hasMessage("config.yaml:3: telemetry.capture_content: expected true or false, got 'sometimes'");
        assertThat(error("""
                agents: [{ name: a }]
                telemetry:
                  exporter: zipkin
                """)).hasMessage("config.yaml:3: telemetry.exporter: unknown field 'exporter'; expected one of "
                        + "capture_content, endpoint, headers, properties, protocol, service_name");
    }

    @Test
    void sectionsBindOntoTheRuntimeValuesTheyConfigure(@TempDir Path project) {
        EngineConfig c = ConfigLoader.parse("""
                providers:
                  - { name: p, kind: openai, model: m, rate_limit: { requests_per_minute: 7 } }
                agents:
                  - name: a
                    approval: { ask: [fs_write*], deny: [shell], ask_user: true }
                    context:
                      trim_tool_results: { keep_recent: 1 }
                      offload: { min_chars: 100, dir: spill }
                      loop_detection: {}
                approvals:
                  timeout: 5m
                  on_timeout: cancel
                  default_policy: { otherwise: ask }
                """, "config.yaml", ENV);
        assertThat(c.providers().getFirst().rateLimit()).isEqualTo(new RateLimit(7, 0));
        AgentConfig a = c.agents().getFirst();
        assertThat(a.approval().askUser()).isTrue();
        assertThat(a.approval().policy().decide("fs_write_file")).isEqualTo(ToolPolicy.Permission.ASK);
        assertThat(a.approval().policy().decide("shell")).isEqualTo(ToolPolicy.Permission.DENY);
        assertThat(a.approval().policy().decide("fs_read")).isEqualTo(ToolPolicy.Permission.ALLOW);
        assertThat(a.context().trimToolResults()).isEqualTo(ContextStrategy.trimToolResults(1, 1_000));
        assertThat(a.context().loopDetection()).isEqualTo(ContextStrategy.loopDetection(3));
        assertThat(a.context().offload()).isEqualTo(new AgentConfig.Offloading(100, 50, 50, Path.of("spill")));
        List<ContextStrategy> strategies = a.context().strategies(project.resolve(".shelly/offload"), project);
        assertThat(strategies).hasSize(3);
        assertThat(strategies).extracting(ContextStrategy::name)
                .containsExactly("trim_tool_results", "offload", "loop_detection");
        EngineConfig.ApprovalSettings approvals = c.approvals().orElseThrow();
        assertThat(approvals.timeout()).isEqualTo(Duration.ofMinutes(5));
        assertThat(approvals.onTimeout()).isEqualTo(Approvals.OnTimeout.CANCEL);
        assertThat(approvals.defaultPolicy().decide("anything")).isEqualTo(ToolPolicy.Permission.ASK);
    }
}
