package dev.shelly.engine;

import dev.shelly.agent.ToolPolicy;
import dev.shelly.chats.Message;
import dev.shelly.chats.Part;
import dev.shelly.chats.Role;
import dev.shelly.chats.Text;
import dev.shelly.chats.ToolCall;
import dev.shelly.engine.config.AgentConfig;
import dev.shelly.engine.config.EngineConfig;
import dev.shelly.engine.config.ProviderConfig;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.Usage;
import dev.shelly.storage.spi.SessionStore;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolOutput;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Engines for the journal and resume tests: a lead that looks something up and pays (two calls
 * at once), delegates a payment to a helper, pays again and answers {@code done}. The model is
 * stateless (its reply depends only on the request), so a turn goes on the same way in any
 * engine; every request and every effect is written to shared lists, in the order they happen.
 */
final class JournalEngines {
    /** Asks a person before every payment. */
    static final ToolPolicy ASK_PAY = ToolPolicy.builder().ask("pay").build();

    /** The model requests, as {@code agent/step}, and the tools' effects, as {@code tool arg key}. */
    final List<String> requests = Collections.synchronizedList(new ArrayList<>());
    final List<String> effects = Collections.synchronizedList(new ArrayList<>());
    /** Requests, effects and (when a test adds them) journal entries, in one order. */
    final List<String> log = Collections.synchronizedList(new ArrayList<>());

    static EngineConfig config() {
        return EngineConfig.builder()
                .provider(ProviderConfig.builder("m", "openai", "x").apiKey("k").build())
                .agent(AgentConfig.builder("lead").description("Leads").instructions("You are lead.").toolboxes("ops")
                        .build())
                .agent(AgentConfig.builder("helper").description("Helps").instructions("You are helper.")
                        .toolboxes("ops").build())
                .entryAgent("lead")
                .build();
    }

    /** The steps of the agent's turn taken so far: assistant replies since the last user text. */
    private static int step(List<Message> messages) {
        int step = 0;
        for (Message m : messages) {
            if (m.role() == Role.USER && !m.text().isEmpty()) {
                step = 0;
            } else if (m.role() == Role.ASSISTANT) {
                step++;
            }
        }
        return step;
    }

    Completer model() {
        return request -> {
            String system = request.messages().getFirst().text();
            boolean lead = system.contains("You are lead.");
            int step = step(request.messages());
            String at = (lead ? "lead/" : "helper/") + step;
            requests.add(at);
            log.add("model " + at);
            List<Part> parts = new ArrayList<>();
            if (lead) {
                switch (step) {
                    case 0 -> {
                        parts.add(new ToolCall("L1a", "look", "{\"q\":\"a\"}"));
                        parts.add(new ToolCall("L1b", "pay", "{\"amount\":1}"));
                    }
                    case 1 -> parts.add(new ToolCall("L2", "delegate",
                            "{\"tasks\":[{\"agent\":\"helper\",\"task\":\"pay 2\"}]}"));
                    case 2 -> parts.add(new ToolCall("L3", "pay", "{\"amount\":3}"));
                    default -> parts.add(new Text("done"));
                }
            } else if (step == 0) {
                parts.add(new ToolCall("H1", "pay", "{\"amount\":2}"));
            } else {
                parts.add(new Text("helper paid"));
            }
            return ModelResponse.of(new Message("model", Role.ASSISTANT, parts)).withUsage(Usage.of(10, 2));
        };
    }

    /** {@code pay} is not idempotent, {@code look} is; each call notes its effect and its key. */
    ToolBox ops() {
        Tool pay = Tool.of("pay", "Pays", "{\"type\":\"object\"}", (input, ctx) -> {
            String effect = "pay " + input.path("amount").asInt() + " " + ctx.idempotencyKey();
            effects.add(effect);
            log.add("effect " + effect);
            return ToolOutput.text("paid " + input.path("amount").asInt());
        });
        Tool look = Tool.of("look", "Looks", "{\"type\":\"object\"}", (input, ctx) -> {
            String effect = "look " + input.path("q").asString() + " " + ctx.idempotencyKey();
            effects.add(effect);
            log.add("effect " + effect);
            return ToolOutput.text("saw " + input.path("q").asString());
        }).idempotent(true);
        return ToolBox.of(pay, look);
    }

    /** The effects of a tool with an argument, e.g. {@code pay 2}. */
    List<String> effects(String toolAndArgument) {
        List<String> matching = new ArrayList<>();
        synchronized (effects) {
            for (String e : effects) {
                if (e.startsWith(toolAndArgument + " ")) {
                    matching.add(e);
                }
            }
        }
        return matching;
    }

    Engine.Builder builder(SessionStore store) {
        return Engine.builder().config(config()).completer("m", model()).sessionStore(store).toolbox("ops", ops())
                .sessionWait(Duration.ofSeconds(30));
    }
}
