package dev.shelly.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.agent.Agent;
import dev.shelly.agent.AgentEvent;
import dev.shelly.agent.context.ContextPolicy;
import dev.shelly.agent.context.ContextStrategy;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.RetryPolicy;
import dev.shelly.providers.anthropic.AnthropicCompleter;
import dev.shelly.providers.openai.OpenAiCompleter;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolOutput;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import mockwebserver3.junit5.StartStop;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * An agent with a context policy against an emulation of llama.cpp's {@code llama-server} with a
 * context of 2,048 tokens, on its OpenAI-compatible and its Anthropic-compatible endpoint: a
 * request over the context is refused with the server's exact error body, and the agent compacts
 * once and goes on. The agent is given the placeholder key {@code x}.
 */
@Timeout(60)
class FullContextOverTheWireTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final int CONTEXT = 2048;
    private static final int PAGES = 6;

    @StartStop
    private final MockWebServer server = new MockWebServer();

    /**
     * The server: a request counts a quarter of its body's characters as tokens; one over the
     * context is refused; a summary request is answered with a summary; the model reads one page
     * per call, then answers.
     */
    private static final class LlamaServer extends Dispatcher {
        final boolean anthropic;
        final List<Long> accepted = new CopyOnWriteArrayList<>();
        final List<Long> refused = new CopyOnWriteArrayList<>();
        final List<String> kinds = new CopyOnWriteArrayList<>();
        int pages;

        LlamaServer(boolean anthropic) {
            this.anthropic = anthropic;
        }

        @Override
        public synchronized MockResponse dispatch(RecordedRequest request) {
            String text = request.getBody().utf8();
            JsonNode body = JSON.readTree(text);
            long tokens = text.length() / 4;
            if (tokens > CONTEXT) {
                refused.add(tokens);
                kinds.add("refused");
                return json(400, "{\"error\":{\"code\":400,\"message\":\"request (" + tokens + " tokens) exceeds the "
                        + "available context size (" + CONTEXT + " tokens), try increasing it\",\"type\":"
                        + "\"exceed_context_size_error\",\"n_prompt_tokens\":" + tokens + ",\"n_ctx\":" + CONTEXT + "}}");
            }
            accepted.add(tokens);
            if (body.path("tools").isEmpty()) {
                kinds.add("summary");
                return reply(tokens, null, "Pages 1 to " + pages + " were read; each holds x characters.");
            }
            kinds.add("call");
            return pages < PAGES ? reply(tokens, "{\"page\":" + ++pages + "}", null) : reply(tokens, null, "done");
        }

        private MockResponse reply(long tokens, String pageArguments, String text) {
            ObjectNode o = JSON.createObjectNode();
            if (anthropic) {
                o.put("id", "msg_" + tokens).put("type", "message").put("role", "assistant").put("model", "qwen3");
                ObjectNode block = o.putArray("content").addObject();
                if (pageArguments != null) {
                    block.put("type", "tool_use").put("id", "call_" + pages).put("name", "fetch")
                            .set("input", JSON.readTree(pageArguments));
                } else {
                    block.put("type", "text").put("text", text);
                }
                o.put("stop_reason", pageArguments != null ? "tool_use" : "end_turn");
                o.putObject("usage").put("input_tokens", tokens).put("output_tokens", 10);
            } else {
                o.put("id", "chatcmpl-" + tokens).put("object", "chat.completion").put("model", "qwen3");
                ObjectNode choice = o.putArray("choices").addObject().put("index", 0);
                ObjectNode message = choice.putObject("message").put("role", "assistant");
                if (pageArguments != null) {
                    message.putNull("content");
                    message.putArray("tool_calls").addObject().put("id", "call_" + pages).put("type", "function")
                            .putObject("function").put("name", "fetch").put("arguments", pageArguments);
                } else {
                    message.put("content", text);
                }
                choice.put("finish_reason", pageArguments != null ? "tool_calls" : "stop");
                o.putObject("usage").put("prompt_tokens", tokens).put("completion_tokens", 10)
                        .put("total_tokens", tokens + 10);
            }
            return json(200, o.toString());
        }

        private static MockResponse json(int code, String body) {
            return new MockResponse.Builder().code(code).addHeader("Content-Type", "application/json").body(body).build();
        }
    }

    private Completer completer(boolean anthropic) {
        return anthropic
                ? AnthropicCompleter.builder().baseUrl(server.url("/").toString()).apiKey("x").model("qwen3")
                        .environment(name -> null).retry(RetryPolicy.none()).build()
                : OpenAiCompleter.compatible().name("llama").baseUrl(server.url("/v1").toString()).apiKey("x")
                        .model("qwen3").environment(name -> null).retry(RetryPolicy.none()).build();
    }

    @ParameterizedTest(name = "anthropic endpoint: {0}")
    @ValueSource(booleans = {false, true})
    void aRequestOverTheContextIsCompactedOnceAndTheRunGoesOn(boolean anthropic) {
        LlamaServer llama = new LlamaServer(anthropic);
        server.setDispatcher(llama);
        ToolBox fetch = ToolBox.of(Tool.of("fetch", "Fetch a page of the report",
                "{\"type\":\"object\",\"properties\":{\"page\":{\"type\":\"integer\"}}}",
                (input, ctx) -> ToolOutput.text("page " + input.path("page").asInt() + ": " + "x".repeat(2_400))));
        List<AgentEvent> events = new ArrayList<>();
        Agent agent = Agent.builder("reader").completer(completer(anthropic)).toolboxes(fetch).maxIterations(20)
                .listener(events::add)
                .contextPolicy(ContextPolicy.builder().strategies(ContextStrategy.compaction()).build()).build();

        String answer = agent.run("Read the report's pages one by one, then say done.").text();

        assertThat(answer).isEqualTo("done");
        assertThat(llama.refused).as("requests refused").hasSize(1);
        // The refused request was summarised and sent again, smaller; later ones were compacted in time.
        int refusal = llama.kinds.indexOf("refused");
        assertThat(llama.kinds.subList(refusal, refusal + 3)).containsExactly("refused", "summary", "call");
        assertThat(llama.accepted).allSatisfy(t -> assertThat(t).isLessThanOrEqualTo(CONTEXT));
        assertThat(events).filteredOn(AgentEvent.ContextMeasured.class::isInstance)
                .map(e -> ((AgentEvent.ContextMeasured) e).window()).last().isEqualTo(CONTEXT);
        assertThat(llama.pages).isEqualTo(PAGES);
    }
}
