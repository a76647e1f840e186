package dev.shelly.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.agent.RunInterceptor.ToolInvocation;
import dev.shelly.chats.Message;
import dev.shelly.chats.Part;
import dev.shelly.chats.Role;
import dev.shelly.chats.Text;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolOutput;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every tool call's idempotency key, as its handler and the chain's links read it, and the run
 * ids a scope may give its runs (how a turn taken up after a crash keeps its keys).
 */
@Timeout(30)
class IdempotencyKeyTest {
    private final Map<String, String> keys = new ConcurrentHashMap<>();
    private final List<String> seen = Collections.synchronizedList(new ArrayList<>());

    private ToolBox tools() {
        Tool pay = Tool.of("pay", "Pays", "{\"type\":\"object\"}", (input, ctx) -> {
            keys.put(ctx.agent() + " pay", ctx.idempotencyKey());
            return ToolOutput.text("paid");
        });
        Tool look = Tool.of("look", "Looks", "{\"type\":\"object\"}", (input, ctx) -> {
            keys.put(ctx.agent() + " look", ctx.idempotencyKey());
            return ToolOutput.text("saw");
        }).idempotent(true);
        return ToolBox.of(pay, look);
    }

    /** The lead looks and pays, then delegates to the helper, which pays; each then answers. */
    private static Completer model(String agent) {
        return request -> {
            Message last = request.messages().getLast();
            List<Part> parts = new ArrayList<>();
            long replies = request.messages().stream().filter(m -> m.role() == Role.ASSISTANT).count();
            if (agent.equals("lead") && replies == 0) {
                parts.add(new ToolCall("c1", "look", "{}"));
                parts.add(new ToolCall("c2", "pay", "{}"));
            } else if (agent.equals("lead") && replies == 1) {
                parts.add(new ToolCall("c3", "delegate", "{\"tasks\":[{\"agent\":\"helper\",\"task\":\"pay\"}]}"));
            } else if (agent.equals("helper") && last.role() == Role.USER) {
                parts.add(new ToolCall("h1", "pay", "{}"));
            } else {
                parts.add(new Text(agent + " done"));
            }
            return ModelResponse.of(new Message(agent, Role.ASSISTANT, parts));
        };
    }

    private Agent lead() {
        Registry registry = new Registry();
        registry.register("helper", "Helps", () -> Agent.builder("helper").description("Helps")
                .completer(model("helper")).toolboxes(tools()).build());
        return Agent.builder("lead").description("Leads").completer(model("lead")).toolboxes(tools())
                .registry(registry).build();
    }

    private final RunInterceptor watch = new RunInterceptor() {
        @Override
        public ToolDecision decideToolCall(DecisionChain chain) {
            ToolInvocation i = chain.invocation();
            seen.add("decide " + i.call().name() + " " + i.idempotencyKey() + " " + i.idempotent());
            return chain.proceed(i.call());
        }

        @Override
        public ToolResult interceptToolCall(ToolChain chain) {
            ToolInvocation i = chain.invocation();
            seen.add("run " + i.call().name() + " " + i.idempotencyKey() + " " + i.idempotent());
            return chain.proceed(i.call());
        }
    };

    @Test
    void aRunOutsideASessionGivesEachCallItsRunAndCallIdsAndTheLinksSeeTheSameKey() {
        RunContext scope = RunContext.builder().interceptors(watch).build();
        assertThat(lead().run("go", scope).text()).isEqualTo("lead done");
        String leadKey = keys.get("lead pay");
        assertThat(leadKey).matches("run_[0-9a-v]{13}_[0-9a-v]+/c2");
        String leadRun = leadKey.substring(0, leadKey.length() - 3);
        assertThat(keys.get("lead look")).isEqualTo(leadRun + "/c1");
        assertThat(keys.get("helper pay")).matches("run_[0-9a-v]{13}_[0-9a-v]+/h1").doesNotStartWith(leadRun + "/");
        assertThat(seen).contains("decide look " + leadRun + "/c1 true", "run look " + leadRun + "/c1 true",
                "decide pay " + leadKey + " false", "run pay " + leadKey + " false",
                "run delegate " + leadRun + "/c3 false", "run pay " + keys.get("helper pay") + " false");
    }

    @Test
    void aScopeNamesItsRunsAndASessionsKeysStartWithIt() {
        List<String> asked = Collections.synchronizedList(new ArrayList<>());
        RunContext scope = RunContext.builder().sessionId("s-9").interceptors(watch).runIds((parent, path, agent) -> {
            asked.add(parent + " " + path + " " + agent);
            return path.isEmpty() ? "top" : parent + "." + agent;
        }).build();
        lead().run("go", scope);
        assertThat(asked).containsExactly("null  lead", "top c3/0 helper");
        assertThat(keys).containsEntry("lead look", "s-9/top/c1").containsEntry("lead pay", "s-9/top/c2")
                .containsEntry("helper pay", "s-9/top.helper/h1");
        assertThat(seen).contains("run pay s-9/top.helper/h1 false");
    }

    @Test
    void aRunTheNamingLeavesOutGetsAFreshIdAndNullIsRefused() {
        RunContext scope = RunContext.builder().runIds((parent, path, agent) -> null).build();
        lead().run("go", scope);
        assertThat(keys.get("lead pay")).matches("run_[0-9a-v]{13}_[0-9a-v]+/c2");
        assertThatThrownBy(() -> RunContext.builder().runIds(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("RunContext runIds must not be null");
    }
}
