package dev.shelly.examples;

import dev.shelly.agent.Agent;
import dev.shelly.agent.AgentEvent;
import dev.shelly.agent.AgentListener;
import dev.shelly.agent.context.ContextPolicy;
import dev.shelly.agent.context.ContextStrategy;
import dev.shelly.chats.Message;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.testing.Step;
import dev.shelly.tools.Description;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolOutput;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A long task in a small window: an agent reads 120 inventory records of about 2 KB each, one
 * tool call at a time, in a context window set to 8,000 tokens for the demonstration. Its
 * {@link ContextPolicy} keeps every request under the window: old records are trimmed in the
 * model's view, large new ones are offloaded to files (readable again with {@code recall}), the
 * older conversation is compacted into a summary that carries the running total, and a repeated
 * call gets a note. The chat keeps every record and summary. The output shows the context as it
 * goes: every 20 iterations, every compaction, every offload, and at the end the largest request.
 */
public final class LongRunExample implements Example {
    /** The records the task reads. */
    static final int RECORDS = 120;
    /** The window set for the demonstration, in tokens. */
    static final int WINDOW = 8_000;
    /** Every this many records one is a large audit record that gets offloaded. */
    static final int LARGE_EVERY = 40;

    record RecordQuery(@Description("the record's number, from 1") int number) {}

    @Override
    public String name() {
        return "long-run";
    }

    @Override
    public String description() {
        return "120 tool calls in an 8k-token window: offload, trimming, compaction and a loop check keep every request"
                + " under it";
    }

    @Override
    public String defaultPrompt() {
        return "Read inventory records 1 to " + RECORDS + " with read_record, one at a time, and report their total stock "
                + "value.";
    }

    @Override
    public Message run(ExampleRun run) {
        // 1. A tool whose results are large: about 2 KB a record, 7 KB for every 40th.
        Tool read = Tool.typed("read_record", "Read one inventory record by number (demo data)", RecordQuery.class,
                (query, ctx) -> ToolOutput.text(record(query.number())));

        // 2. The context policy: the strategies run in this order before every model call.
        ContextPolicy policy = ContextPolicy.builder()
                .window(WINDOW)
                .summarizer(run.model(summaries()))
                .strategies(ContextStrategy.trimToolResults(3, 300), ContextStrategy.offload(4_000, 300, 2_000, null),
                        ContextStrategy.compaction(0.75, 0.3, null, null), ContextStrategy.loopDetection(3),
                        ContextStrategy.failureReflection(3))
                .build();

        // 3. The agent: enough iterations for the whole task, and a listener that shows the context.
        Progress progress = new Progress(run);
        Agent agent = Agent.builder("surveyor")
                .description("Surveys the inventory")
                .instructions("Read the records one at a time, in order. Keep a running total of the stock value: "
                        + "when the conversation is summarised, the summary must carry the total so far and the last "
                        + "record read.")
                .completer(run.model(script()))
                .toolboxes(ToolBox.of(read))
                .maxIterations(RECORDS + 30)
                .contextPolicy(policy)
                .listener(progress)
                .build();

        // 4. Run it, then say how large the context grew.
        Message answer = agent.run(run.prompt());
        run.note(answer.text());
        long kept = agent.chat().messages().stream().filter(m -> m.sender().equals(ContextPolicy.SENDER)).count();
        run.note("[" + progress.calls.get() + " model calls; largest request " + progress.largest.get() + " of " + WINDOW
                + " tokens" + (progress.largestReported.get() > 0 ? " (" + progress.largestReported.get()
                + " reported by the provider)" : "") + "; " + progress.compactions.get() + " compactions; the chat holds "
                + agent.chat().size() + " messages, " + kept + " of them summaries and notes]");
        return answer;
    }

    /** Shows the context as the run goes. */
    private static final class Progress implements AgentListener {
        private final ExampleRun run;
        final AtomicInteger calls = new AtomicInteger();
        final AtomicInteger compactions = new AtomicInteger();
        final AtomicLong largest = new AtomicLong();
        final AtomicLong largestReported = new AtomicLong();

        Progress(ExampleRun run) {
            this.run = run;
        }

