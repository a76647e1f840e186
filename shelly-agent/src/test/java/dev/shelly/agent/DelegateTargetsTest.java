package dev.shelly.agent;

import static dev.shelly.agent.Fixtures.results;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.chats.ToolDefinition;
import dev.shelly.chats.ToolResult;
import dev.shelly.testing.ScriptedCompleter;
import dev.shelly.testing.Step;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** An agent limited to delegating to named agents: told about those alone, refused the others. */
@Timeout(60)
class DelegateTargetsTest {

    private static Registry registry() {
        Registry r = new Registry();
        r.register("writer", "Writes articles", () -> Agent.builder("writer").description("Writes articles")
                .completer(ScriptedCompleter.perChat(Step.reply("an article"))).build());
        r.register("analyst", "Analyses data", () -> Agent.builder("analyst").description("Analyses data")
                .completer(ScriptedCompleter.perChat(Step.reply("numbers"))).build());
        r.register("critic", "Criticises", () -> Agent.builder("critic")
                .completer(ScriptedCompleter.perChat(Step.reply("bad"))).build());
        return r;
    }

    @Test
    void anAgentIsToldAboutAndListsOnlyItsTargets() {
        ScriptedCompleter model = ScriptedCompleter.of(Step.toolCall("list_agents", "{}"), Step.reply("ok"));
        Agent lead = Agent.builder("lead").completer(model).registry(registry()).delegateTargets("writer", "critic", "ghost")
                .build();

        lead.run("who is there?");

        assertThat(lead.delegateTargets()).contains(Set.of("writer", "critic", "ghost"));
        assertThat(lead.systemPrompt()).endsWith("## Available Agents\n\n- **critic**: Criticises\n- **writer**: Writes articles");
        assertThat(model.requests().getFirst().systemPrompt().orElseThrow()).doesNotContain("analyst");
        assertThat(results(lead).getFirst().text()).isEqualTo("[{\"name\":\"critic\",\"description\":\"Criticises\"},"
                + "{\"name\":\"writer\",\"description\":\"Writes articles\"}]");
    }

    @Test
    void delegatingElsewhereIsRefusedWithAReasonTheModelReads() {
        ScriptedCompleter model = ScriptedCompleter.of(
                Step.delegate("analyst", "count the rows"),
                Step.delegate("writer", "write it up"),
                Step.reply("done"));
        Agent lead = Agent.builder("lead").completer(model).registry(registry()).delegateTargets("writer").build();

        assertThat(lead.run("report").text()).isEqualTo("done");

        List<ToolResult> results = results(lead);
        assertThat(results.get(0).isError()).isTrue();
        assertThat(results.get(0).text()).isEqualTo("tasks[0]: agent 'lead' may not delegate to 'analyst'; it delegates "
                + "only to: writer; nothing was delegated");
        assertThat(results.get(1).text()).isEqualTo("[{\"agent\":\"writer\",\"result\":\"an article\"}]");
        assertThat(model.requests().get(1).last().orElseThrow().toolResults().getFirst().text())
                .as("the model read why").contains("may not delegate to 'analyst'");
    }

    @Test
    void withoutATargetInTheRegistryTheAgentDoesNotDelegate() {
        ScriptedCompleter model = ScriptedCompleter.of(Step.reply("alone"));
        Agent lead = Agent.builder("lead").completer(model).registry(registry()).delegateTargets("ghost").build();
        Agent none = Agent.builder("none").completer(model).registry(registry()).delegateTargets().build();

        lead.run("work");

        assertThat(lead.canDelegate()).isFalse();
        assertThat(none.canDelegate()).isFalse();
        assertThat(model.requests().getFirst().tools()).extracting(ToolDefinition::name)
                .doesNotContain("delegate", "list_agents");
        assertThat(lead.systemPrompt()).doesNotContain("## Available Agents");
        assertThatThrownBy(() -> Agent.builder("x").delegateTargets("a", " ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Agent 'x' delegateTargets must not hold a blank name");
    }
}
