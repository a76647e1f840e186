package dev.shelly.modeladapter;

import dev.shelly.chats.Message;
import java.util.Optional;

/**
 * The metadata keys completers set on the replies they return, and typed access to them.
 *
 * <p>Metadata is carried by the {@link Message} itself, so it survives being appended to a
 * chat and persisted.
 */
public final class ReplyMetadata {
    /** Key of the reply's {@link Usage}. */
    public static final String USAGE = "usage";
    /** Key of the reply's {@link StopReason}. */
    public static final String STOP_REASON = "stop_reason";
    /** Key of the provider's own stop reason text, such as {@code end_turn} or {@code length}. */
    public static final String PROVIDER_STOP_REASON = "provider_stop_reason";
    /** Key of the model name the provider reports. */
    public static final String MODEL = "model";
    /** Key of the provider's id for the reply or request. */
    public static final String RESPONSE_ID = "response_id";
    /** Key of the provider's name, such as {@code anthropic}. */
    public static final String PROVIDER = "provider";

    private ReplyMetadata() {}

    /**
     * The usage a reply carries.
     *
     * @param reply a completer's reply
     * @return the usage, or empty
     */
    public static Optional<Usage> usage(Message reply) {
        return reply.meta(USAGE, Usage.class);
    }

    /**
     * The stop reason a reply carries.
     *
     * @param reply a completer's reply
     * @return the stop reason, or empty
     */
    public static Optional<StopReason> stopReason(Message reply) {
        return reply.meta(STOP_REASON, StopReason.class);
    }
}
