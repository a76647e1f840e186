/**
 * Internal: helpers the modules that start programs share. Not part of Shelly's API: it may change
 * in any release.
 */
package dev.shelly.tools.internal;
