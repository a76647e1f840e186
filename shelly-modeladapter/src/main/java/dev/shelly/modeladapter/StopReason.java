package dev.shelly.modeladapter;

/** Why a model stopped generating, in provider-neutral terms. */
public enum StopReason {
    /** The model finished its turn. */
    END_TURN,
    /** The model wants tools called. */
    TOOL_USE,
    /** The output hit the max-tokens limit; the reply may be cut off. */
    MAX_TOKENS,
    /** A stop sequence was generated. */
    STOP_SEQUENCE,
    /** The model refused to answer. */
    REFUSAL,
    /** The provider paused a long turn; sending the reply back continues it. */
    PAUSE_TURN,
    /** The conversation filled the model's context window. */
    CONTEXT_WINDOW_EXCEEDED,
    /** A content filter withheld or cut the reply. */
    CONTENT_FILTER,
    /** A reason this version of Shelly does not know. */
    OTHER
}
