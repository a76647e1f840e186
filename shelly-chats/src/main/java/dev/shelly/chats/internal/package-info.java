/**
 * Internal: helpers the other Shelly modules share. Not part of Shelly's API: it may change in any
 * release.
 */
package dev.shelly.chats.internal;
