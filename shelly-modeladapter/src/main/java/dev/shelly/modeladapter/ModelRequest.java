package dev.shelly.modeladapter;

import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.chats.ToolDefinition;
import dev.shelly.modeladapter.ModelOptions.CacheHints;
import dev.shelly.modeladapter.ModelOptions.Reasoning;
import dev.shelly.modeladapter.ModelOptions.ToolChoice;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * What one model call sends: the messages, the tools the model may call, the call's options and
 * the conversation's id. Immutable: {@code messages} is a snapshot, never a live chat.
 *
 * <pre>{@code
 * ModelResponse r = completer.complete(ModelRequest.builder()
 *         .message(Message.system("Answer in one word."), Message.user("Capital of France?"))
 *         .maxTokens(16)
 *         .build());
 * }</pre>
 *
 * @param messages the conversation, in order
 * @param tools the tools the model may call; may be empty
 * @param options the call's options; never null ({@link ModelOptions#NONE} when none are set)
 * @param conversationId the conversation's id, such as a chat's {@link dev.shelly.chats.Chat#id()};
 *     may be null
 */
public record ModelRequest(List<Message> messages, List<ToolDefinition> tools, ModelOptions options,
        String conversationId) {

    /** Checks every element and the tool choice, and copies the lists (no copy when already immutable). */
    public ModelRequest {
        messages = copyOf(messages, "messages");
        tools = copyOf(tools, "tools");
        if (options == null) {
            options = ModelOptions.NONE;
        }
        checkToolChoice(options.toolChoice(), tools);
    }

    private static <T> List<T> copyOf(List<T> list, String field) {
        if (list == null) {
            throw new IllegalArgumentException("ModelRequest." + field + " must not be null");
        }
        if (Chat.isSnapshot(list)) {
            return list; // a chat's snapshot of its messages: immutable, no null, kept as it is
        }
        for (int i = 0, n = list.size(); i < n; i++) {
            if (list.get(i) == null) {
                throw new IllegalArgumentException("ModelRequest." + field + "[" + i + "] must not be null");
            }
        }
        return List.copyOf(list);
    }

    private static void checkToolChoice(ToolChoice choice, List<ToolDefinition> tools) {
        if (choice instanceof ToolChoice.Required && tools.isEmpty()) {
            throw new IllegalArgumentException("ModelRequest: tool choice REQUIRED needs at least one tool");
        }
        if (choice instanceof ToolChoice.Named(String name)) {
            for (ToolDefinition t : tools) {
                if (t.name().equals(name)) {
                    return;
                }
            }
            List<String> offered = new ArrayList<>(tools.size());
            for (ToolDefinition t : tools) {
                offered.add(t.name());
            }
            throw new IllegalArgumentException("ModelRequest: tool choice names tool '" + name
                    + "', which the request does not offer; offered: "
                    + (offered.isEmpty() ? "none" : String.join(", ", offered)));
        }
    }

    /**
     * A request with messages only.
     *
     * @param messages the conversation
     * @return the request
     */
    public static ModelRequest of(List<Message> messages) {
        return new ModelRequest(messages, List.of(), ModelOptions.NONE, null);
    }

    /**
     * A request with messages and tools.
     *
     * @param messages the conversation
     * @param tools the tools the model may call
     * @return the request
     */
    public static ModelRequest of(List<Message> messages, List<ToolDefinition> tools) {
        return new ModelRequest(messages, tools, ModelOptions.NONE, null);
    }

    /**
     * An empty builder.
     *
     * @return the builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * A builder starting from this request.
     *
     * @return the builder
     */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.messages.addAll(messages);
        b.tools = tools;
        b.options = options.toBuilder();
        b.conversationId = conversationId;
        return b;
    }

    /**
     * A copy with other messages.
     *
     * @param value the messages
     * @return the new request
     */
    public ModelRequest withMessages(List<Message> value) {
        return new ModelRequest(value, tools, options, conversationId);
    }

    /**
     * A copy with other tools.
     *
     * @param value the tools
     * @return the new request
     */
    public ModelRequest withTools(List<ToolDefinition> value) {
        return new ModelRequest(messages, value, options, conversationId);
    }

    /**
     * A copy with other options.
     *
     * @param value the options; null for none
     * @return the new request
     */
    public ModelRequest withOptions(ModelOptions value) {
        return new ModelRequest(messages, tools, value, conversationId);
    }

    /**
     * The last message.
     *
     * @return the message, or empty when there are none
     */
    public Optional<Message> last() {
        return messages.isEmpty() ? Optional.empty() : Optional.of(messages.getLast());
    }

    /**
     * The text of the first system message.
     *
     * @return the system prompt, or empty when there is no system message
     */
    public Optional<String> systemPrompt() {
        for (Message m : messages) {
            if (m.role() == Role.SYSTEM) {
                return Optional.of(m.text());
            }
        }
        return Optional.empty();
    }

    /** Builds a {@link ModelRequest}; the options' fields can be set one by one. */
    public static final class Builder {
        private final List<Message> messages = new ArrayList<>();
        private List<ToolDefinition> tools = List.of();
        private ModelOptions.Builder options = ModelOptions.builder();
        private String conversationId;

        private Builder() {}

        /**
         * Replaces the messages.
         *
         * @param value the messages
         * @return this builder
         */
        public Builder messages(List<Message> value) {
            if (value == null) {
                throw new IllegalArgumentException("ModelRequest.messages must not be null");
            }
            messages.clear();
            messages.addAll(value);
            return this;
        }

        /**
         * Appends messages.
         *
         * @param value the messages, in order
         * @return this builder
         */
        public Builder message(Message... value) {
            if (value == null) {
                throw new IllegalArgumentException("ModelRequest.message messages must not be null");
            }
            messages.addAll(Arrays.asList(value));
            return this;
        }

        /**
         * Sets the tools.
         *
         * @param value the tools
         * @return this builder
         */
        public Builder tools(List<ToolDefinition> value) {
            this.tools = value;
            return this;
        }

        /**
         * Replaces every option at once.
         *
         * @param value the options; null for none
         * @return this builder
         */
        public Builder options(ModelOptions value) {
            this.options = value == null ? ModelOptions.builder() : value.toBuilder();
            return this;
        }

        /**
         * Sets the tool choice.
         *
         * @param value the choice
         * @return this builder
         */
        public Builder toolChoice(ToolChoice value) {
            options.toolChoice(value);
            return this;
        }

        /**
         * Sets the response format.
         *
         * @param value the format
         * @return this builder
         */
        public Builder responseFormat(ResponseFormat value) {
            options.responseFormat(value);
            return this;
        }

        /**
         * Sets the most tokens to generate.
         *
         * @param value at least 1
         * @return this builder
         */
        public Builder maxTokens(int value) {
            options.maxTokens(value);
            return this;
        }

        /**
         * Sets the sampling temperature.
         *
         * @param value zero or more
         * @return this builder
         */
        public Builder temperature(double value) {
            options.temperature(value);
            return this;
        }

        /**
         * Sets nucleus sampling.
         *
         * @param value above 0, at most 1
         * @return this builder
         */
        public Builder topP(double value) {
            options.topP(value);
            return this;
        }

        /**
         * Sets the stop sequences.
         *
         * @param value the sequences
         * @return this builder
         */
        public Builder stop(String... value) {
            options.stop(value);
            return this;
        }

        /**
         * Sets how much the model reasons.
         *
         * @param value the reasoning
         * @return this builder
         */
        public Builder reasoning(Reasoning value) {
            options.reasoning(value);
            return this;
        }

        /**
         * Sets the cache hints.
         *
         * @param value the hints
         * @return this builder
         */
        public Builder cache(CacheHints value) {
            options.cache(value);
            return this;
        }

        /**
         * Sets the conversation's id.
         *
         * @param value the id, or null
         * @return this builder
         */
        public Builder conversationId(String value) {
            this.conversationId = value;
            return this;
        }

        /**
         * Builds the request.
         *
         * @return the request
         * @throws IllegalArgumentException naming the first invalid field
         */
        public ModelRequest build() {
            return new ModelRequest(messages, tools, options.build(), conversationId);
        }
    }
}
