package dev.shelly.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

class JsonSchemasTest {

    /** Stands in for JSpecify's {@code @Nullable}: any runtime annotation of that simple name counts. */
    @Retention(RetentionPolicy.RUNTIME)
    @Target({ElementType.TYPE_USE})
    @interface Nullable {}

    enum Units { CELSIUS, FAHRENHEIT }

    record Forecast(@Description("city name, e.g. Paris") String city,
            @Description("days ahead") int days,
            Optional<Units> units,
            boolean alerts,
            double minTemperature) {}

    @Test
    void scalarsEnumsOptionalAndDescriptionsInComponentOrder() {
        assertThat(JsonSchemas.forRecord(Forecast.class)).isEqualTo("""
                {"type":"object","properties":{\
                "city":{"type":"string","description":"city name, e.g. Paris"},\
                "days":{"type":"integer","description":"days ahead"},\
                "units":{"type":"string","enum":["CELSIUS","FAHRENHEIT"]},\
                "alerts":{"type":"boolean"},\
                "minTemperature":{"type":"number"}},\
                "required":["city","days","alerts","minTemperature"],"additionalProperties":false}""");
    }

    @Description("a point on a route")
    record Stop(String name, @Description("minutes spent here") Optional<Integer> minutes) {}

    record Route(List<Stop> stops, Set<String> tags, Map<String, Double> costs, String[] notes,
            @Nullable String comment, @Nullable Units preferred, OptionalInt maxStops) {}

    @Test
    void nestedRecordsListsSetsMapsArraysAndNullables() {
        assertThat(JsonSchemas.forRecord(Route.class)).isEqualTo("""
                {"type":"object","properties":{\
                "stops":{"type":"array","items":{"type":"object","description":"a point on a route","properties":{\
                "name":{"type":"string"},\
                "minutes":{"type":"integer","description":"minutes spent here"}},\
                "required":["name"],"additionalProperties":false}},\
                "tags":{"type":"array","items":{"type":"string"},"uniqueItems":true},\
                "costs":{"type":"object","additionalProperties":{"type":"number"}},\
                "notes":{"type":"array","items":{"type":"string"}},\
                "comment":{"type":["string","null"]},\
                "preferred":{"type":["string","null"],"enum":["CELSIUS","FAHRENHEIT",null]},\
                "maxStops":{"type":"integer"}},\
                "required":["stops","tags","costs","notes"],"additionalProperties":false}""");
    }

    record Formats(UUID id, LocalDate day, BigDecimal amount, char letter, JsonNode extra, List<@Nullable String> names) {}

    @Test
    void formatsAnyJsonAndNullableItems() {
        assertThat(JsonSchemas.forRecord(Formats.class)).isEqualTo("""
                {"type":"object","properties":{\
                "id":{"type":"string","format":"uuid"},\
                "day":{"type":"string","format":"date"},\
                "amount":{"type":"number"},\
                "letter":{"type":"string","minLength":1,"maxLength":1},\
                "extra":{},\
                "names":{"type":"array","items":{"type":["string","null"]}}},\
                "required":["id","day","amount","letter","extra","names"],"additionalProperties":false}""");
    }

    record Empty() {}

    @Test
    void aRecordWithoutComponentsIsAnEmptyObject() {
        assertThat(JsonSchemas.forRecord(Empty.class))
                .isEqualTo("{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}");
    }

    @Test
    void theSameTypeGivesTheSameTextEveryTime() {
        assertThat(JsonSchemas.forRecord(Route.class)).isEqualTo(JsonSchemas.forRecord(Route.class));
    }

    record Node(String name, List<Node> children) {}

    record Odd(Object anything) {}

    record IntKeys(Map<Integer, String> byNumber) {}

    record Nested(List<Optional<String>> maybe) {}

    @SuppressWarnings("rawtypes")
    record Raw(List things) {}

    @Test
    void typesWithoutAJsonSchemaAreRejectedNamingTheComponent() {
        assertThatThrownBy(() -> JsonSchemas.forRecord(Node.class))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("record Node contains itself (through Node -> Node); recursive input types have no finite JSON Schema");
        assertThatThrownBy(() -> JsonSchemas.forRecord(Odd.class))
                .hasMessage("Odd.anything has type java.lang.Object, which has no JSON Schema here; use a string, number,"
                        + " boolean, enum, record, List, Set, array, Map<String, ...>, Optional or JsonNode");
        assertThatThrownBy(() -> JsonSchemas.forRecord(IntKeys.class))
                .hasMessage("IntKeys.byNumber is a Map with Integer keys; JSON object keys are strings, use Map<String, ...>");
        assertThatThrownBy(() -> JsonSchemas.forRecord(Nested.class))
                .hasMessage("Nested.maybe[] nests an Optional; Optional marks a record component that may be left out"
                        + " and is supported only as a component's own type");
        assertThatThrownBy(() -> JsonSchemas.forRecord(Raw.class))
                .hasMessage("Raw.things uses the raw type java.util.List; give its type arguments, e.g. List<String>");
    }

    @Test
    void generatedSchemasAreCheckedExactly() {
        SchemaCheck check = SchemaCheck.parse(JsonSchemas.forRecord(Route.class));
        JsonNode good = Json.MAPPER.readTree("""
                {"stops":[{"name":"Lyon","minutes":30},{"name":"Nice"}],"tags":["a","b"],"costs":{"fuel":12.5},
                 "notes":[],"comment":null,"preferred":"CELSIUS"}""");
        assertThat(check.problems(good)).isEmpty();
        JsonNode bad = Json.MAPPER.readTree("""
                {"stops":[{"minutes":1.5}],"tags":["a","a"],"costs":{"fuel":"cheap"},"notes":[],"preferred":"KELVIN","colour":1}""");
        assertThat(check.problems(bad)).containsExactly(
                "$.stops[0].name is required",
                "$.stops[0].minutes must be an integer, got a number",
                "$.tags must not contain duplicates, but items 0 and 1 are equal",
                "$.costs.fuel must be a number, got a string",
                "$.preferred must be one of \"CELSIUS\", \"FAHRENHEIT\", null, got \"KELVIN\"",
                "$.colour is not allowed (allowed: stops, tags, costs, notes, comment, preferred, maxStops)");
    }
}
