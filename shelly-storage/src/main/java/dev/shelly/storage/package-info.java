/**
 * API: saved sessions as the engine and its users see them: a {@link dev.shelly.storage.SessionRecord}
 * and the errors a session lookup or lock can raise. Where sessions are kept is the SPI of
 * {@link dev.shelly.storage.spi}.
 */
package dev.shelly.storage;
