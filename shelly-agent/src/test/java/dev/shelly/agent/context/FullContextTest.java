package dev.shelly.agent.context;

import static dev.shelly.agent.context.ContextPolicyTest.fetch;
import static dev.shelly.agent.context.ContextPolicyTest.fetching;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.agent.Agent;
import dev.shelly.agent.AgentEvent;
import dev.shelly.chats.Message;
import dev.shelly.chats.Part;
import dev.shelly.chats.Text;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.ModelException.Kind;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.ModelResponse;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** An agent whose model refuses, as llama.cpp's server does, every request longer than its context. */
class FullContextTest {
    /**
     * The model behind a server with a context of {@code window} tokens (a quarter of the
     * characters of the messages): a longer request is refused as llama.cpp's server refuses it,
     * as the providers report it.
     */
    private record Refusing(Completer model, long window, List<Long> refused) implements Completer {
        Refusing(Completer model, long window) {
            this(model, window, new CopyOnWriteArrayList<>());
        }

        @Override
        public ModelResponse complete(ModelRequest request) {
            long tokens = size(request);
            if (tokens > window) {
                refused.add(tokens);
                throw ModelException.builder(Kind.CONTEXT_LENGTH_EXCEEDED).provider("llama").status(400).model("qwen3")
                        .requestTokens(tokens).contextWindow(window).providerMessage("request (" + tokens + " tokens) "
                                + "exceeds the available context size (" + window + " tokens), try increasing it")
                        .build();
            }
            return model.complete(request);
        }

        static long size(ModelRequest request) {
            long chars = 0;
            for (Message m : request.messages()) {
                for (Part p : m.parts()) {
                    chars += switch (p) {
                        case Text t -> t.text().length();
                        case ToolCall c -> c.name().length() + c.arguments().length();
                        case ToolResult r -> r.text().length();
                        default -> 0;
                    };
                }
            }
            return chars / 4;
        }
    }

    @Test
    void aRefusedRequestIsCompactedOnceAndTriedAgainAndTheWindowTheServerNamedIsKept() {
        Model model = fetching(8);
        Refusing server = new Refusing(model, 500);
        List<AgentEvent> events = new CopyOnWriteArrayList<>();
        Agent agent = Agent.builder("reader").completer(server).toolboxes(fetch(400)).maxIterations(30)
                .listener(events::add)
                .contextPolicy(ContextPolicy.builder().strategies(ContextStrategy.compaction()).build()).build();

        Message reply = agent.run("read the pages");

        assertThat(reply.text()).isEqualTo("done");
        // Refused once; every later call was compacted in time, at 80% of the window the server named.
        assertThat(server.refused()).hasSize(1);
        assertThat(model.summaries).isNotEmpty();
        List<AgentEvent> afterRefusal = events.subList(indexOfCompaction(events), events.size());
        assertThat(afterRefusal.getFirst()).isInstanceOfSatisfying(AgentEvent.ContextCompacted.class,
                c -> assertThat(c.strategy()).isEqualTo("compaction"));
        assertThat(afterRefusal.get(1)).isInstanceOfSatisfying(AgentEvent.ContextMeasured.class,
                m -> assertThat(m.window()).isEqualTo(500));
        assertThat(afterRefusal.get(2)).isInstanceOf(AgentEvent.CompletionStarted.class);
        assertThat(model.calls).allSatisfy(r -> assertThat(Refusing.size(r)).isLessThanOrEqualTo(500));
    }

    private static int indexOfCompaction(List<AgentEvent> events) {
        for (int i = 0; i < events.size(); i++) {
            if (events.get(i) instanceof AgentEvent.ContextCompacted) {
                return i;
            }
        }
        throw new AssertionError("no compaction in " + events);
    }

