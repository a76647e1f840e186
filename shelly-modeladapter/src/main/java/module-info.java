/**
 * The {@code Completer} contract: the chat model and nothing else.
 */
module dev.shelly.modeladapter {
    requires transitive dev.shelly.chats;
    requires org.slf4j;

    exports dev.shelly.modeladapter;
}
