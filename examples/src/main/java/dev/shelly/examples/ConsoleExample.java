package dev.shelly.examples;

import dev.shelly.agent.PendingCall;
import dev.shelly.agent.ToolPolicy;
import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.console.Console;
import dev.shelly.engine.Engine;
import dev.shelly.engine.Session;
import dev.shelly.engine.Turn;
import dev.shelly.engine.config.AgentConfig;
import dev.shelly.engine.config.EngineConfig;
import dev.shelly.engine.config.ProviderConfig;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.Usage;
import dev.shelly.testing.Step;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolOutput;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * A small team watched and steered in a browser: a lead delegates to a researcher and a writer
 * at once; the researcher searches an archive, the writer's {@code publish_post} waits for a
 * person's approval. The example starts the {@link Console}, prints its link (with the token in
 * the fragment) on a line of its own, sends the task, and waits until it is interrupted (Ctrl-C):
 * open the link, watch the run tree, tokens and cost, and approve or deny the post there; the
 * turn then finishes in the page and here.
 *
 * <p>Offline, a scripted model plays the three agents; with a provider key set, that provider
 * does.
 */
public final class ConsoleExample implements Example {
    /** The port the console tries first; a free one when it is taken. */
    static final int PORT = 7070;

    @Override
    public String name() {
        return "console";
    }

    @Override
    public String description() {
        return "a team's run tree, cost and approvals in a browser console; approve the post there";
    }

    @Override
    public String defaultPrompt() {
        return "Research the history of the old harbour and publish a short post about it.";
    }

    @Override
    public Message run(ExampleRun run) throws Exception {
        try (Engine engine = engine(run); Console console = start(engine);
                Session session = engine.newSession().listen(run.listener())) {
            run.note("[console: open this link in a browser (it carries the console's token; keep it to yourself)]");
            run.note(console.link());
            Turn turn = session.send(run.prompt());
            run.view().finish();
            for (PendingCall p : turn.pending()) {
                run.note("[waiting in the console: " + p.agent() + " wants to run " + p.call().name() + " "
                        + p.call().arguments() + "]");
            }
            Message last = turn.reply();
            boolean waiting = turn.paused();
            try {
                while (true) {
                    if (waiting && finished(session)) {
                        last = session.chat().last().orElseThrow();
                        run.note("[the turn finished: " + ConsoleView.oneLine(last.text()) + "]");
                        waiting = false;
                    }
                    Thread.sleep(200);
                }
            } catch (InterruptedException e) {
                run.note("[interrupted: the console stops]");
                return last;
            }
        }
    }

    /** The entry agent has answered: nothing waits, and the chat ends with its reply. */
    private static boolean finished(Session session) {
        if (session.paused()) {
            return false;
        }
        Message last = session.chat().last().orElse(null);
        return last != null && last.role() == Role.ASSISTANT && !last.hasToolCalls();
    }

    private static Console start(Engine engine) {
        try {
            return Console.start(engine, Console.Options.builder().port(PORT).announce(null).build());
        } catch (UncheckedIOException e) {
            return Console.start(engine, Console.Options.builder().port(0).announce(null).build());
        }
    }

    /** The team: three agents, each on its own model (the same provider when a key is set). */
    static Engine engine(ExampleRun run) {
        ExampleModels models = run.models();
        String kind = models.scripted() ? "openai-compatible" : models.provider().kind();
        EngineConfig config = EngineConfig.builder()
                .provider(ProviderConfig.builder("lead-model", kind, models.model()).build())
                .provider(ProviderConfig.builder("researcher-model", kind, models.model()).build())
                .provider(ProviderConfig.builder("writer-model", kind, models.model()).build())
                .agent(AgentConfig.builder("lead").description("Leads the team").provider("lead-model")
                        .instructions("You lead a researcher and a writer. Delegate the research to the researcher "
                                + "and the post to the writer in one delegate call, then report briefly.").build())
                .agent(AgentConfig.builder("researcher").description("Finds facts in the town archive")
                        .provider("researcher-model").toolbox("newsroom", "search_archive")
                        .instructions("Search the archive with search_archive and report three facts.").build())
                .agent(AgentConfig.builder("writer").description("Writes and publishes short posts")
                        .provider("writer-model").toolbox("newsroom", "publish_post")
                        .instructions("Write a short post and publish it with publish_post, then confirm.").build())
                .entryAgent("lead")
                .build();
        return Engine.builder().config(config)
                .completer("lead-model", run.model(leadScript()))
                .completer("researcher-model", run.model(researcherScript()))
                .completer("writer-model", run.model(writerScript()))
                .toolbox("newsroom", newsroom())
                .toolPolicy("writer", ToolPolicy.builder().ask("publish_post").build())
                .build();
    }

    static ToolBox newsroom() {
        return ToolBox.of(
                Tool.of("search_archive", "Searches the town archive", """
                        {"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}""",
                        (input, ctx) -> ToolOutput.text("1871: the stone pier is built. 1902: the lighthouse is lit. "
                                + "1968: the last ferry leaves for the island.")),
                Tool.of("publish_post", "Publishes a post on the town's site", """
                        {"type":"object","properties":{"title":{"type":"string"},"body":{"type":"string"}},\
                        "required":["title","body"]}""",
                        (input, ctx) -> ToolOutput.text("published: " + input.path("title").asString(""))));
    }

    private static final Usage USAGE = Usage.of(820, 140);

    static List<Step> leadScript() {
        return List.of(
                Step.delegate(new Step.Task("researcher", "Find three facts about the old harbour", null),
                        new Step.Task("writer", "Publish a short post about the old harbour's history", null))
                        .withUsage(USAGE),
                Step.reply("The team is done: the archive is searched and the post is published.").withUsage(USAGE));
    }

    static List<Step> researcherScript() {
        return List.of(Step.toolCall("search_archive", Scripts.object("query", "old harbour history")).withUsage(USAGE),
                Step.reply(chat -> "Three facts: " + Scripts.lastResults(chat).getFirst()).withUsage(USAGE));
    }

    static List<Step> writerScript() {
        return List.of(Step.toolCall("publish_post", Scripts.object("title", "The old harbour",
                        "body", "From the stone pier of 1871 to the last ferry of 1968.")).withUsage(USAGE),
                Step.reply(chat -> "Posted: " + Scripts.lastResults(chat).getFirst()).withUsage(USAGE));
    }
}
