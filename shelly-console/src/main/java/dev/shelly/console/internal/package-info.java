/**
 * The console's server, its event hub and its views of sessions and runs; not part of the API.
 */
package dev.shelly.console.internal;
