package dev.shelly.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.testing.ScriptedCompleter;
import dev.shelly.testing.Step;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * A project's skill that brings an MCP server, as {@code shelly run} meets it; and how the
 * commands answer an MCP server that needs the person's authorization.
 */
@Timeout(120)
class SkillToolsTest {
    @TempDir
    Path dir;

    @Test
    void runStartsTheServerOfALoadedSkillAndEndsItWithTheTurn() throws Exception {
        ScriptedCompleter model = ScriptedCompleter.of(
                Step.toolCall("load_skill", "{\"name\":\"ops\"}"),
                Step.toolCall("pid", "{}"),
                Step.reply(request -> request.last().orElseThrow().toolResults().getFirst().text()));
        Shell shell = Shell.project(dir, model);
        Path skill = Files.createDirectories(dir.resolve(".shelly/skills/ops"));
        Files.writeString(skill.resolve("SKILL.md"), "---\ndescription: Knows the server\n---\nAsk it for its pid.\n");
        Files.writeString(skill.resolve("tools.yaml"), """
                mcp_servers:
                  - name: pids
                    command: "${JAVA}"
                    args: ["-cp", "${CP}", "dev.shelly.cli.PidServer"]
                """);
        shell.env.put("JAVA", ProcessHandle.current().info().command().orElse("java"));
        shell.env.put("CP", System.getProperty("java.class.path"));

        Shell.Result r = shell.run("", "run", "which process serves you?", "--json");

        assertThat(r.err()).isEmpty();
        assertThat(r.status()).isZero();
        JsonNode record = Shown.JSON.readTree(r.out());
        List<String> calls = new ArrayList<>();
        record.path("tool_calls").forEach(call -> calls.add(call.path("name").stringValue()));
        assertThat(calls).containsExactly("load_skill", "pid");
        assertThat(record.path("tool_calls").get(0).path("result").stringValue())
                .endsWith("Tools this skill brings, offered from now on: pid.");
        long pid = Long.parseLong(record.path("reply").stringValue());
        assertThat(pid).isNotEqualTo(ProcessHandle.current().pid());
        assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false))
                .as("the server's process ended with the turn").isFalse();
        assertThat(model.requests().get(1).toolNames()).contains("pid");

        assertThat(shell.run("", "skills").out()).isEqualTo(
                "ops  Knows the server  agents: assistant; brings MCP server pids\n");
    }

    @Test
    void withoutAPersonTheConsentIsRefusedSayingHowToGiveIt() {
        assertThatThrownBy(() -> McpConsent.refusing().authorize(URI.create("https://auth.example.com/authorize")))
                .hasMessage("it needs your authorization in a browser, and this command does not ask for it (it runs"
                        + " without a person to answer); authorize it once with shelly chat, which keeps the token in"
                        + " .shelly/mcp-tokens.json for later runs");
    }

    @Test
    void chatShowsThePageAndLetsTheEngineTakeALoopbackRedirect() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        URI page = URI.create("https://auth.example.com/authorize?response_type=code&redirect_uri="
                + "http%3A%2F%2F127.0.0.1%3A33418%2Fcallback&resource=https%3A%2F%2Fmcp.example.com%2Fmcp");

        assertThat(McpConsent.asking(terminal("", out)).authorize(page)).isNull();

        assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("\nMCP server https://mcp.example.com/mcp needs your"
                + " authorization. Open this page in your browser and allow access:\n  " + page
                + "\nwaiting for the browser to come back (up to 5 minutes)...\n");
    }

    @Test
    void chatAsksForTheAddressTheBrowserEndedOnWhenTheRedirectGoesElsewhere() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        URI page = URI.create("https://auth.example.com/authorize?redirect_uri=https%3A%2F%2Fapp.example.com%2Fback");

        URI back = McpConsent.asking(terminal("https://app.example.com/back?code=c1&state=s1\n", out)).authorize(page);

        assertThat(back).isEqualTo(URI.create("https://app.example.com/back?code=c1&state=s1"));
        assertThat(out.toString(StandardCharsets.UTF_8)).endsWith("  " + page + "\nthen paste the address your browser"
                + " ended on: https://app.example.com/back?code=c1&state=s1\n");
        assertThatThrownBy(() -> McpConsent.asking(terminal("", new ByteArrayOutputStream())).authorize(page))
                .hasMessage("no authorization was given on the terminal");
    }

    private Terminal terminal(String typed, ByteArrayOutputStream out) {
        PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8);
        return new Terminal(new BufferedReader(new StringReader(typed)), print, print, Map.of(), dir, false, false,
                new FakeInterrupts());
    }
}
