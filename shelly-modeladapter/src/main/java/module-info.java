/**
 * The {@code Completer} contract: the chat model and nothing else. Retries and fallbacks log
 * through slf4j, like the rest of Shelly.
 */
module dev.shelly.modeladapter {
    requires transitive dev.shelly.chats;
    requires org.slf4j;

    exports dev.shelly.modeladapter;
    exports dev.shelly.modeladapter.spi;
}
