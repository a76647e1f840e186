package dev.shelly.agent;

import dev.shelly.agent.AgentException.StructuredOutputException;
import static dev.shelly.agent.Fixtures.tool;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.ResponseFormat;
import dev.shelly.modeladapter.StopReason;
import dev.shelly.testing.ScriptedCompleter;
import dev.shelly.testing.Step;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolOutput;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class StructuredRunTest {

    record Verdict(boolean approve, String reason) {}

    @Test
    void aFittingAnswerIsBoundAndStaysInTheChat() {
        ScriptedCompleter model = ScriptedCompleter.of(Step.reply("{\"approve\":true,\"reason\":\"tests pass\"}"));
        Agent a = Agent.builder("reviewer").completer(model).build();

        Verdict v = a.run("Review this", Verdict.class);

        assertThat(v).isEqualTo(new Verdict(true, "tests pass"));
        assertThat(model.requests().getFirst().options().responseFormat())
                .isInstanceOfSatisfying(ResponseFormat.JsonSchema.class, f -> assertThat(f.name()).isEqualTo("Verdict"));
        assertThat(a.chat().last().orElseThrow().text()).isEqualTo("{\"approve\":true,\"reason\":\"tests pass\"}");
    }

    @Test
    void toolsStillWorkAndTheFormatGoesWithEveryCall() {
        ScriptedCompleter model = ScriptedCompleter.of(Step.toolCall("diff", "{}"),
                Step.reply(request -> "{\"approve\":false,\"reason\":\"" + request.last().orElseThrow().toolResults()
                        .getFirst().text() + "\"}"));
        Agent a = Agent.builder("reviewer").completer(model)
                .toolboxes(ToolBox.of(tool("diff", (input, ctx) -> ToolOutput.text("too big")))).build();

        Verdict v = a.run("Review this", Verdict.class, RunContext.root());

        assertThat(v).isEqualTo(new Verdict(false, "too big"));
        assertThat(model.requests()).allSatisfy(r -> assertThat(r.options().responseFormat()).isNotNull());
    }

    @Test
    void aMismatchGetsOneCorrectiveTurn() {
        ScriptedCompleter model = ScriptedCompleter.of(Step.reply("{\"approve\":true}"),
                Step.reply("{\"approve\":true,\"reason\":\"fine\"}"));
        Agent a = Agent.builder("reviewer").completer(model).build();

        Verdict v = a.run("Review this", Verdict.class);

        assertThat(v).isEqualTo(new Verdict(true, "fine"));
        Message correction = model.requests().get(1).last().orElseThrow();
        assertThat(correction.sender()).isEqualTo(StructuredOutput.SENDER);
        assertThat(correction.role()).isEqualTo(Role.USER);
        assertThat(correction.text()).isEqualTo("Your answer does not match the required JSON schema: $.reason is "
                + "required. Answer again with only a JSON object that matches the schema.");
    }

    @Test
    void aSecondMismatchFailsWithTheProblemsAndTheAnswer() {
        Agent a = Agent.builder("reviewer").completer(ScriptedCompleter.of(Step.reply("{\"approve\":true}"),
                Step.reply("{\"approve\":\"yes\",\"reason\":\"fine\"}"))).build();

        assertThatThrownBy(() -> a.run("Review this", Verdict.class))
                .isInstanceOfSatisfying(StructuredOutputException.class, e -> {
                    assertThat(e.type()).isEqualTo(Verdict.class);
                    assertThat(e.answer()).isEqualTo("{\"approve\":\"yes\",\"reason\":\"fine\"}");
                    assertThat(e.problems()).isNotEmpty();
                    assertThat(e).hasMessageStartingWith("agent 'reviewer' gave no valid Verdict after a corrective turn: ");
                });
    }

    @Test
    void aRefusalFailsAtOnce() {
        ScriptedCompleter model = ScriptedCompleter.of(Step.respond(request -> new ModelResponse(
                Message.text("m", Role.ASSISTANT, "I can't review that."), null, StopReason.REFUSAL, null, null, null, null)));
        Agent a = Agent.builder("reviewer").completer(model).build();

        assertThatThrownBy(() -> a.run("Review this", Verdict.class)).isInstanceOf(StructuredOutputException.class)
                .hasMessage("agent 'reviewer' gave no valid Verdict: the model refused: I can't review that.; "
                        + "its answer was 'I can't review that.'");
        assertThat(model.callCount()).isEqualTo(1);
    }
}
