package dev.shelly.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolDefinition;
import dev.shelly.chats.ToolResult;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolContext;
import org.junit.jupiter.api.Test;

class StateToolsTest {
    private static final ToolContext CTX = ToolContext.of("researcher");

    private final Store store = new Store();
    private final ToolBox tools = store.tools("team");

    private ToolResult call(String name, String arguments) {
        return tools.call(new ToolCall("call_1", name, arguments), CTX);
    }

    @Test
    void definitionsAreExact() {
        assertThat(tools.definitions()).containsExactly(
                new ToolDefinition("team_state_get",
                        "Read one value from the shared \"team\" state, a key/value store that cooperating agents use to "
                                + "hand each other structured data. Returns the value as JSON. Fails when nothing is stored "
                                + "under the key; team_state_list shows the keys that exist.",
                        "{\"type\":\"object\",\"properties\":{\"key\":{\"type\":\"string\",\"description\":"
                                + "\"The key to read, e.g. \\\"findings\\\".\"}},\"required\":[\"key\"],\"additionalProperties\":false}"),
                new ToolDefinition("team_state_set",
                        "Store a JSON value under a key in the shared \"team\" state, where other agents can read it with "
                                + "team_state_get. Replaces any value already under that key. Returns ok.",
                        "{\"type\":\"object\",\"properties\":{\"key\":{\"type\":\"string\",\"description\":"
                                + "\"The key to write, e.g. \\\"findings\\\".\"},\"value\":{\"description\":"
                                + "\"The value: any JSON (object, array, string, number, boolean or null).\"}},"
                                + "\"required\":[\"key\",\"value\"],\"additionalProperties\":false}"),
                new ToolDefinition("team_state_list",
                        "List the keys of the shared \"team\" state, sorted, as a JSON array of strings.",
                        "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}"));
        for (ToolDefinition d : tools.definitions()) {
            assertThat(JsonValues.JSON.readTree(d.inputSchema()).isObject()).as(d.name()).isTrue();
        }
    }

    @Test
    void setThenGetRoundTripsAnyJsonValueExactly() {
        String value = "{\"title\":\"Draft\",\"tags\":[\"a\",null],\"n\":12345678901234567890,\"x\":0.1,\"ok\":true}";
        assertThat(call("team_state_set", "{\"key\":\"findings\",\"value\":" + value + "}"))
                .isEqualTo(ToolResult.of("call_1", "ok"));
        assertThat(call("team_state_get", "{\"key\":\"findings\"}")).isEqualTo(ToolResult.of("call_1", value));

        assertThat(call("team_state_set", "{\"key\":\"s\",\"value\":\"text \\\"quoted\\\" ü\"}").text()).isEqualTo("ok");
        assertThat(call("team_state_get", "{\"key\":\"s\"}").text()).isEqualTo("\"text \\\"quoted\\\" ü\"");

        assertThat(call("team_state_set", "{\"key\":\"nothing\",\"value\":null}").text()).isEqualTo("ok");
        assertThat(call("team_state_get", "{\"key\":\"nothing\"}")).isEqualTo(ToolResult.of("call_1", "null"));
    }

    @Test
    void listAnswersTheSortedKeysAsAJsonArray() {
        assertThat(call("team_state_list", "{}")).isEqualTo(ToolResult.of("call_1", "[]"));
        store.setJson("outline", "1");
        store.setJson("findings", "2");
        store.setJson("Status", "3");
        assertThat(call("team_state_list", "{}")).isEqualTo(ToolResult.of("call_1", "[\"Status\",\"findings\",\"outline\"]"));
        assertThat(call("team_state_list", "")).isEqualTo(ToolResult.of("call_1", "[\"Status\",\"findings\",\"outline\"]"));
    }

    @Test
    void toolsAndJavaCallersSeeTheSameState() {
        store.setJson("from_java", "[1,2]");
        assertThat(call("team_state_get", "{\"key\":\"from_java\"}").text()).isEqualTo("[1,2]");
        call("team_state_set", "{\"key\":\"from_tool\",\"value\":{\"a\":1}}");
        assertThat(store.get("from_tool")).contains(JsonValues.JSON.readTree("{\"a\":1}"));
    }

    @Test
    void aMissingKeyIsAnErrorThatListsTheKeysPresent() {
        assertThat(call("team_state_get", "{\"key\":\"findings\"}")).isEqualTo(ToolResult.error("call_1",
                "no value under key 'findings' in the \"team\" state; the state is empty"));
        store.setJson("outline", "1");
        store.setJson("draft", "2");
        assertThat(call("team_state_get", "{\"key\":\"findings\"}")).isEqualTo(ToolResult.error("call_1",
                "no value under key 'findings' in the \"team\" state; keys present: draft, outline"));
        for (int i = 10; i < 40; i++) {
            store.setJson("k" + i, "0");
        }
        assertThat(call("team_state_get", "{\"key\":\"findings\"}").text()).isEqualTo(
                "no value under key 'findings' in the \"team\" state; keys present: draft, k10, k11, k12, k13, k14, k15, "
                        + "k16, k17, k18, k19, k20, k21, k22, k23, k24, k25, k26, k27, k28 and 12 more");
    }

    @Test
    void badInputGetsAnErrorTheModelCanActOn() {
        assertThat(call("team_state_get", "{}"))
                .isEqualTo(ToolResult.error("call_1", "missing required field 'key': a non-empty string"));
        assertThat(call("team_state_get", "{\"key\":7}"))
                .isEqualTo(ToolResult.error("call_1", "field 'key' must be a string, got number"));
        assertThat(call("team_state_set", "{\"key\":\" \",\"value\":1}"))
                .isEqualTo(ToolResult.error("call_1", "field 'key' must not be blank"));
        assertThat(call("team_state_set", "{\"key\":\"findings\"}")).isEqualTo(ToolResult.error("call_1",
                "missing required field 'value': the JSON value to store under 'findings' (use null to store null)"));
        assertThat(store.keys()).isEmpty();
    }

    @Test
    void namespacesThatCannotPrefixAToolNameAreRejected() {
        assertThatThrownBy(() -> store.tools("my team"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("state tool namespace 'my team' is invalid: use 1 to 53 letters, digits, '_' or '-', "
                        + "so that 'my team_state_list' is a valid tool name");
        assertThatThrownBy(() -> store.tools(""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("state tool namespace '' is invalid");
        assertThatThrownBy(() -> store.tools(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("state tool namespace must not be null");
        assertThatThrownBy(() -> store.tools("n".repeat(54)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("state tool namespace '" + "n".repeat(54) + "' is invalid");
        assertThat(store.tools("n".repeat(53)).names()).contains("n".repeat(53) + "_state_list");
        assertThat(store.tools("a-b_9").names()).containsExactly("a-b_9_state_get", "a-b_9_state_set", "a-b_9_state_list");
    }
}
