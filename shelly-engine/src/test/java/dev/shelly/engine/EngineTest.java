package dev.shelly.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.agent.AgentEvent;
import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.chats.ToolResult;
import dev.shelly.engine.config.AgentConfig;
import dev.shelly.engine.config.ConfigException;
import dev.shelly.engine.config.EngineConfig;
import dev.shelly.engine.config.ProviderConfig;
import dev.shelly.storage.SessionNotFoundException;
import dev.shelly.testing.ScriptedCompleter;
import dev.shelly.testing.Step;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolOutput;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EngineTest {

    private static EngineConfig twoAgents() {
        return EngineConfig.builder()
                .provider(ProviderConfig.builder("lead-model", "openai", "gpt-test").apiKey("k").build())
                .provider(ProviderConfig.builder("worker-model", "openai", "gpt-test").apiKey("k").build())
                .agent(AgentConfig.builder("lead").description("Leads").instructions("Delegate research.")
                        .provider("lead-model").toolboxes("state").build())
                .agent(AgentConfig.builder("researcher").description("Finds facts").provider("worker-model").build())
                .entryAgent("lead")
                .build();
    }

    @Test
    void anEngineFromCodeRunsDelegationAndPublishesEvents(@TempDir Path tmp) throws Exception {
        ScriptedCompleter lead = ScriptedCompleter.of(
                Step.delegate("researcher", "find the boiling point of water", "the user cooks"),
                Step.toolCall("shared_state_set", "{\"key\":\"answer\",\"value\":100}"),
                Step.reply(chat -> "Done: " + chat.last().orElseThrow().toolResults().getFirst().text()));
        ScriptedCompleter worker = ScriptedCompleter.perChat(Step.reply("100 C at sea level"));
        List<AgentEvent> events = new CopyOnWriteArrayList<>();
        try (Engine engine = Engine.builder().config(twoAgents())
                .completer("lead-model", lead).completer("worker-model", worker)
                .sessionsDir(tmp.resolve("sessions"))
                .build()) {
            engine.events().subscribe(events::add);
            assertThat(engine.registry().list()).extracting(r -> r.name()).containsExactly("lead", "researcher");
            Session session = engine.newSession();
            Message answer = session.send("How hot does water boil?").reply();
            assertThat(answer.text()).isEqualTo("Done: ok");
            assertThat(answer.sender()).isEqualTo("lead");
            assertThat(engine.store().get("answer")).map(Object::toString).contains("100");

            Message delegated = session.chat().get(3);
            ToolResult result = session.chat().get(3).toolResults().getFirst();
            assertThat(delegated.role()).isEqualTo(Role.TOOL);
            assertThat(result.text()).isEqualTo("[{\"agent\":\"researcher\",\"result\":\"100 C at sea level\"}]");
            // Delegation is on by default in config too: the lead delegates, the researcher (at the
            // default depth limit of 1) is neither offered delegation nor told about the lead.
            assertThat(worker.requests().getFirst().systemPrompt()).hasValue("You are researcher. Finds facts");
            assertThat(worker.requests().getFirst().toolNames()).isEmpty();
            assertThat(lead.requests().getFirst().systemPrompt()).hasValue("You are lead. Leads\n\n## Instructions\n\n"
                    + "Delegate research.\n\n## Available Agents\n\n- **researcher**: Finds facts");
            assertThat(worker.requests().getFirst().messages()).extracting(Message::text)
                    .contains("the user cooks", "find the boiling point of water");
            assertThat(lead.requests().getFirst().toolNames())
                    .containsExactly("shared_state_get", "shared_state_set", "shared_state_list", "list_agents", "delegate");
        }
        assertThat(events).anySatisfy(e -> assertThat(e).isInstanceOfSatisfying(AgentEvent.AgentStarted.class,
                s -> assertThat(s.source().agent()).isEqualTo("researcher")));
        assertThat(events).anySatisfy(e -> assertThat(e).isInstanceOf(AgentEvent.ToolCallFinished.class));
        assertThat(events.getLast()).isInstanceOfSatisfying(AgentEvent.AgentFinished.class,
                f -> assertThat(f.source().agent()).isEqualTo("lead"));
    }

    @Test
    void sessionsAreSavedAfterEachTurnAndResumeWithTheirHistory(@TempDir Path tmp) {
        EngineConfig config = EngineConfig.builder()
                .provider(ProviderConfig.builder("m", "anthropic", "claude-test").apiKey("k").build())
                .agent(AgentConfig.builder("echo").description("Echoes").build())
                .build();
        ScriptedCompleter model = ScriptedCompleter.of(
                Step.reply(chat -> "you said " + chat.last().orElseThrow().text()),
                Step.reply(chat -> "then " + chat.last().orElseThrow().text() + " after "
                        + chat.messages().size() + " messages"));
        String id;
        try (Engine engine = Engine.builder().config(config).completer("m", model).sessionsDir(tmp).build()) {
            Session session = engine.newSession();
            id = session.id();
            assertThat(id).matches("\\d{8}-\\d{6}-[a-z2-7]{26}");
            assertThat(session.send("one").text()).isEqualTo("you said one");
            assertThat(engine.savedSessions()).containsExactly(id);
        }
        try (Engine engine = Engine.builder().config(config).completer("m", model).sessionsDir(tmp).build()) {
            Session resumed = engine.resume(id);
            assertThat(resumed.chat().messages()).extracting(Message::text)
                    .containsExactly("You are echo. Echoes", "one", "you said one");
            assertThat(resumed.send("two").text()).isEqualTo("then two after 4 messages");
            assertThat(engine.resume(id).chat().size()).isEqualTo(5);
            assertThatThrownBy(() -> engine.resume("nope"))
                    .isInstanceOfSatisfying(SessionNotFoundException.class, e -> assertThat(e.id()).isEqualTo("nope"))
                    .hasMessage("no saved session 'nope'");
        }
    }

    @Test
    void turnsRunOneAtATimeInTheOrderSent(@TempDir Path tmp) throws Exception {
        EngineConfig config = EngineConfig.builder()
                .provider(ProviderConfig.builder("m", "openai", "x").apiKey("k").build())
                .agent(AgentConfig.builder("echo").build())
                .build();
        Step echo = Step.reply(chat -> "re: " + chat.last().orElseThrow().text()).after(Duration.ofMillis(20));
        ScriptedCompleter model = ScriptedCompleter.of(echo, echo, echo, echo, echo);
        try (Engine engine = Engine.builder().config(config).completer("m", model).build()) {
            Session session = engine.newSession();
            var futures = new java.util.ArrayList<java.util.concurrent.Future<Turn>>();
            for (int i = 0; i < 5; i++) {
                futures.add(session.submit("m" + i));
            }
            for (int i = 0; i < 5; i++) {
                assertThat(futures.get(i).get().text()).isEqualTo("re: m" + i);
            }
            List<String> texts = session.chat().since(1).stream().map(Message::text).toList();
            assertThat(texts).containsExactly("m0", "re: m0", "m1", "re: m1", "m2", "re: m2", "m3", "re: m3", "m4", "re: m4");
        }
    }

    @Test
    void cancellingATurnStopsItSavesTheChatAndTheSessionGoesOn(@TempDir Path tmp) throws Exception {
        EngineConfig config = EngineConfig.builder()
                .provider(ProviderConfig.builder("m", "openai", "x").apiKey("k").build())
                .agent(AgentConfig.builder("slow").build())
                .build();
        ScriptedCompleter model = ScriptedCompleter.of(Step.hang(), Step.reply("back again"));
        try (Engine engine = Engine.builder().config(config).completer("m", model).sessionsDir(tmp).build()) {
            Session session = engine.newSession();
            var turn = session.submit("think forever");
            assertThat(model.awaitCalls(1, Duration.ofSeconds(10))).isTrue();
            session.cancel();
            assertThat(turn.isCancelled()).isTrue();
            assertThat(session.send("hello?").text()).isEqualTo("back again");
            assertThat(engine.resume(session.id()).chat().messages()).extracting(Message::text)
                    .containsExactly("You are slow.", "think forever", "hello?", "back again");
        }
    }

    @Test
    void aSessionListenerHearsEveryEventOfTheTurnBeforeSendReturns() {
        ScriptedCompleter lead = ScriptedCompleter.of(Step.delegate("researcher", "look it up"), Step.reply("done"));
        ScriptedCompleter worker = ScriptedCompleter.perChat(Step.reply("found"));
        try (Engine engine = Engine.builder().config(twoAgents()).completer("lead-model", lead)
                .completer("worker-model", worker).build()) {
            List<AgentEvent> heard = new java.util.ArrayList<>();
            Session session = engine.newSession().listen(heard::add);
            session.send("go");
            assertThat(heard.getLast()).isInstanceOfSatisfying(AgentEvent.AgentFinished.class,
                    f -> assertThat(f.source().agent()).isEqualTo("lead"));
            String leadRun = heard.getLast().source().runId();
            assertThat(leadRun).startsWith("run_");
            assertThat(heard).anySatisfy(e -> assertThat(e).isInstanceOfSatisfying(AgentEvent.AgentFinished.class,
                    f -> {
                        assertThat(f.source().agent()).isEqualTo("researcher");
                        assertThat(f.source().parent()).isEqualTo("lead");
                        assertThat(f.source().depth()).isEqualTo(1);
                        assertThat(f.source().parentRunId()).as("the child names its parent run").isEqualTo(leadRun);
                    }));
            assertThat(heard).as("every event of the turn names the session")
                    .allSatisfy(e -> assertThat(e.source().sessionId()).isEqualTo(session.id()));
            assertThatThrownBy(() -> session.listen(null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("Session.listen listener must not be null");
        }
    }

    @Test
    void anAgentNameProvidersWouldRefuseFailsWhenTheEngineIsBuilt() {
        EngineConfig config = EngineConfig.builder()
                .provider(ProviderConfig.builder("m", "openai", "x").apiKey("k").build())
                .agent(AgentConfig.builder("web search").build())
                .build();
        assertThatThrownBy(() -> Engine.builder().config(config).completer("m", ScriptedCompleter.of()).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Registry.register: agent name 'web search' is invalid: use 1 to 64 letters, digits, '_' "
                        + "or '-' (providers accept only these in the tool and sender names an agent's name appears in)");
    }

    @Test
    void codeToolboxesAndToolSelection() {
        ToolBox mine = ToolBox.of(
                Tool.of("add", "Adds", "{\"type\":\"object\"}", (in, ctx) -> ToolOutput.text("3")),
                Tool.of("sub", "Subtracts", "{\"type\":\"object\"}", (in, ctx) -> ToolOutput.text("-1")));
        EngineConfig config = EngineConfig.builder()
                .provider(ProviderConfig.builder("m", "openai", "x").apiKey("k").build())
                .agent(AgentConfig.builder("calc").toolbox("math", "add").build())
                .build();
        ScriptedCompleter model = ScriptedCompleter.of(Step.reply("ok"));
        try (Engine engine = Engine.builder().config(config).completer("m", model).toolbox("math", mine).build()) {
            engine.newSession().send("1+2");
            assertThat(model.requests().getFirst().toolNames()).as("alone in its registry, the agent has no one to delegate to").containsExactly("add");
        }
        EngineConfig wrongTool = EngineConfig.builder()
                .provider(ProviderConfig.builder("m", "openai", "x").apiKey("k").build())
                .agent(AgentConfig.builder("calc").toolbox("math", "mul").build())
                .build();
        assertThatThrownBy(() -> Engine.builder().config(wrongTool).completer("m", model).toolbox("math", mine).build())
                .isInstanceOf(ConfigException.class)
                .hasMessage("agents[0].toolboxes[0].tools[0]: toolbox 'math' has no tool 'mul'; its tools: add, sub");
        EngineConfig unknownBox = EngineConfig.builder()
                .provider(ProviderConfig.builder("m", "openai", "x").apiKey("k").build())
                .agent(AgentConfig.builder("calc").toolboxes("maths").build())
                .build();
        assertThatThrownBy(() -> Engine.builder().config(unknownBox).toolbox("math", mine).build())
                .isInstanceOf(ConfigException.class)
                .hasMessage("agents[0].toolboxes[0]: unknown toolbox 'maths'; expected an MCP server name or a built-in "
                        + "toolbox: math, state, tasks");
    }

    @Test
    void aCodeToolboxCannotTakeTheNameOfABuiltInOne() {
        ToolBox mine = ToolBox.of(Tool.of("add", "Adds", "{\"type\":\"object\"}", (in, ctx) -> ToolOutput.text("3")));
        assertThatThrownBy(() -> Engine.builder().toolbox("state", mine))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Engine.Builder.toolbox name 'state' is the name of a built-in toolbox; choose another name");
        assertThatThrownBy(() -> Engine.builder().toolbox("math", null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Engine.Builder.toolbox 'math' must not be null");
    }

    @Test
    void aProviderWithoutAKeyFailsAtBuildTimeNamingTheField(@TempDir Path tmp) throws Exception {
        Path shelly = Files.createDirectories(tmp.resolve(".shelly"));
        Files.writeString(shelly.resolve("config.yaml"), """
                providers:
                  - name: claude
                    kind: anthropic
                    model: claude-test
                agents:
                  - name: a
                """);
        assertThatThrownBy(() -> Engine.builder().dir(new ShellyDir(shelly)).environment(Map.<String, String>of()::get).build())
                .isInstanceOf(ConfigException.class)
                .hasMessage(shelly.resolve("config.yaml") + ":2: providers[0].api_key: no API key; set api_key, or the "
                        + "environment variable ANTHROPIC_API_KEY");
        assertThatThrownBy(() -> Engine.builder().config(twoAgents()).completer("nobody", ScriptedCompleter.of()).build())
                .isInstanceOf(ConfigException.class)
                .hasMessage("providers: a completer was given for provider 'nobody', which is not configured; configured "
                        + "providers: lead-model, worker-model");
    }

    @Test
    void theShellyFolderGivesConfigSkillsAndContext(@TempDir Path tmp) throws Exception {
        Path shelly = Files.createDirectories(tmp.resolve("project/.shelly"));
        Files.writeString(shelly.resolve("config.yaml"), """
                providers: [{ name: m, kind: openai, model: x, api_key: "${KEY}" }]
                agents:
                  - name: guide
                    description: Knows the project
                    instructions: Answer briefly.
                    skills: [review]
                """);
        Files.writeString(shelly.resolve("overview.md"), "A payments service.");
        Path skill = Files.createDirectories(shelly.resolve("skills/review"));
        Files.writeString(skill.resolve("SKILL.md"), "---\ndescription: How to review\n---\nRead the diff twice.\n");
        Files.createDirectories(shelly.resolve("skills/deploy"));
        Files.writeString(shelly.resolve("skills/deploy/SKILL.md"), "---\ndescription: Ship it\n---\nTag and push.\n");
        ScriptedCompleter model = ScriptedCompleter.of(Step.reply("ok"));
        try (Engine engine = Engine.builder().dir(ShellyDir.require(tmp.resolve("project"))).environment(Map.of("KEY", "k")::get)
                .completer("m", model).build()) {
            assertThat(engine.skills()).extracting(s -> s.name()).containsExactly("deploy", "review");
            engine.newSession().send("hi");
            assertThat(model.requests().getFirst().systemPrompt()).hasValue("""
                    You are guide. Knows the project

                    ## Instructions

                    Answer briefly.

                    ## Project Context

                    ### overview.md

                    A payments service.

                    ## Skills

                    Call load_skill with a skill's name to read its full procedure before you follow it.

                    ### review

                    How to review

                    ## Available Agents

                    """.strip().replace("\n\n## Available Agents", ""));
            assertThat(engine.savedSessions()).hasSize(1);
            assertThat(Files.exists(shelly.resolve("sessions"))).isTrue();
        }
    }

    @Test
    void anUnknownSkillIsCaughtAtBuildTime(@TempDir Path tmp) throws Exception {
        Path shelly = Files.createDirectories(tmp.resolve(".shelly"));
        Files.writeString(shelly.resolve("config.yaml"), """
                providers: [{ name: m, kind: openai, model: x, api_key: k }]
                agents:
                  - name: a
                    skills: [reveiw]
                """);
        assertThatThrownBy(() -> Engine.open(tmp))
                .isInstanceOf(ConfigException.class)
                .hasMessage(shelly.resolve("config.yaml") + ":4: agents[0].skills[0]: unknown skill 'reveiw'; no skills "
                        + "are loaded (put them in .shelly/skills/<name>/SKILL.md)");
    }

    @Test
    void aRedisSectionWithoutShellyRedisOnTheClassPathFailsNamingTheModule(@TempDir Path tmp) throws Exception {
        Path shelly = java.nio.file.Files.createDirectories(tmp.resolve(".shelly"));
        java.nio.file.Files.writeString(shelly.resolve("config.yaml"), """
                providers: [{ name: m, kind: openai, model: x, api_key: k }]
                agents: [{ name: a }]
                redis:
                  url: redis://localhost:1
                """);
        assertThatThrownBy(() -> Engine.builder().dir(new ShellyDir(shelly)).build())
                .isInstanceOf(dev.shelly.engine.config.ConfigException.class)
                .hasMessageEndingWith("config.yaml:4: redis: the redis section needs dev.shelly:shelly-redis on the class "
                        + "path (no dev.shelly.storage.spi.SharedBackendsProvider was found)");
    }
}
