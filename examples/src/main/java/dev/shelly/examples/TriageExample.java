package dev.shelly.examples;

import dev.shelly.agent.Agent;
import dev.shelly.agent.RunContext;
import dev.shelly.agent.RunInterceptor;
import dev.shelly.agent.RunObserver;
import dev.shelly.agent.ToolDecision;
import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.chats.ToolDefinition;
import dev.shelly.modeladapter.Cost;
import dev.shelly.modeladapter.Usage;
import dev.shelly.testing.Step;
import dev.shelly.tools.Description;
import dev.shelly.tools.RunValues;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolOutput;
import java.util.List;
import java.util.Optional;

/**
 * A structured answer and the run's seams: a support agent triages a ticket into a
 * {@link Triage} record instead of text. A tool-call hook denies refunds (the model reads why),
 * a model-call hook hides the admin tools from every request, the tenant reaches the tools as a
 * run value, and the run context reports what the run cost.
 */
public final class TriageExample implements Example {
    /** The application's own value, read by the tools from their context. */
    static final RunValues.Key<String> TENANT = RunValues.Key.of("tenant", String.class);

    /** The answer's type; its JSON Schema goes to the provider as the response format. */
    record Triage(@Description("billing, bug, account or other") String category,
                  @Description("1 (urgent) to 4 (whenever)") int priority,
                  @Description("who should take it, when someone specific should") Optional<String> assignee,
                  @Description("one sentence for the agent who takes it") String summary) {}

    record CustomerQuery(@Description("the customer's e-mail address") String email) {}

    record Refund(@Description("the order to refund") String order) {}

    @Override
    public String name() {
        return "triage";
    }

    @Override
    public String description() {
        return "a ticket triaged into a record; hooks deny a tool and hide others, a run value reaches the tools,"
                + " the run's cost";
    }

    @Override
    public String defaultPrompt() {
        return "Ticket from ann@example.com: I was charged twice for order A-1001, please refund one.";
    }

    @Override
    public Message run(ExampleRun run) {
        // 1. Tools: one reads the tenant from its context; refunds and admin resets exist but are guarded.
        Tool lookup = Tool.typed("lookup_customer", "Look a customer up by e-mail (demo data)", CustomerQuery.class,
                (query, ctx) -> ToolOutput.text(customer(query.email(), ctx.values().get(TENANT).orElse("none"))));
        Tool refund = Tool.typed("refund_order", "Refund an order", Refund.class,
                (order, ctx) -> ToolOutput.text("refunded " + order.order()));
        Tool reset = Tool.of("admin_reset_password", "Reset any customer's password", "{\"type\":\"object\"}",
                (input, ctx) -> ToolOutput.text("password reset"));

        Agent agent = Agent.builder("triage")
                .description("Triages support tickets")
                .instructions("Look the customer up, then triage the ticket. Do not act on it yourself.")
                .completer(run.model(script()))
                .toolboxes(ToolBox.of(lookup, refund, reset))
                .maxIterations(6)
                .listener(run.listener())
                .build();

        // 2. The run's context: the tenant for the tools, and two hooks around the model and tool calls.
        RunContext context = RunContext.builder()
                .observers(run.scope().observers().toArray(RunObserver[]::new))
                .value(TENANT, "acme")
                .interceptors(
                        RunInterceptor.beforeToolCall(call -> call.call().name().equals("refund_order")
                                ? ToolDecision.deny("refunds need a human's approval; say so in the triage")
                                : ToolDecision.ALLOW),
                        RunInterceptor.beforeModelCall(call -> call.request().withTools(call.request().tools().stream()
                                .filter(tool -> !tool.name().startsWith("admin_")).toList())))
                .build();

        // 3. Ask for a Triage, not for text: checked, bound, corrected once if it does not fit.
        Triage triage = agent.run(run.prompt(), Triage.class, context);

        run.note("[triage: " + triage.category() + ", priority " + triage.priority()
                + triage.assignee().map(a -> ", for " + a).orElse("") + "]");
        run.note("[run: " + describe(context.usage(), context.cost(), run.models().scripted()) + "]");
        return Message.text("triage", Role.ASSISTANT, triage.summary());
    }

    /**
     * What the run used: tokens, and dollars by the agent's price table (the shipped one here). A
     * scripted model bills nothing: its figure is what the same tokens would cost, and says so.
     */
    static String describe(Usage usage, Cost cost, boolean scripted) {
        return usage.totalTokens() + " tokens, $" + cost.usd().toPlainString()
                + (cost.complete() ? "" : " and " + cost.unpricedTokens() + " tokens without a price")
                + (scripted ? " (scripted model: not billed; what these tokens would cost)" : "");
    }

    /** Demo customers, per tenant. */
    static String customer(String email, String tenant) {
        return email.strip().equalsIgnoreCase("ann@example.com")
                ? "Ann Lee, tenant " + tenant + ", plan Pro, 2 open orders (A-1001, A-1002)"
                : "no customer " + email + " at tenant " + tenant;
    }

    /** Which tools a request offered, for the scripted model to show that the hook hid one. */
    private static String offered(List<ToolDefinition> tools) {
        return String.join(", ", tools.stream().map(ToolDefinition::name).toList());
    }

    /** The scripted model: look up and try a refund in one turn, then answer with the triage as JSON. */
    static List<Step> script() {
        return List.of(
                Step.toolCalls(new Step.Call("lookup_customer", Scripts.object("email", "ann@example.com")),
                        new Step.Call("refund_order", Scripts.object("order", "A-1001")))
                        .withText("Let me look the customer up and refund the duplicate charge.")
                        .withUsage(new Usage(900, 60, 0, 1200)).withModel("claude-sonnet-4-5"),
                Step.reply(request -> {
                    List<String> results = Scripts.lastResults(request);
                    String who = results.isEmpty() ? "the customer" : results.getFirst().split(",")[0];
                    return "{\"category\":\"billing\",\"priority\":2,\"assignee\":\"billing-team\",\"summary\":\""
                            + who + " was charged twice for A-1001; the refund needs approval (tools offered: "
                            + offered(request.tools()) + ").\"}";
                }).withUsage(new Usage(150, 70, 1200, 0)).withModel("claude-sonnet-4-5"));
    }
}
