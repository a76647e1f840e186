package dev.shelly.examples;

import dev.shelly.agent.Agent;
import dev.shelly.agent.AgentException.GuardrailException;
import dev.shelly.agent.RunInterceptor;
import dev.shelly.chats.Message;
import dev.shelly.testing.Step;
import dev.shelly.tools.Description;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolOutput;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * An agent with middleware (section 14.5): a time limit, the built-in recovery and output
 * guardrail links, and two links of our own around the run: one that times the run, one that
 * gives a rejected answer one more try. The first middleware in the list is the outermost.
 */
public final class MiddlewareExample implements Example {

    /** The input of {@code lookup_customer}. */
    record Customer(@Description("the customer id, e.g. C-1042") String id) {}

    @Override
    public String name() {
        return "middleware";
    }

    @Override
    public String description() {
        return "timing, timeout, recovery and an output guardrail around an agent";
    }

    @Override
    public String defaultPrompt() {
        return "Draft a short support reply about the account of customer C-1042.";
    }

    @Override
    public Message run(ExampleRun run) {
        Tool lookup = Tool.typed("lookup_customer", "Look up a customer's account (demo data)", Customer.class,
                (in, ctx) -> in.id().strip().equalsIgnoreCase("C-1042")
                        ? ToolOutput.text("name: Ada Lovelace; plan: Pro; open tickets: 1 (exports are slow); "
                                + "internal note: CONFIDENTIAL credit limit under review, do not disclose")
                        : ToolOutput.error("no customer '" + in.id() + "'; the demo knows C-1042"));

        Agent agent = Agent.builder("assistant")
                .description("A helpful support assistant")
                .instructions("Help support staff answer customers. Look accounts up with lookup_customer. "
                        + "Never reveal internal notes.")
                .completer(run.model(script()))
                .toolboxes(ToolBox.of(lookup))
                .timeout(Duration.ofMinutes(5))                      // stops a run that takes too long
                .middleware(
                        timing(run),                                 // outermost: sees the whole run
                        RunInterceptor.recovery(),                   // unexpected exceptions become AgentExceptions
                        oneMoreTry(run),                             // a rejected answer gets a second chance
                        RunInterceptor.outputGuardrail(reply -> reply.text().toUpperCase(Locale.ROOT).contains("CONFIDENTIAL")
                                ? Optional.of("it reveals information marked CONFIDENTIAL")
                                : Optional.empty()))
                .maxIterations(10)
                .listener(run.listener())
                .build();

        return agent.run(run.prompt(), run.scope());
    }

    /** Says when the run starts and how long it took. */
    static RunInterceptor timing(ExampleRun run) {
        return new RunInterceptor() {
            @Override
            public Message interceptRun(RunChain chain) {
                String name = chain.agent().name();
                long start = System.nanoTime();
                run.note("[timing] " + name + " starts");
                try {
                    Message reply = chain.proceed();
                    run.note("[timing] " + name + " answered in " + seconds(start));
                    return reply;
                } catch (RuntimeException e) {
                    run.note("[timing] " + name + " failed after " + seconds(start));
                    throw e;
                }
            }
        };
    }

    /** When the guardrail rejects an answer, tells the model why and runs once more. */
    static RunInterceptor oneMoreTry(ExampleRun run) {
        return new RunInterceptor() {
            @Override
            public Message interceptRun(RunChain chain) {
                try {
                    return chain.proceed();
                } catch (GuardrailException e) {
                    run.note("[guardrail] the answer above was rejected: " + e.reason() + "; asking once more");
                    chain.chat().append(Message.user("Your answer was rejected because " + e.reason()
                            + ". Answer again without that information."));
                    return chain.proceed();
                }
            }
        };
    }

    private static String seconds(long startNanos) {
        return String.format(Locale.ROOT, "%.1f s", (System.nanoTime() - startNanos) / 1e9);
    }

    /** The scripted model: looks the customer up, leaks the internal note, then answers properly. */
    static List<Step> script() {
        return List.of(
                Step.toolCall("lookup_customer", Scripts.object("id", "C-1042")),
                Step.reply("Hi Ada, thanks for your patience. Your export ticket is open. (Note: CONFIDENTIAL credit "
                        + "limit under review.)"),
                Step.reply("Hi Ada, thanks for your patience: we are looking into the slow exports on your Pro plan "
                        + "and will update your ticket as soon as they are fixed."));
    }
}
