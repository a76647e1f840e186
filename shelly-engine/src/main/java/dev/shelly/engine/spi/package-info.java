/**
 * SPI: what a module plugs into the engine without the engine depending on it. Today the shared
 * backends a {@code redis:} section asks for ({@link dev.shelly.engine.spi.SharedBackendsProvider}).
 */
package dev.shelly.engine.spi;
