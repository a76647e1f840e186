package dev.shelly.agent.internal;

import dev.shelly.agent.context.ContextPolicy;
import dev.shelly.chats.Message;
import dev.shelly.chats.ToolDefinition;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.ContextWindow;
import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.ModelTarget;
import dev.shelly.modeladapter.TokenEstimator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The token account of one agent on one conversation: the provider's count for the last call
 * plus an estimate of what changed since (the estimate alone when the provider's count is
 * missing or below half the estimate), the estimates of the messages of the run's views, and the
 * model's window.
 */
final class TokenAccount {
    private static final Logger LOG = LoggerFactory.getLogger(ContextManager.class);

    private final String agent;
    private final Completer completer;
    private final ContextPolicy policy;
    private final TokenEstimator estimator;
    /**
     * Estimates of the messages of this run's views, by identity (a chat never changes a
     * message, and strategies reuse what they rewrote); cleared when a run starts.
     */
    private Map<Message, Long> estimates;
    /** The input tokens the provider reported for the last call, or -1. */
    private long reported = -1;
    /** The estimate of the request those tokens were reported for. */
    private long reportedEstimate;
    /** Whether this agent's completer was found to report no count, or too low a count; logged once. */
    private boolean distrusted;
    /** The model the last response named. */
    private String model;
    /**
     * The window a refusal revealed: the one the provider named, else at most the refused
     * request's size; 0 until a request is refused. It stays for the agent's later calls.
     */
    private long learnedWindow;

    TokenAccount(String agent, Completer completer, ContextPolicy policy) {
        this.agent = agent;
        this.completer = completer;
        this.policy = policy;
        this.estimator = policy.estimator();
    }

    /** Forgets the estimates of the previous run's views. */
    void startRun() {
        if (estimates == null) {
            estimates = new IdentityHashMap<>();
        } else if (!estimates.isEmpty()) {
            estimates.clear();
        }
    }

    /**
     * Takes the provider's count for the request that was sent.
     *
     * @param view the view the request was built from, or null when hooks rewrote the request
     */
    void measured(ModelRequest sent, ModelResponse response, CallView view) {
        if (response.model() != null) {
            model = response.model();
        }
        long input = response.usage().totalInputTokens();
        long estimate = view != null ? view.estimated() : estimate(sent.messages(), sent.tools());
        // Several OpenAI-compatible servers report 0, nothing, or only part of the prompt: a count
        // below half of the estimate is not the request's size, and trusting it would let the
        // context grow past the window without a compaction. The estimate stands in for it.
        if (input > 0 && input >= estimate / 2) {
            reported = input;
            reportedEstimate = estimate;
            return;
        }
        reported = -1;
        if (!distrusted) {
            distrusted = true;
            LOG.debug("agent '{}': {} reported {} input tokens for a request estimated at {}; counting the context by "
                    + "the estimate while the reported count is missing or below half of it", agent,
                    describe(completer.target()), input > 0 ? input : "no", estimate);
        }
    }

    /**
     * Takes a refusal of a request as longer than the window: the count it gave, if any, and the
     * window it revealed.
     *
     * @param sent the view the refused request was built from
     * @return the refused request's size, by the count it gave
     */
    long refused(ModelException e, CallView sent) {
        long estimated = sent.estimated();
        if (e.requestTokens().isPresent()) {
            reported = e.requestTokens().getAsLong();
            reportedEstimate = estimated;
        }
        long size = sent.tokens();
        // The provider's window, else the refused request's size: the window is below it.
        long revealed = e.contextWindow().orElse(Math.max(1, size - 1));
        learnedWindow = learnedWindow > 0 ? Math.min(learnedWindow, revealed) : revealed;
        return size;
    }

    private static String describe(ModelTarget target) {
        return target.provider() == null ? "the completer" : target.provider()
                + (target.model() == null ? "" : " (" + target.model() + ")");
    }

    private long estimate(List<Message> messages, List<ToolDefinition> tools) {
        long sum = 3 + estimator.tools(tools);
        for (Message m : messages) {
            sum += tokens(m);
        }
        return sum;
    }

    /** The estimate of the tools offered. */
    long tools(List<ToolDefinition> tools) {
        return estimator.tools(tools);
    }

    /** The estimate of a message, remembered or made now. */
    long tokens(Message m) {
        Long known = estimates.get(m);
        return known != null ? known : estimator.message(m);
    }

    /** The estimate of a message, remembered for the run. */
    long remember(Message m) {
        return estimates.computeIfAbsent(m, estimator::message);
    }

    /** The tokens of a request estimated at {@code estimated}, by the provider's last count where it has one. */
    long counted(long estimated) {
        return reported >= 0 ? Math.max(1, reported + estimated - reportedEstimate) : estimated;
    }

    /** The model's window: the policy's, else the table's for the model; at most what a refusal revealed. */
    OptionalInt window() {
        OptionalInt known;
        if (policy.window().isPresent()) {
            known = policy.window();
        } else {
            Optional<ContextWindow> found = policy.windows().find(model);
            known = found.isPresent() ? OptionalInt.of(found.get().tokens()) : OptionalInt.empty();
        }
        if (learnedWindow > 0 && (known.isEmpty() || learnedWindow < known.getAsInt())) {
            return OptionalInt.of((int) Math.min(Integer.MAX_VALUE, learnedWindow));
        }
        return known;
    }
}
