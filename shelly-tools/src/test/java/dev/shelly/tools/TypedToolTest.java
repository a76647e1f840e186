package dev.shelly.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolDefinition;
import dev.shelly.chats.ToolResult;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class TypedToolTest {
    private static final ToolContext CTX = ToolContext.of("tester");

    enum Units { CELSIUS, FAHRENHEIT }

    record Weather(@Description("city name") String city, Optional<Units> units, Optional<Integer> days) {}

    record Leg(String from, String to) {}

    record Trip(List<Leg> legs, int travellers) {}

    private static Tool weather(AtomicReference<Weather> seen) {
        return Tool.typed("get_weather", "Current weather for a city", Weather.class, (in, ctx) -> {
            seen.set(in);
            return ToolOutput.text(in.city() + " " + in.units().orElse(Units.CELSIUS) + " " + in.days().orElse(1));
        });
    }

    @Test
    void theSchemaComesFromTheRecordAndTheInputArrivesAsOne() {
        AtomicReference<Weather> seen = new AtomicReference<>();
        Tool tool = weather(seen);
        assertThat(tool.definition()).isEqualTo(new ToolDefinition("get_weather", "Current weather for a city", """
                {"type":"object","properties":{"city":{"type":"string","description":"city name"},\
                "units":{"type":"string","enum":["CELSIUS","FAHRENHEIT"]},"days":{"type":"integer"}},\
                "required":["city"],"additionalProperties":false}"""));
        ToolBox box = ToolBox.of(tool);
        assertThat(box.call(new ToolCall("c1", "get_weather", "{\"city\":\"Paris\",\"units\":\"FAHRENHEIT\"}"), CTX))
                .isEqualTo(ToolResult.of("c1", "Paris FAHRENHEIT 1"));
        assertThat(seen.get()).isEqualTo(new Weather("Paris", Optional.of(Units.FAHRENHEIT), Optional.empty()));
    }

    @Test
    void argumentsThatDoNotFitTheSchemaNameTheField() {
        AtomicReference<Weather> seen = new AtomicReference<>();
        ToolBox box = ToolBox.of(weather(seen));
        assertThat(box.call(new ToolCall("c1", "get_weather", "{}"), CTX)).isEqualTo(ToolResult.error("c1",
                "arguments for tool 'get_weather' do not match its schema: $.city is required"));
        assertThat(box.call(new ToolCall("c2", "get_weather", "{\"city\":7,\"units\":\"KELVIN\",\"day\":2}"), CTX))
                .isEqualTo(ToolResult.error("c2", "arguments for tool 'get_weather' do not match its schema: "
                        + "$.city must be a string, got a number; "
                        + "$.units must be one of \"CELSIUS\", \"FAHRENHEIT\", got \"KELVIN\"; "
                        + "$.day is not allowed (allowed: city, units, days)"));
        assertThat(seen.get()).as("the handler never ran").isNull();
    }

    @Test
    void nestedRecordsAndListsBindAndReportPaths() {
        ToolBox box = ToolBox.of(Tool.typed("plan_trip", "Plans a trip", Trip.class,
                (in, ctx) -> ToolOutput.text(in.legs().size() + " legs for " + in.travellers())));
        assertThat(box.call(new ToolCall("c1", "plan_trip",
                "{\"legs\":[{\"from\":\"A\",\"to\":\"B\"},{\"from\":\"B\",\"to\":\"C\"}],\"travellers\":2}"), CTX))
                .isEqualTo(ToolResult.of("c1", "2 legs for 2"));
        assertThat(box.call(new ToolCall("c2", "plan_trip", "{\"legs\":[{\"from\":\"A\"}],\"travellers\":2.5}"), CTX))
                .isEqualTo(ToolResult.error("c2", "arguments for tool 'plan_trip' do not match its schema: "
                        + "$.legs[0].to is required; $.travellers must be an integer, got a number"));
    }

    @Test
    void valuesTheSchemaCannotExpressAreReportedWhenBinding() {
        ToolBox box = ToolBox.of(Tool.typed("plan_trip", "Plans a trip", Trip.class, (in, ctx) -> ToolOutput.text("ok")));
        ToolResult r = box.call(new ToolCall("c1", "plan_trip", "{\"legs\":[],\"travellers\":3000000000}"), CTX);
        assertThat(r.isError()).isTrue();
        assertThat(r.text()).isEqualTo("arguments for tool 'plan_trip' do not match its schema: $.travellers: "
                + "Numeric value (3000000000) out of range of `int` (-2147483648 - 2147483647)");
    }

    @Test
    void typedHandlersFailLikeAnyOther() {
        ToolBox box = ToolBox.of(Tool.typed("get_weather", "x", Weather.class, (in, ctx) -> {
            throw new IllegalStateException("no station in " + in.city());
        }));
        assertThat(box.call(new ToolCall("c1", "get_weather", "{\"city\":\"Atlantis\"}"), CTX))
                .isEqualTo(ToolResult.error("c1", "tool 'get_weather' failed: no station in Atlantis"));
    }

    @Test
    void badDeclarationsAreRejectedAtOnce() {
        assertThatThrownBy(() -> Tool.typed("get_weather", "x", Weather.class, null))
                .hasMessage("Tool.typed handler of 'get_weather' must not be null");
        assertThatThrownBy(() -> Tool.typed("get weather", "x", Weather.class, (in, ctx) -> ToolOutput.text("")))
                .hasMessageStartingWith("tool name 'get weather' is invalid");
    }
}
