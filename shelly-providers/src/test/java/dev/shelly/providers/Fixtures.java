package dev.shelly.providers;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.chats.Chat;
import dev.shelly.chats.Image;
import dev.shelly.chats.Message;
import dev.shelly.chats.Part;
import dev.shelly.chats.Role;
import dev.shelly.chats.Text;
import dev.shelly.chats.Thinking;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolDefinition;
import dev.shelly.chats.ToolResult;
import dev.shelly.modeladapter.ModelOptions;
import dev.shelly.modeladapter.ModelRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import mockwebserver3.MockResponse;
import mockwebserver3.RecordedRequest;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The conversation every provider test sends, and helpers to compare wire JSON. */
public final class Fixtures {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** A 1x1 PNG. */
    public static final byte[] PNG = java.util.Base64.getDecoder().decode(
            "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==");
    /** {@link #PNG} in base64. */
    public static final String PNG_BASE64 = java.util.Base64.getEncoder().encodeToString(PNG);

    /** A custom part no provider can send. */
    public record Citation(String source) implements Part {
        @Override
        public String kind() {
            return "citation";
        }
    }

    private Fixtures() {}

    /** The weather tool. */
    public static final ToolDefinition WEATHER = new ToolDefinition("get_weather", "Get the current weather",
            "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}},\"required\":[\"city\"]}");
    /** The time tool. */
    public static final ToolDefinition TIME = new ToolDefinition("get_time", "Get the local time",
            "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}}}");

    /**
     * System, user with an image, assistant with thinking, text and two tool calls, the two
     * tool results (the second failed), a user follow-up with a URL image and a custom part.
     *
     * @return the chat
     */
    public static Chat conversation() {
        return Chat.of(
                Message.system("You are terse."),
                Message.of("user", Role.USER, new Text("What is in this picture?"), Image.ofBytes(PNG, "image/png")),
                Message.of("bot", Role.ASSISTANT,
                        Thinking.of("The user wants weather and time.", "sig-123"),
                        new Text("Let me check."),
                        new ToolCall("call_1", "get_weather", "{\"city\":\"Paris\"}"),
                        new ToolCall("call_2", "get_time", "{\"city\":\"Paris\"}")),
                Message.of("tools", Role.TOOL,
                        ToolResult.of("call_1", "14°C and sunny"),
                        ToolResult.error("call_2", "time service unavailable")),
                Message.of("user", Role.USER, new Text("And this one?"), Image.ofUrl("https://example.com/cat.jpg"),
                        new Citation("doc-7")));
    }

    /**
     * The request an agent sends for a chat: its messages, the tools, no options, the chat's id.
     *
     * @param chat the conversation
     * @param tools the tools offered
     * @return the request
     */
    public static ModelRequest request(Chat chat, List<ToolDefinition> tools) {
        return new ModelRequest(chat.messages(), tools, ModelOptions.NONE, chat.id());
    }

    /** The tools of the conversation. */
    public static List<ToolDefinition> tools() {
        return List.of(WEATHER, TIME);
    }

    /**
     * Asserts that a request body is exactly the expected JSON: same tree, same field order.
     *
     * @param request the recorded request
     * @param expected the expected JSON, in any formatting
     */
    public static void assertJson(RecordedRequest request, String expected) {
        assertJson(request.getBody().utf8(), expected);
    }

    /**
     * Asserts that a JSON text is exactly the expected JSON: same tree, same field order.
     *
     * @param actual the JSON text
     * @param expected the expected JSON, in any formatting
     */
    public static void assertJson(String actual, String expected) {
        JsonNode want = JSON.readTree(expected);
        JsonNode got = JSON.readTree(actual);
        assertThat(got).isEqualTo(want);
        assertThat(JSON.writeValueAsString(got)).as("field order").isEqualTo(JSON.writeValueAsString(want));
    }

    /**
     * A JSON response.
     *
     * @param code the status
     * @param body the body
     * @return the response
     */
    public static MockResponse json(int code, String body) {
        return new MockResponse.Builder().code(code).addHeader("Content-Type", "application/json").body(body).build();
    }

    /**
     * An event-stream response.
     *
     * @param body the events
     * @return the response
     */
    public static MockResponse sse(String body) {
        return new MockResponse.Builder().addHeader("Content-Type", "text/event-stream").body(body).build();
    }

    /** Records the delays a retry would have slept. */
    public static final class Sleeps implements dev.shelly.modeladapter.RetryingCompleter.Sleeper {
        /** The delays, in order. */
        public final List<Duration> delays = new ArrayList<>();

        @Override
        public void sleep(Duration delay) {
            delays.add(delay);
        }
    }
}
