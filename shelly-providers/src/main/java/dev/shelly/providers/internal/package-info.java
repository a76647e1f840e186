/**
 * Internal: helpers shared by the provider packages, and the provider kinds that
 * {@link java.util.ServiceLoader} finds (one {@link dev.shelly.modeladapter.spi.CompleterFactory}
 * per kind). Not part of Shelly's API: it may change in any release.
 */
package dev.shelly.providers.internal;