        @Override
        public void onEvent(AgentEvent event) {
            switch (event) {
                case AgentEvent.ContextMeasured m -> {
                    calls.incrementAndGet();
                    largest.accumulateAndGet(m.tokens(), Math::max);
                    if (m.iteration() % 20 == 0) {
                        run.note("[iteration " + m.iteration() + ": " + m.tokens() + " of " + m.window() + " tokens]");
                    }
                }
                case AgentEvent.CompletionFinished f ->
                        largestReported.accumulateAndGet(f.response().usage().totalInputTokens(), Math::max);
                case AgentEvent.ContextCompacted c -> {
                    compactions.incrementAndGet();
                    run.note("[iteration " + c.iteration() + ": compacted " + c.messagesSummarized() + " messages, "
                            + c.tokensBefore() + " -> " + c.tokensAfter() + " tokens]");
                }
                case AgentEvent.ContextTrimmed t when t.strategy().equals("offload") ->
                        run.note("[iteration " + t.iteration() + ": offloaded " + t.results() + " large result, "
                                + t.tokensBefore() + " -> " + t.tokensAfter() + " tokens]");
                case AgentEvent.MessageAdded a when a.message().sender().equals(ContextPolicy.SENDER)
                        && ContextPolicy.NOTE.equals(a.message().metadata().get(ContextPolicy.KIND)) ->
                        run.note("[note to the model: " + a.message().text() + "]");
                default -> { }
            }
        }
    }

    /** The scripted model: reads every record in order (record 60 three times, which earns a note), then answers. */
    static List<Step> script() {
        List<Step> steps = new ArrayList<>();
        for (int n = 1; n <= RECORDS; n++) {
            steps.add(Step.toolCall("read_record", "{\"number\":" + n + "}"));
            if (n == 60) {
                steps.add(Step.toolCall("read_record", "{\"number\":60}"));
                steps.add(Step.toolCall("read_record", "{\"number\":60}"));
            }
        }
        steps.add(Step.reply("I read all " + RECORDS + " records. Their total stock value is $" + totalValue(RECORDS) + "."));
        return steps;
    }

    /** The scripted summariser: names the last record it has seen and the total up to it. */
    static List<Step> summaries() {
        List<Step> steps = new ArrayList<>();
        for (int i = 0; i < 2 * RECORDS; i++) {
            steps.add(Step.reply(LongRunExample::summary));
        }
        return steps;
    }

    private static final Pattern SEEN = Pattern.compile("Record (\\d+):|Progress so far: records 1 to (\\d+)");

    private static String summary(ModelRequest request) {
        int last = 0;
        Matcher m = SEEN.matcher(request.messages().getLast().text());
        while (m.find()) {
            last = Math.max(last, Integer.parseInt(m.group(1) != null ? m.group(1) : m.group(2)));
        }
        return "Task: read the " + RECORDS + " inventory records and report their total stock value. Progress so far: "
                + "records 1 to " + last + " read; running total of their stock value: $" + totalValue(last) + ".";
    }

    static int quantity(int n) {
        return 5 + n * 7 % 40;
    }

    static int price(int n) {
        return 3 + n * 13 % 50;
    }

    static long totalValue(int upTo) {
        long sum = 0;
        for (int n = 1; n <= upTo; n++) {
            sum += (long) quantity(n) * price(n);
        }
        return sum;
    }

    /** A record of demo data: about 2 KB, or about 7 KB with an audit trail for every 40th. */
    static String record(int n) {
        if (n < 1 || n > RECORDS) {
            return "There is no record " + n + "; the records are numbered 1 to " + RECORDS + ".";
        }
        StringBuilder sb = new StringBuilder()
                .append("Record ").append(n).append(": item SKU-").append(String.format("%05d", n))
                .append(", warehouse ").append((char) ('A' + n % 4)).append(", quantity ").append(quantity(n))
                .append(", unit price $").append(price(n)).append(", stock value $")
                .append((long) quantity(n) * price(n)).append(".\n");
        int lines = n % LARGE_EVERY == 0 ? 90 : 25;
        for (int i = 1; i <= lines; i++) {
            sb.append("  movement ").append(i).append(": ").append(i % 3 == 0 ? "shipped " : "received ")
                    .append((n * 31 + i * 17) % 97).append(" units, checked by clerk ").append((n + i) % 12).append(".\n");
        }
        return sb.toString();
    }
}
