/**
 * Internal: what the providers Shelly ships use of the HTTP base beyond its API. Exported to
 * {@code dev.shelly.providers} only; not part of Shelly's API: it may change in any release.
 */
package dev.shelly.provider.spi.internal;
