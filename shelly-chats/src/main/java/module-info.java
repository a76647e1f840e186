/**
 * The chat data model every Shelly module builds on. It requires nothing but {@code java.base}.
 */
module dev.shelly.chats {
    exports dev.shelly.chats;
    // Secret redaction, shared by the modules that build requests with keys in them.
    exports dev.shelly.chats.internal to dev.shelly.provider.spi, dev.shelly.mcp;
}
