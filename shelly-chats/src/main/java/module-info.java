/**
 * The chat data model every Shelly module builds on. It requires nothing but {@code java.base}.
 */
// Its internal package is exported to modules built after it, which javac does not see yet.
@SuppressWarnings("module")
module dev.shelly.chats {
    exports dev.shelly.chats;
    // Secret redaction, shared by the modules that build requests with keys in them.
    exports dev.shelly.chats.internal to dev.shelly.provider.spi, dev.shelly.mcp;
}
