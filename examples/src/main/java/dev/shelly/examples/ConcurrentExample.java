package dev.shelly.examples;

import dev.shelly.agent.Agent;
import dev.shelly.agent.AgentEvent;
import dev.shelly.agent.AgentListener;
import dev.shelly.agent.Registry;
import dev.shelly.chats.Message;
import dev.shelly.testing.Step;
import dev.shelly.tools.Description;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolOutput;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Concurrent work with {@code delegate} (section 14.4): one call with several tasks runs a fresh
 * agent per task, each on its own virtual thread; the results come back as one JSON array in
 * task order, and the orchestrator synthesises them.
 */
public final class ConcurrentExample implements Example {
    /** How long one lookup of the demo notes takes, standing in for a slow source. */
    static final Duration LOOKUP_TIME = Duration.ofMillis(300);

    static final Map<String, String> NOTES = notes();

    /** The input of {@code regional_notes}. */
    record Region(@Description("the region, e.g. European Union") String region) {}

    @Override
    public String name() {
        return "concurrent";
    }

    @Override
    public String description() {
        return "one delegate call runs three analysts at the same time";
    }

    @Override
    public String defaultPrompt() {
        return "Compare how AI regulation is developing in the United States, the European Union and China.";
    }

    /** The {@code regional_notes} tool: the demo notes of a region, after a slow lookup. */
    static Tool regionalNotes() {
        return Tool.typed("regional_notes", "Read the (demo) notes on AI regulation in a region; "
                + "regions: " + String.join(", ", NOTES.keySet()), Region.class, (in, ctx) -> lookUp(in.region()));
    }

    @Override
    public Message run(ExampleRun run) {
        Tool regionalNotes = regionalNotes();

        Registry registry = new Registry().register("analyst", "Researches AI regulation in one region",
                () -> Agent.builder("analyst")
                        .description("Researches AI regulation in one region")
                        .instructions("Look up the region you are given with regional_notes and summarise it in "
                                + "one or two sentences.")
                        .completer(run.model(analystScript()))
                        .toolboxes(ToolBox.of(regionalNotes))
                        .maxIterations(5)
                        .build());

        // Counts the analysts at work, from the agents' events.
        AtomicInteger working = new AtomicInteger();
        AtomicInteger mostAtOnce = new AtomicInteger();
        AgentListener counter = event -> {
            if (event.source().depth() == 1) {
                switch (event) {
                    case AgentEvent.AgentStarted started -> mostAtOnce.accumulateAndGet(working.incrementAndGet(), Math::max);
                    case AgentEvent.AgentFinished finished -> working.decrementAndGet();
                    case AgentEvent.AgentFailed failed -> working.decrementAndGet();
                    default -> { }
                }
            }
        };

        Agent lead = Agent.builder("lead")
                .description("Compares regions by delegating one analyst per region")
                .instructions("Delegate one task per region to the analyst in a single delegate call, so they work "
                        + "at the same time; then compare their results in a few lines.")
                .completer(run.model(leadScript()))
                .registry(registry)
                .maxDelegationDepth(1)
                .maxIterations(10)
                .listener(run.listener().andThen(counter))
                .build();

        Message answer = lead.run(run.prompt(), run.scope());
        if (mostAtOnce.get() > 0) {
            run.note("[concurrency] at most " + mostAtOnce.get() + " analyst" + (mostAtOnce.get() == 1 ? " was" : "s were")
                    + " at work at the same time");
        }
        return answer;
    }

    private static ToolOutput lookUp(String region) throws InterruptedException {
        Thread.sleep(LOOKUP_TIME);   // a slow source; an interrupt (cancellation) ends the wait
        String key = regionIn(region);
        return key == null
                ? ToolOutput.error("no notes on '" + region + "'; regions: " + String.join(", ", NOTES.keySet()))
                : ToolOutput.text(NOTES.get(key));
    }

    /** The region a text names, or null. */
    static String regionIn(String text) {
        String lower = text.toLowerCase(Locale.ROOT);
        for (String region : NOTES.keySet()) {
            if (lower.contains(region.toLowerCase(Locale.ROOT))) {
                return region;
            }
        }
        return null;
    }

    static List<Step> leadScript() {
        return List.of(
                Step.delegate(
                        new Step.Task("analyst", "Summarise how AI regulation is developing in the United States.", null),
                        new Step.Task("analyst", "Summarise how AI regulation is developing in the European Union.", null),
                        new Step.Task("analyst", "Summarise how AI regulation is developing in China.", null))
                        .withText("I'll have three analysts look at the regions at once."),
                Step.reply(chat -> "Comparison:\n" + String.join("\n",
                        Scripts.delegationResults(chat).stream().map(r -> "- " + r).toList())));
    }

    static List<Step> analystScript() {
        return List.of(
                Scripts.call("regional_notes", chat -> {
                    String region = regionIn(Scripts.userText(chat));
                    return Scripts.object("region", region == null ? "European Union" : region);
                }),
                Step.reply(chat -> {
                    String region = regionIn(Scripts.userText(chat));
                    return (region == null ? "" : region + ": ") + Scripts.lastResult(chat);
                }));
    }

    private static Map<String, String> notes() {
        Map<String, String> notes = new LinkedHashMap<>();
        notes.put("United States", "no single federal AI law; executive orders, agency guidance and state laws "
                + "(such as Colorado's) set the rules.");
        notes.put("European Union", "the AI Act sorts systems by risk, bans a few uses outright, and phases in "
                + "obligations from 2025 to 2027.");
        notes.put("China", "targeted rules for recommendation algorithms, deep synthesis and generative AI "
                + "services, with registration and content duties.");
        notes.put("United Kingdom", "a principles-based approach: existing regulators apply five cross-sector "
                + "principles in their own fields.");
        return Collections.unmodifiableMap(notes);
    }
}
