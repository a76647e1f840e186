package dev.shelly.console;

import dev.shelly.agent.ToolPolicy;
import dev.shelly.chats.Message;
import dev.shelly.chats.Part;
import dev.shelly.chats.Role;
import dev.shelly.chats.Text;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import dev.shelly.engine.Engine;
import dev.shelly.engine.Session;
import dev.shelly.engine.Turn;
import dev.shelly.engine.config.AgentConfig;
import dev.shelly.engine.config.EngineConfig;
import dev.shelly.engine.config.ProviderConfig;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.Usage;
import dev.shelly.testing.ScriptedCompleter;
import dev.shelly.testing.Step;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolOutput;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;

/**
 * A small team for the console's tests, on a scripted model: a lead delegates to a researcher
 * and a writer at once; the researcher fetches a page whose text is hostile HTML; the writer's
 * {@code publish}, with hostile arguments, waits for approval.
 */
final class Team implements AutoCloseable {
    static final String HOSTILE_RESULT = "<script>alert('result');window.__pwned='result'</script>"
            + "<img src=x onerror=\"window.__pwned='img'\"><a href=\"javascript:window.__pwned='link'\">click me</a>";
    static final String HOSTILE_ARGS = "{\"title\":\"<script>window.__pwned='args'</script>\","
            + "\"link\":\"javascript:window.__pwned='arglink'\",\"body\":\"<img src=x onerror=window.__pwned='argimg'>\"}";
    static final String MODEL = "claude-haiku-4-5";

    final Engine engine;
    final ScriptedCompleter model;

    Team() {
        Step step = Step.answer(Team::reply).withUsage(Usage.of(1200, 300)).withModel(MODEL);
        this.model = ScriptedCompleter.perChat(step, step, step, step);
        EngineConfig config = EngineConfig.builder()
                .provider(ProviderConfig.builder("m", "openai", MODEL).apiKey("not-a-real-key").build())
                .agent(AgentConfig.builder("lead").description("Leads the team").instructions("You are lead.").build())
                .agent(AgentConfig.builder("researcher").description("Finds things").instructions("You are researcher.")
                        .toolboxes("web").build())
                .agent(AgentConfig.builder("writer").description("Writes and publishes").instructions("You are writer.")
                        .toolboxes("web").build())
                .agent(AgentConfig.builder("sleeper").description("Waits").instructions("You are sleeper.")
                        .toolboxes("web").build())
                .agent(AgentConfig.builder("asker").description("Asks").instructions("You are asker.").build())
                .entryAgent("lead")
                .build();
        this.engine = Engine.builder().config(config).completer("m", model).toolbox("web", tools())
                .toolPolicy("writer", ToolPolicy.builder().allow("fetch_page").ask("publish").build())
                .toolPolicy("sleeper", ToolPolicy.builder().allow("wait_forever").build())
                .askUser("asker")
                .build();
    }

    /** Opens a session and sends the first message; the turn pauses for the writer's publish. */
    Started start() {
        Session session = engine.newSession();
        Future<Turn> turn = session.submit("Research the topic and publish a post.");
        return new Started(session, turn);
    }

    record Started(Session session, Future<Turn> turn) {}

    private static ToolBox tools() {
        return ToolBox.of(
                Tool.of("fetch_page", "Fetches a page", "{\"type\":\"object\"}", (input, ctx) -> ToolOutput.text(HOSTILE_RESULT)),
                Tool.of("publish", "Publishes a post", "{\"type\":\"object\"}",
                        (input, ctx) -> ToolOutput.text("published: " + input.path("title").asString(""))),
                Tool.of("wait_forever", "Waits until cancelled", "{\"type\":\"object\"}", (input, ctx) -> {
                    new java.util.concurrent.CountDownLatch(1).await();
                    return ToolOutput.text("never");
                }));
    }

    /** Each agent: its first move on the user's (or the delegated task's) message, a reply after results. */
    private static Message reply(ModelRequest request) {
        List<Message> messages = request.messages();
        String system = messages.getFirst().text();
        Message last = messages.getLast();
        List<Part> parts = new ArrayList<>();
        if (last.role() == Role.USER) {
            if (system.contains("You are lead.")) {
                parts.add(new ToolCall("d1", "delegate", "{\"tasks\":[{\"agent\":\"researcher\",\"task\":\"find sources\"},"
                        + "{\"agent\":\"writer\",\"task\":\"publish the post\"}]}"));
            } else if (system.contains("You are asker.")) {
                parts.add(new ToolCall("q1", "ask_user", "{\"question\":\"Which <b>colour</b>?\"}"));
            } else if (system.contains("You are sleeper.")) {
                parts.add(new ToolCall("w1", "wait_forever", "{}"));
            } else if (system.contains("You are researcher.")) {
                parts.add(new ToolCall("f1", "fetch_page", "{\"url\":\"javascript:window.__pwned='url'\"}"));
            } else {
                parts.add(new ToolCall("p1", "publish", HOSTILE_ARGS));
            }
        } else {
            List<String> results = new ArrayList<>();
            for (ToolResult r : last.toolResults()) {
                results.add(r.text().length() > 60 ? r.text().substring(0, 60) : r.text());
            }
            if (system.contains("You are asker.")) {
                parts.add(new Text("asker heard: " + results.getFirst()));
            } else {
                String who = system.contains("You are lead.") ? "lead" : system.contains("You are researcher.")
                        ? "researcher" : "writer";
                parts.add(new Text(who + " finished after " + results.size() + " results"));
            }
        }
        return new Message("model", Role.ASSISTANT, parts);
    }

    @Override
    public void close() {
        engine.close();
    }
}
