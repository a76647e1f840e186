package dev.shelly.engine.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A skill folder's tools.yaml: config.yaml's server schema, paths resolved against the folder. */
class SkillToolsFileTest {
    @TempDir
    Path skill;

    private ConfigLoader.SkillTools load(String yaml) throws Exception {
        Files.writeString(skill.resolve("tools.yaml"), yaml);
        return ConfigLoader.loadSkillTools(skill, Map.of("TOKEN", "t-1")::get).orElseThrow();
    }

    @Test
    void relativePathsResolveAgainstTheSkillsFolderAndBareProgramsStayOnThePath() throws Exception {
        ConfigLoader.SkillTools tools = load("""
                mcp_servers:
                  - name: local
                    command: ./bin/server
                    args: [serve, data.db]
                    env: { TOKEN: "${TOKEN}" }
                  - name: npx
                    command: npx
                    args: ["${SHELLY_SKILL_DIR}/server.js"]
                    working_dir: sub
                  - name: remote
                    url: https://mcp.example.com/mcp
                tools:
                  - name: lint
                    description: Lints
                    command: scripts/lint.sh
                """);
        Path dir = skill.toAbsolutePath().normalize();

        assertThat(tools.file()).isEqualTo(dir.resolve("tools.yaml"));
        McpServerConfig local = tools.mcpServers().get(0);
        assertThat(local.command()).isEqualTo(dir.resolve("bin/server").toString());
        assertThat(local.args()).containsExactly("serve", "data.db");
        assertThat(local.env()).containsExactly(Map.entry("TOKEN", "t-1"));
        assertThat(local.workingDir()).isEqualTo(dir);
        McpServerConfig npx = tools.mcpServers().get(1);
        assertThat(npx.command()).isEqualTo("npx");
        assertThat(npx.args()).containsExactly(dir + "/server.js");
        assertThat(npx.workingDir()).isEqualTo(dir.resolve("sub"));
        assertThat(tools.mcpServers().get(2).url()).isEqualTo("https://mcp.example.com/mcp");
        assertThat(tools.tools()).containsExactly(new ConfigLoader.ScriptTool("lint", "Lints",
                dir.resolve("scripts/lint.sh").toString(), List.of(), Map.of(), "{\"type\":\"object\"}",
                Duration.ofSeconds(60), dir));
    }

    @Test
    void aFolderWithoutTheFileBringsNothingAndAWrongOneIsAnErrorAtItsLine() throws Exception {
        assertThat(ConfigLoader.loadSkillTools(skill, name -> null)).isEmpty();

        assertThatThrownBy(() -> load("""
                mcp_servers:
                  - name: a
                    url: https://a.example.com/mcp
                    args: [x]
                """)).isInstanceOf(ConfigException.class)
                .hasMessage(skill.toAbsolutePath().resolve("tools.yaml") + ":4: mcp_servers[0].args: 'args' applies to a"
                        + " command, not to a url server");
        assertThatThrownBy(() -> load("""
                tools:
                  - { name: a, description: A, command: a.sh }
                  - { name: a, description: B, command: b.sh }
                """)).isInstanceOf(ConfigException.class)
                .hasMessage(skill.toAbsolutePath().resolve("tools.yaml") + ":3: tools[1].name: tool 'a' is declared twice");
        assertThatThrownBy(() -> load("""
                tools:
                  - { name: a, description: A, command: a.sh, input_schema: { type: string } }
                """)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("tools[0].input_schema: expected a JSON schema of an object");
        assertThatThrownBy(() -> load("servers: []\n")).isInstanceOf(ConfigException.class)
                .hasMessageContaining("unknown field 'servers'; expected one of mcp_servers, tools");
    }

    @Test
    void samplingThatNamesNoConfiguredProviderIsAnErrorAtItsLine() throws Exception {
        Files.writeString(skill.resolve("tools.yaml"), """
                mcp_servers:
                  - name: a
                    url: https://a.example.com/mcp
                    sampling: true
                  - name: b
                    url: https://b.example.com/mcp
                    sampling: nowhere
                """);
        Set<String> providers = Set.of("m", "fast");

        assertThatThrownBy(() -> ConfigLoader.loadSkillTools(skill, name -> null, providers))
                .isInstanceOf(ConfigException.class)
                .hasMessage(skill.toAbsolutePath().resolve("tools.yaml") + ":7: mcp_servers[1].sampling: sampling names"
                        + " provider 'nowhere', which is not configured; configured providers: fast, m");
        assertThat(ConfigLoader.loadSkillTools(skill, name -> null, Set.of("nowhere")).orElseThrow().mcpServers())
                .hasSize(2);
    }
}
