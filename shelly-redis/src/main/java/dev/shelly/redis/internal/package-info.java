/**
 * Internal: what the engine finds with {@link java.util.ServiceLoader} to open Redis backends for
 * a {@code redis:} section. Not exported; it may change in any release.
 */
package dev.shelly.redis.internal;
