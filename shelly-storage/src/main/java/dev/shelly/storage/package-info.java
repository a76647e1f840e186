/**
 * API: saved sessions as the engine and its users see them: a {@link dev.shelly.storage.SessionRecord},
 * session ids, the errors a session lookup or lock can raise, the session codec
 * ({@link dev.shelly.storage.ChatJson}) and the file of remembered approval decisions. Where sessions
 * are kept is the SPI of {@link dev.shelly.storage.spi}.
 */
package dev.shelly.storage;
