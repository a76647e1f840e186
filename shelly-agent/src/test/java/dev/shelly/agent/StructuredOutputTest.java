package dev.shelly.agent;

import dev.shelly.agent.AgentException.StructuredOutputException;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.ResponseFormat;
import dev.shelly.modeladapter.StopReason;
import dev.shelly.modeladapter.Usage;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class StructuredOutputTest {

    record Decision(List<String> members, boolean done) {}

    record Note(String text, Optional<String> author) {}

    record Open(Map<String, Integer> counts) {}

    private static ModelResponse answer(String text) {
        return ModelResponse.of(Message.text("a", Role.ASSISTANT, text));
    }

    private static ModelResponse answer(String text, StopReason stop) {
        return new ModelResponse(Message.text("a", Role.ASSISTANT, text), Usage.ZERO, stop, null, null, null, null);
    }

    @Test
    void theFormatIsTheStrictSchemaNamedAfterTheRecord() {
        StructuredOutput<Note> out = StructuredOutput.of(Note.class);
        assertThat(out.type()).isEqualTo(Note.class);
        assertThat(out.format()).isEqualTo(ResponseFormat.jsonSchema("Note", """
                {"type":"object","properties":{"text":{"type":"string"},"author":{"type":["string","null"]}},\
                "required":["text","author"],"additionalProperties":false}""", true));
        ResponseFormat.JsonSchema open = StructuredOutput.of(Open.class).format();
        assertThat(open.strict()).isFalse();
        assertThat(open.schema()).isEqualTo("""
                {"type":"object","properties":{"counts":{"type":"object","additionalProperties":{"type":"integer"}}},\
                "required":["counts"],"additionalProperties":false}""");
    }

    @Test
    void aFittingAnswerIsBoundEvenInsideACodeFence() {
        StructuredOutput<Decision> out = StructuredOutput.of(Decision.class);
        assertThat(out.bind(answer("{\"members\":[\"writer\"],\"done\":false}")))
                .isEqualTo(new StructuredOutput.Binding.Bound<>(new Decision(List.of("writer"), false)));
        assertThat(out.bind(answer("```json\n{\"members\":[],\"done\":true}\n```")))
                .isEqualTo(new StructuredOutput.Binding.Bound<>(new Decision(List.of(), true)));
        assertThat(StructuredOutput.of(Note.class).bind(answer("{\"text\":\"hi\",\"author\":null}")))
                .isEqualTo(new StructuredOutput.Binding.Bound<>(new Note("hi", Optional.empty())));
    }

    @Test
    void aMismatchNamesTheFieldsAndCanBeCorrected() {
        StructuredOutput<Decision> out = StructuredOutput.of(Decision.class);
        StructuredOutput.Binding<Decision> binding = out.bind(answer("{\"members\":[\"writer\"]}"));
        assertThat(binding).isEqualTo(new StructuredOutput.Binding.Mismatch<>("{\"members\":[\"writer\"]}",
                List.of("$.done is required"), true));
        assertThat(out.correction(List.of("$.done is required")))
                .isEqualTo("Your answer does not match the required JSON schema: $.done is required. Answer again with"
                        + " only a JSON object that matches the schema.");
        StructuredOutput.Binding<Decision> prose = out.bind(answer("The writer should go next."));
        assertThat(prose).isInstanceOf(StructuredOutput.Binding.Mismatch.class);
        StructuredOutput.Binding.Mismatch<Decision> m = (StructuredOutput.Binding.Mismatch<Decision>) prose;
        assertThat(m.correctable()).isTrue();
        assertThat(m.problems()).singleElement().asString()
                .startsWith("the answer is not valid JSON (Unrecognized token 'The'");
    }

    @Test
    void aRefusalOrACutOffAnswerCannotBeCorrected() {
        StructuredOutput<Decision> out = StructuredOutput.of(Decision.class);
        assertThat(out.bind(answer("I can't help with that.", StopReason.REFUSAL)))
                .isEqualTo(new StructuredOutput.Binding.Mismatch<>("I can't help with that.",
                        List.of("the model refused: I can't help with that."), false));
        assertThat(out.bind(answer("{\"members\":[\"wri", StopReason.MAX_TOKENS)))
                .isEqualTo(new StructuredOutput.Binding.Mismatch<>("{\"members\":[\"wri",
                        List.of("the answer was cut off at the max-tokens limit"), false));
    }

    @Test
    void theExceptionNamesAgentTypeProblemsAndAbbreviatesTheAnswer() {
        String longAnswer = "x".repeat(250);
        StructuredOutputException e = new StructuredOutputException("planner", Decision.class, longAnswer,
                List.of("$.done is required"), true);
        assertThat(e).hasMessage("agent 'planner' gave no valid Decision after a corrective turn: $.done is required;"
                + " its answer was '" + "x".repeat(200) + "…'");
        assertThat(e.agent()).isEqualTo("planner");
        assertThat(e.type()).isEqualTo(Decision.class);
        assertThat(e.answer()).isEqualTo(longAnswer);
        assertThat(e.problems()).containsExactly("$.done is required");
        assertThat(new StructuredOutputException("a", Decision.class, "no", List.of("the model refused: no"), false))
                .hasMessage("agent 'a' gave no valid Decision: the model refused: no; its answer was 'no'");
        assertThatThrownBy(() -> StructuredOutput.of(null))
                .hasMessage("StructuredOutput.of needs a record type, got null");
    }
}
