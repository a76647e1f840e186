/**
 * SPI: what a backend of the blackboard or the task board builds on: {@link
 * dev.shelly.state.spi.VersionedCells}, versioned compare-and-set in this process, the one the
 * in-memory backends use.
 */
package dev.shelly.state.spi;
