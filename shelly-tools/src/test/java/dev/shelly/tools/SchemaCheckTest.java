package dev.shelly.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class SchemaCheckTest {

    private static List<String> problems(String schema, String value) {
        return SchemaCheck.parse(schema).problems(Json.MAPPER.readTree(value));
    }

    @Test
    void typesIncludingUnionsAndWholeNumbersAsIntegers() {
        String schema = """
                {"type":"object","properties":{"n":{"type":"integer"},"s":{"type":["string","null"]},"b":{"type":"boolean"}}}""";
        assertThat(problems(schema, "{\"n\":3.0,\"s\":null,\"b\":true}")).isEmpty();
        assertThat(problems(schema, "{\"n\":\"3\",\"s\":4,\"b\":\"yes\"}")).containsExactly(
                "$.n must be an integer, got a string",
                "$.s must be a string or null, got a number",
                "$.b must be a boolean, got a string");
        assertThat(problems("{\"type\":\"object\"}", "[]")).containsExactly("$ must be an object, got an array");
    }

    @Test
    void numberStringAndArrayBounds() {
        String schema = """
                {"properties":{
                  "age":{"type":"integer","minimum":0,"maximum":150},
                  "ratio":{"exclusiveMinimum":0,"exclusiveMaximum":1},
                  "old":{"minimum":5,"exclusiveMinimum":true},
                  "step":{"multipleOf":0.5},
                  "code":{"type":"string","minLength":2,"maxLength":3,"pattern":"^[A-Z]+$"},
                  "list":{"type":"array","minItems":1,"maxItems":2},
                  "one":{"minLength":1}}}""";
        assertThat(problems(schema, "{\"age\":30,\"ratio\":0.5,\"old\":6,\"step\":2.5,\"code\":\"AB\",\"list\":[1]}")).isEmpty();
        assertThat(problems(schema, """
                {"age":-1,"ratio":1,"old":5,"step":0.3,"code":"abcd","list":[],"one":""}""")).containsExactly(
                "$.age must be >= 0, got -1",
                "$.ratio must be < 1, got 1",
                "$.old must be > 5, got 5",
                "$.step must be a multiple of 0.5, got 0.3",
                "$.code must be at most 3 characters long, got 4",
                "$.code must match the pattern \"^[A-Z]+$\", got \"abcd\"",
                "$.list must have at least 1 item, got 0",
                "$.one must be at least 1 character long, got 0");
        assertThat(problems(schema, "{\"age\":151,\"list\":[1,2,3]}")).containsExactly(
                "$.age must be <= 150, got 151",
                "$.list must have at most 2 items, got 3");
    }

    @Test
    void lengthsCountCharactersNotUtf16Units() {
        assertThat(problems("{\"maxLength\":2}", "\"\uD83D\uDE00\uD83D\uDE00\"")).isEmpty();
    }

    @Test
    void enumAndConstCompareNumbersByValue() {
        assertThat(problems("{\"enum\":[1,\"a\",{\"k\":[1,2]}]}", "1.0")).isEmpty();
        assertThat(problems("{\"enum\":[1,\"a\",{\"k\":[1,2]}]}", "{\"k\":[1,2.0]}")).isEmpty();
        assertThat(problems("{\"const\":\"x\"}", "\"y\"")).containsExactly("$ must be \"x\", got \"y\"");
    }

    @Test
    void objectsRequiredAdditionalPatternAndDependencies() {
        String schema = """
                {"type":"object","required":["a","max-results"],
                 "properties":{"a":{"type":"string"},"max-results":{"type":"integer"}},
                 "patternProperties":{"^x-":{"type":"string"}},
                 "additionalProperties":false,
                 "dependentRequired":{"a":["b"]},
                 "maxProperties":3}""";
        assertThat(problems(schema, "{\"a\":\"1\",\"max-results\":2,\"x-trace\":\"t\"}"))
                .containsExactly("$.b is required when $.a is given");
        assertThat(problems(schema, "{\"x-n\":1,\"z z\":1,\"q\":2,\"r\":3}")).containsExactly(
                "$.a is required",
                "$['max-results'] is required",
                "$['x-n'] must be a string, got a number",
                "$['z z'] is not allowed (allowed: a, max-results)",
                "$.q is not allowed (allowed: a, max-results)",
                "$.r is not allowed (allowed: a, max-results)",
                "$ must have at most 3 properties, got 4");
        assertThat(problems("{\"additionalProperties\":{\"type\":\"number\"}}", "{\"k\":\"v\"}"))
                .containsExactly("$.k must be a number, got a string");
        assertThat(problems("{\"properties\":{\"gone\":false}}", "{\"gone\":1}")).containsExactly("$.gone is not allowed");
    }

    @Test
    void tuplesAndItems() {
        assertThat(problems("{\"prefixItems\":[{\"type\":\"string\"}],\"items\":{\"type\":\"number\"}}", "[1,\"x\"]"))
                .containsExactly("$[0] must be a string, got a number", "$[1] must be a number, got a string");
        assertThat(problems("{\"items\":[{\"type\":\"string\"}]}", "[\"ok\",5]")).isEmpty();
    }

    @Test
    void combinatorsAndConditionals() {
        String anyOf = "{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"integer\",\"minimum\":1}]}";
        assertThat(problems(anyOf, "2")).isEmpty();
        assertThat(problems(anyOf, "0")).containsExactly(
                "$ matches none of the anyOf alternatives (1: $ must be a string, got a number; 2: $ must be >= 1, got 0)");
        String oneOf = "{\"oneOf\":[{\"type\":\"number\"},{\"type\":\"integer\"}]}";
        assertThat(problems(oneOf, "1.5")).isEmpty();
        assertThat(problems(oneOf, "2")).containsExactly(
                "$ matches 2 of the oneOf alternatives (1, 2); it must match exactly one");
        assertThat(problems(oneOf, "true")).containsExactly(
                "$ matches none of the oneOf alternatives (1: $ must be a number, got a boolean; 2: $ must be an integer, got a boolean)");
        assertThat(problems("{\"allOf\":[{\"minimum\":1},{\"maximum\":3}]}", "5")).containsExactly("$ must be <= 3, got 5");
        assertThat(problems("{\"not\":{\"type\":\"null\"}}", "null")).containsExactly("$ must not match the schema under \"not\"");
        String conditional = """
                {"if":{"properties":{"kind":{"const":"file"}}},"then":{"required":["path"]},"else":{"required":["url"]}}""";
        assertThat(problems(conditional, "{\"kind\":\"file\"}")).containsExactly("$.path is required");
        assertThat(problems(conditional, "{\"kind\":\"web\"}")).containsExactly("$.url is required");
    }

    @Test
    void localReferencesAreFollowedAndOthersIgnored() {
        String schema = """
                {"$defs":{"city":{"type":"string"},"a/b":{"minimum":10}},
                 "properties":{"from":{"$ref":"#/$defs/city"},"to":{"$ref":"#/$defs/city"},
                   "n":{"$ref":"#/$defs/a~1b"},"far":{"$ref":"https://example.com/schema"},"self":{"$ref":"#"}}}""";
        assertThat(problems(schema, "{\"from\":\"Paris\",\"to\":1,\"n\":3,\"far\":1,\"self\":{\"to\":\"x\"}}"))
                .containsExactly("$.to must be a string, got a number", "$.n must be >= 10, got 3");
    }

    @Test
    void aReferenceLoopDoesNotRunForever() {
        assertThat(problems("{\"$defs\":{\"a\":{\"$ref\":\"#/$defs/a\"}},\"$ref\":\"#/$defs/a\"}", "1")).isEmpty();
    }

    @Test
    void unknownKeywordsAndTypesNeverReject() {
        assertThat(problems("{\"type\":\"strin\",\"format\":\"email\",\"x-custom\":1,\"pattern\":\"(\"}", "\"no\"")).isEmpty();
    }

    @Test
    void schemasThatAreNotObjectsAreRejected() {
        assertThatThrownBy(() -> SchemaCheck.parse("[1]")).hasMessage("must be a JSON object, got an array");
        assertThatThrownBy(() -> SchemaCheck.parse("{")).hasMessageStartingWith("is not valid JSON (");
        assertThat(SchemaCheck.parse("true").problems(Json.MAPPER.readTree("{}"))).isEmpty();
        assertThat(SchemaCheck.parse("false").problems(Json.MAPPER.readTree("{}"))).containsExactly("$ is not allowed");
    }
}
