/**
 * SPI: what a storage module implements so that an engine can use it without either depending on
 * the other: the shared backends a {@code redis:} section asks for
 * ({@link dev.shelly.storage.spi.SharedBackendsProvider}, found with {@link java.util.ServiceLoader}),
 * the settings they are opened with, and the lease bookkeeping every session store shares.
 */
package dev.shelly.storage.spi;
