package dev.shelly.modeladapter;

/**
 * One piece of a streamed reply. The final {@link dev.shelly.chats.Message} holds the same
 * content: the concatenated text, thinking and tool-call argument fragments. (A provider that
 * returns tool arguments as a JSON object when not streaming, such as Anthropic, re-serialises
 * the streamed fragments as compact JSON, so that the streamed and non-streamed replies are
 * equal; the value is the same, the white space may differ from the fragments.)
 */
public sealed interface Delta {

    /**
     * A fragment of the reply's text.
     *
     * @param text the fragment
     */
    record TextDelta(String text) implements Delta {}

    /**
     * A fragment of the model's visible reasoning.
     *
     * @param text the fragment
     */
    record ThinkingDelta(String text) implements Delta {}

    /**
     * A tool call begins.
     *
     * @param index the call's position among the reply's tool calls, from 0
     * @param id the call's id
     * @param name the tool's name
     */
    record ToolCallStart(int index, String id, String name) implements Delta {}

    /**
     * A fragment of a tool call's JSON arguments.
     *
     * @param index the call's position among the reply's tool calls, from 0
     * @param fragment the next characters of the arguments
     */
    record ToolCallArguments(int index, String fragment) implements Delta {}

    /**
     * Token usage reported by the provider during the stream; the last one holds the totals.
     *
     * @param usage the usage so far
     */
    record UsageDelta(Usage usage) implements Delta {}
}
