/**
 * The {@code Completer} contract: the chat model and nothing else. It logs through
 * {@code System.Logger}, so it requires no logging library.
 */
module dev.shelly.modeladapter {
    requires transitive dev.shelly.chats;

    exports dev.shelly.modeladapter;
    exports dev.shelly.modeladapter.spi;
}
