package dev.shelly.modeladapter;

import dev.shelly.chats.Message;
import dev.shelly.chats.ToolDefinition;
import java.util.List;

/**
 * Estimates how many tokens a request takes, without the provider's tokenizer. Context
 * management adds such an estimate of what was appended since the last call to the input tokens
 * the provider reported for it, so only the new part is ever estimated.
 *
 * <p>{@link #heuristic()} counts characters: about four ASCII characters of prose per token,
 * about three of JSON (tool arguments and schemas, which tokenize denser), one token per
 * non-ASCII character or so, plus a few tokens of framing per message, tool call, tool result
 * and tool definition. Implement this interface to plug in a real tokenizer.
 */
public interface TokenEstimator {

    /**
     * The tokens one message takes on the wire, framing included.
     *
     * @param message the message
     * @return the estimate, at least 1
     */
    long message(Message message);

    /**
     * The tokens one tool definition takes on the wire.
     *
     * @param tool the definition
     * @return the estimate, at least 1
     */
    long tool(ToolDefinition tool);

    /**
     * The tokens a whole request takes: its messages and tools.
     *
     * @param request the request
     * @return the estimate
     */
    default long request(ModelRequest request) {
        return messages(request.messages()) + tools(request.tools()) + HeuristicEstimator.REQUEST;
    }

    /**
     * The tokens some messages take.
     *
     * @param messages the messages
     * @return the sum of their estimates
     */
    default long messages(List<Message> messages) {
        long sum = 0;
        for (Message m : messages) {
            sum += message(m);
        }
        return sum;
    }

    /**
     * The tokens some tool definitions take.
     *
     * @param tools the definitions
     * @return the sum of their estimates
     */
    default long tools(List<ToolDefinition> tools) {
        long sum = 0;
        for (ToolDefinition t : tools) {
            sum += tool(t);
        }
        return sum;
    }

    /**
     * The character-counting estimator described above.
     *
     * @return the estimator; stateless and thread-safe
     */
    static TokenEstimator heuristic() {
        return HeuristicEstimator.INSTANCE;
    }
}
