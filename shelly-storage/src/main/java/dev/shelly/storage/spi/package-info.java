/**
 * SPI: where sessions and shared state are kept, implemented by a storage module without either
 * it or the engine depending on the other: the {@link dev.shelly.storage.spi.SessionStore} and its
 * file store, and the shared backends a {@code redis:} section asks for
 * ({@link dev.shelly.storage.spi.SharedBackendsProvider}, found with {@link java.util.ServiceLoader})
 * with the settings they are opened with.
 */
package dev.shelly.storage.spi;