    @Test
    void trimmingCutsTheNewestResultsTooWhenTheRequestWasRefused() {
        Model model = fetching(1);
        Refusing server = new Refusing(model, 200);
        Agent agent = Agent.builder("reader").completer(server).toolboxes(fetch(1_000))
                .contextPolicy(ContextPolicy.builder().strategies(ContextStrategy.trimToolResults(2, 200)).build()).build();

        assertThat(agent.run("read the pages").text()).isEqualTo("done");

        assertThat(server.refused()).hasSize(1);
        List<Message> retried = model.calls.get(1).messages();
        assertThat(retried.getLast().toolResults().getFirst().text())
                .isEqualTo(ToolResultTrimming.cut("page 1: " + "x".repeat(992), 200));
        assertThat(agent.chat().messages().getLast().text()).isEqualTo("done");
    }

    /** What the refusal of the first request over the window says, before any advice. */
    private static String refusal(Refusing server) {
        long size = server.refused().getFirst();
        return "llama: context length exceeded (HTTP 400): the request (" + size + " tokens) does not fit the context "
                + "window of model qwen3 (" + server.window() + " tokens): request (" + size + " tokens) exceeds the "
                + "available context size (" + server.window() + " tokens), try increasing it; ";
    }

    @Test
    void withoutAPolicyTheErrorSaysHowToAddOne() {
        Refusing server = new Refusing(fetching(3), 100);
        Agent agent = Agent.builder("reader").completer(server).toolboxes(fetch(1_000)).build();

        assertThatThrownBy(() -> agent.run("read the pages")).isInstanceOfSatisfying(ModelException.class, e -> {
            assertThat(e.kind()).isEqualTo(Kind.CONTEXT_LENGTH_EXCEEDED);
            assertThat(e.getMessage()).isEqualTo(refusal(server) + "agent 'reader' has no context policy to make room; "
                    + "give it one that compacts, ContextPolicy.builder().strategies(ContextStrategy.compaction()).build() "
                    + "(config: context: {compaction: {}}), and it compacts and tries again");
        });
        assertThat(server.refused()).hasSize(1);
    }

    @Test
    void aPolicyThatMakesNoRoomSaysSoWithoutTryingAgain() {
        Refusing server = new Refusing(fetching(3), 100);
        Agent agent = Agent.builder("reader").completer(server).toolboxes(fetch(1_000))
                .contextPolicy(ContextPolicy.builder().strategies(ContextStrategy.loopDetection(3)).build()).build();

        assertThatThrownBy(() -> agent.run("read the pages")).isInstanceOfSatisfying(ModelException.class,
                e -> assertThat(e.getMessage()).isEqualTo(refusal(server) + "the context policy of agent 'reader' "
                        + "(loop_detection) made no room for the request to fit; add ContextStrategy.compaction (config: compaction) "
                        + "or ContextStrategy.trimToolResults (config: trim_tool_results) to its policy, or shorten the input"));
        assertThat(server.refused()).hasSize(1);
    }

    @Test
    void aRequestRefusedAgainAfterMakingRoomEndsTheRunSayingWhatToChange() {
        Refusing server = new Refusing(fetching(3), 100);
        Agent agent = Agent.builder("reader").completer(server).toolboxes(fetch(1_000))
                .contextPolicy(ContextPolicy.builder().strategies(ContextStrategy.trimToolResults(2, 400)).build()).build();

        assertThatThrownBy(() -> agent.run("read the pages")).isInstanceOfSatisfying(ModelException.class, e -> {
            long second = server.refused().get(1);
            assertThat(e.requestTokens()).hasValue(second);
            assertThat(e.getMessage()).endsWith("(100 tokens), try increasing it; agent 'reader' made room once with "
                    + "its context policy (trim_tool_results) and the request still does not fit; lower the compaction's "
                    + "keep_recent or threshold, trim tool results, or shorten the input");
        });
        assertThat(server.refused()).hasSize(2);
        assertThat(server.refused().get(1)).isLessThan(server.refused().getFirst());
    }
}
