/**
 * Internal: helpers shared by the provider packages. Not part of Shelly's API: it may change in any
 * release.
 */
package dev.shelly.providers.internal;
