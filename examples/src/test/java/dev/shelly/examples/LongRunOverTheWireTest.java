package dev.shelly.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import mockwebserver3.junit5.StartStop;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The {@code long-run} example against strict emulations of both provider APIs that keep calling
 * tools: each checks every request's validity after every cut, counts every request's tokens
 * (a quarter of its characters, as the providers' tokenizers do on such text, give or take) and
 * reports that count back as the input tokens, so the agent's accounting runs on reported figures.
 */
@Timeout(120)
class LongRunOverTheWireTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    /** The tool calls the emulated model makes before it answers: over a hundred iterations. */
    private static final int CALLS = 110;

    @StartStop
    private final MockWebServer server = new MockWebServer();

    /** What both emulations share: the model's moves, the counts, the checks. */
    private abstract static class Emulation extends Dispatcher {
        final List<Long> tokens = new ArrayList<>();
        final List<String> problems = new ArrayList<>();
        final List<JsonNode> bodies = new ArrayList<>();
        final List<String> written = new ArrayList<>();
        int calls;
        int summaries;

        @Override
        public synchronized MockResponse dispatch(RecordedRequest request) {
            JsonNode body = JSON.readTree(request.getBody().utf8());
            long count = count(body);
            if (isSummary(body)) {
                summaries++;
                written.add("Progress so far: records 1 to " + calls + " read.");
                return reply(text(written.getLast()), count);
            }
            tokens.add(count);
            bodies.add(body);
            String problem = invalid(body);
            if (problem != null) {
                problems.add("request " + (tokens.size()) + ": " + problem);
            }
            calls++;
            return reply(calls <= CALLS ? toolCall("c" + calls, "read_record", "{\"number\":" + calls + "}")
                    : text("All records read."), count);
        }

        abstract long count(JsonNode body);

        abstract boolean isSummary(JsonNode body);

        abstract String invalid(JsonNode body);

        abstract ObjectNode text(String text);

        abstract ObjectNode toolCall(String id, String name, String arguments);

        abstract MockResponse reply(ObjectNode message, long inputTokens);
    }

    private static long quarter(JsonNode... parts) {
        long chars = 0;
        for (JsonNode p : parts) {
            chars += p.isMissingNode() ? 0 : p.toString().length();
        }
        return (chars + 3) / 4;
    }

    /** OpenAI Chat Completions. */
    private static final class ChatCompletions extends Emulation {
        @Override
        long count(JsonNode body) {
            return quarter(body.path("messages"), body.path("tools"));
        }

        @Override
        boolean isSummary(JsonNode body) {
            return body.path("tools").isEmpty()
                    && body.at("/messages/0/content").asString("").startsWith("You compress conversations");
        }

        @Override
        String invalid(JsonNode body) {
            JsonNode messages = body.path("messages");
            if (!messages.path(0).path("role").asString("").equals("system")) {
                return "the first message is not the system prompt";
            }
            if (!messages.path(1).path("role").asString("").equals("user")) {
                return "the second message is not a user message";
            }
            Set<String> pending = new HashSet<>();
            for (int i = 1; i < messages.size(); i++) {
                JsonNode m = messages.get(i);
                String role = m.path("role").asString("");
                if (role.equals("tool")) {
                    if (!pending.remove(m.path("tool_call_id").asString(""))) {
                        return "tool message " + i + " answers no pending call";
                    }
                    continue;
                }
                if (!pending.isEmpty()) {
                    return "message " + i + " comes before the results of " + pending;
                }
                if (!Set.of("user", "assistant").contains(role)) {
                    return "message " + i + " has role " + role;
                }
                for (JsonNode c : m.path("tool_calls")) {
                    pending.add(c.path("id").asString());
                }
            }
            return pending.isEmpty() ? null : "the calls " + pending + " have no results";
        }

        @Override
        ObjectNode text(String text) {
            return JSON.createObjectNode().put("role", "assistant").put("content", text);
        }

        @Override
        ObjectNode toolCall(String id, String name, String arguments) {
            ObjectNode m = JSON.createObjectNode().put("role", "assistant").putNull("content");
            ObjectNode call = m.putArray("tool_calls").addObject().put("id", id).put("type", "function");
            call.putObject("function").put("name", name).put("arguments", arguments);
            return m;
        }

        @Override
        MockResponse reply(ObjectNode message, long inputTokens) {
            ObjectNode o = JSON.createObjectNode().put("id", "chatcmpl-x").put("object", "chat.completion")
                    .put("model", "gpt-4o-mini");
            ObjectNode choice = o.putArray("choices").addObject().put("index", 0);
            choice.set("message", message);
            choice.put("finish_reason", message.has("tool_calls") ? "tool_calls" : "stop");
            o.putObject("usage").put("prompt_tokens", inputTokens).put("completion_tokens", 12)
                    .put("total_tokens", inputTokens + 12);
            return new MockResponse.Builder().addHeader("Content-Type", "application/json").body(o.toString()).build();
        }
    }

    /** Anthropic Messages. */
    private static final class Messages extends Emulation {
        @Override
        long count(JsonNode body) {
            return quarter(body.path("system"), body.path("messages"), body.path("tools"));
        }

        @Override
        boolean isSummary(JsonNode body) {
            JsonNode system = body.path("system");
            String text = system.isString() ? system.asString() : system.at("/0/text").asString("");
            return body.path("tools").isEmpty() && text.startsWith("You compress conversations");
        }

        @Override
        String invalid(JsonNode body) {
            if (body.path("system").isMissingNode()) {
                return "no system prompt";
            }
            JsonNode messages = body.path("messages");
            Set<String> pending = new HashSet<>();
            for (int i = 0; i < messages.size(); i++) {
                JsonNode m = messages.get(i);
                String role = m.path("role").asString("");
                String expected = i % 2 == 0 ? "user" : "assistant";
                if (!role.equals(expected)) {
                    return "message " + i + " is from " + role + ", expected " + expected + " (turns must alternate)";
                }
                boolean results = true;
                Set<String> answered = new HashSet<>();
                for (JsonNode block : m.path("content")) {
                    String type = block.path("type").asString("");
                    if (type.equals("tool_result")) {
                        if (!results || !role.equals("user")) {
                            return "message " + i + " has a tool_result after other content or from the assistant";
                        }
                        answered.add(block.path("tool_use_id").asString());
                    } else {
                        results = false;
                    }
                    if (type.equals("tool_use") && !role.equals("assistant")) {
                        return "message " + i + " is a user message with a tool_use";
                    }
                }
                if (!answered.equals(pending)) {
                    return "message " + i + " answers " + answered + " but the calls before were " + pending;
                }
                pending.clear();
                for (JsonNode block : m.path("content")) {
                    if (block.path("type").asString("").equals("tool_use")) {
                        pending.add(block.path("id").asString());
                    }
                }
            }
            if (!pending.isEmpty()) {
                return "the calls " + pending + " have no results";
            }
            return messages.size() % 2 == 1 ? null : "the last message is not from the user";
        }

        @Override
        ObjectNode text(String text) {
            ObjectNode m = JSON.createObjectNode();
            m.putArray("content").addObject().put("type", "text").put("text", text);
            return m;
        }

        @Override
        ObjectNode toolCall(String id, String name, String arguments) {
            ObjectNode m = JSON.createObjectNode();
            m.putArray("content").addObject().put("type", "tool_use").put("id", id).put("name", name)
                    .set("input", JSON.readTree(arguments));
            return m;
        }

        @Override
        MockResponse reply(ObjectNode message, long inputTokens) {
            boolean tool = message.at("/content/0/type").asString("").equals("tool_use");
            ObjectNode o = JSON.createObjectNode().put("id", "msg_x").put("type", "message").put("role", "assistant")
                    .put("model", "claude-sonnet-4-5");
            o.set("content", message.get("content"));
            o.put("stop_reason", tool ? "tool_use" : "end_turn");
            o.putObject("usage").put("input_tokens", inputTokens).put("output_tokens", 12);
            return new MockResponse.Builder().addHeader("Content-Type", "application/json").body(o.toString()).build();
        }
    }

    private void runAgainst(Emulation emulation, Map<String, String> env) {
        server.setDispatcher(emulation);

        Runs.Result r = Runs.run(env, "long-run");

        assertThat(r.exit()).as("exit code; stderr: %s; out: %s", r.err(), r.out()).isZero();
        assertThat(emulation.problems).isEmpty();
        assertThat(emulation.tokens).hasSize(CALLS + 1);
        assertThat(emulation.summaries).isPositive();
        assertThat(emulation.tokens).allSatisfy(t -> assertThat(t).isLessThan(LongRunExample.WINDOW));
        assertThat(r.lines()).contains("All records read.");
        assertThat(r.lines()).anyMatch(l -> l.matches("\\[iteration \\d+: compacted \\d+ messages, \\d+ -> \\d+ tokens]"));
    }

    /** The first request after the first compaction: its messages from the summary on. */
    private static JsonNode afterFirstCut(Emulation emulation, String pointer) {
        for (JsonNode body : emulation.bodies) {
            if (body.at(pointer).toString().contains("Summary of the conversation so far")) {
                return body.get("messages");
            }
        }
        throw new AssertionError("no request holds a summary");
    }

    @Test
    void chatCompletionsGetsOnlyValidRequestsAllUnderTheWindow() {
        ChatCompletions emulation = new ChatCompletions();
        runAgainst(emulation, Map.of("OPENAI_API_KEY", "sk-test", "OPENAI_BASE_URL", server.url("/v1").toString()));

        JsonNode messages = afterFirstCut(emulation, "/messages/1");
        assertThat(messages.get(1)).isEqualTo(JSON.readTree("{\"role\":\"user\",\"content\":"
                + JSON.writeValueAsString("Summary of the conversation so far (earlier messages were compacted):\n\n"
                        + emulation.written.getFirst()) + "}"));
        assertThat(messages.get(2).path("role").asString()).isEqualTo("assistant");
        assertThat(messages.get(3).path("role").asString()).isEqualTo("tool");
        assertThat(messages.get(3).path("tool_call_id")).isEqualTo(messages.get(2).at("/tool_calls/0/id"));
    }

    @Test
    void anthropicMessagesGetsOnlyValidRequestsAllUnderTheWindow() {
        Messages emulation = new Messages();
        runAgainst(emulation, Map.of("ANTHROPIC_API_KEY", "sk-ant-test", "ANTHROPIC_BASE_URL", server.url("/").toString()));

        JsonNode messages = afterFirstCut(emulation, "/messages/0");
        assertThat(messages.get(0).path("role").asString()).isEqualTo("user");
        assertThat(messages.get(0).at("/content/0")).isEqualTo(JSON.readTree("{\"type\":\"text\",\"text\":"
                + JSON.writeValueAsString("Summary of the conversation so far (earlier messages were compacted):\n\n"
                        + emulation.written.getFirst()) + "}"));
        assertThat(messages.get(1).at("/content/0/type").asString()).isEqualTo("tool_use");
        assertThat(messages.get(2).at("/content/0/tool_use_id")).isEqualTo(messages.get(1).at("/content/0/id"));
    }
}
