package dev.shelly.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.net.URI;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

class RecordBinderTest {

    @Retention(RetentionPolicy.RUNTIME)
    @interface Nullable {}

    enum Mood { CALM, ANGRY }

    record Decision(List<String> members, boolean done) {}

    record Note(String text, Optional<Mood> mood, @Nullable String author, Set<String> tags, LocalDate due, URI link) {}

    record Inner(String name, Optional<Integer> age) {}

    record Outer(List<Inner> people, Optional<Inner> lead) {}

    record Open(String name, Map<String, Integer> counts) {}

    record Raw(JsonNode anything) {}

    @Test
    void theStrictSchemaRequiresEveryPropertyAndLetsOptionalOnesBeNull() {
        RecordBinder<Note> binder = RecordBinder.of(Note.class);
        assertThat(binder.schema()).isEqualTo(JsonSchemas.forRecord(Note.class));
        assertThat(binder.strictSchema()).contains("""
                {"type":"object","properties":{"text":{"type":"string"},\
                "mood":{"type":["string","null"],"enum":["CALM","ANGRY",null]},\
                "author":{"type":["string","null"]},\
                "tags":{"type":"array","items":{"type":"string"}},\
                "due":{"type":"string","format":"date"},\
                "link":{"type":"string"}},\
                "required":["text","mood","author","tags","due","link"],"additionalProperties":false}""");
    }

    @Test
    void nestedRecordsAreMadeStrictToo() {
        assertThat(RecordBinder.of(Outer.class).strictSchema()).contains("""
                {"type":"object","properties":{"people":{"type":"array","items":{"type":"object","properties":\
                {"name":{"type":"string"},"age":{"type":["integer","null"]}},"required":["name","age"],\
                "additionalProperties":false}},"lead":{"type":["object","null"],"properties":\
                {"name":{"type":"string"},"age":{"type":["integer","null"]}},"required":["name","age"],\
                "additionalProperties":false}},"required":["people","lead"],"additionalProperties":false}""");
    }

    @Test
    void aMapOrJsonNodeComponentMakesStrictImpossible() {
        assertThat(RecordBinder.of(Open.class).strictSchema()).isEmpty();
        assertThat(RecordBinder.of(Raw.class).strictSchema()).isEmpty();
        assertThat(RecordBinder.of(Open.class).bind("{\"name\":\"a\",\"counts\":{\"x\":1}}", true))
                .isEqualTo(new RecordBinder.Result.Ok<>(new Open("a", Map.of("x", 1))));
    }

    @Test
    void aFittingAnswerIsBoundAndNullBecomesAnEmptyOptional() {
        RecordBinder<Outer> binder = RecordBinder.of(Outer.class);
        assertThat(binder.bind("{\"people\":[{\"name\":\"Ann\",\"age\":null}],\"lead\":null}", true))
                .isEqualTo(new RecordBinder.Result.Ok<>(new Outer(List.of(new Inner("Ann", Optional.empty())),
                        Optional.empty())));
        assertThat(binder.bind("{\"people\":[{\"name\":\"Bo\",\"age\":7}]}", false))
                .isEqualTo(new RecordBinder.Result.Ok<>(new Outer(List.of(new Inner("Bo", Optional.of(7))),
                        Optional.empty())));
    }

    @Test
    void problemsNameTheFieldAsTypedToolsDo() {
        RecordBinder<Decision> binder = RecordBinder.of(Decision.class);
        assertThat(binder.bind("{\"members\":[3]}", true)).isEqualTo(new RecordBinder.Result.Invalid<>(
                List.of("$.done is required", "$.members[0] must be a string, got a number")));
        assertThat(binder.bind("{\"members\":[],\"done\":true,\"why\":1}", true))
                .isInstanceOf(RecordBinder.Result.Invalid.class);
        assertThat(binder.bind("[]", true)).isEqualTo(new RecordBinder.Result.Invalid<>(
                List.of("$ must be an object, got an array")));
    }

    @Test
    void anAnswerThatIsNotJsonSaysSo() {
        RecordBinder<Decision> binder = RecordBinder.of(Decision.class);
        RecordBinder.Result<Decision> result = binder.bind("members: ann", true);
        assertThat(result).isInstanceOf(RecordBinder.Result.Invalid.class);
        assertThat(((RecordBinder.Result.Invalid<Decision>) result).problems()).singleElement().asString()
                .startsWith("the answer is not valid JSON (Unrecognized token 'members'");
        assertThat(binder.bind("  ", true)).isEqualTo(new RecordBinder.Result.Invalid<>(
                List.of("the answer is empty; a JSON object was expected")));
    }

    @Test
    void aTypeWithoutAJsonFormIsRefusedNamingTheComponent() {
        record Bad(Thread thread) {}
        assertThatThrownBy(() -> RecordBinder.of(Bad.class))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("Bad.thread has type java.lang.Thread, which has no JSON Schema here");
    }
}
