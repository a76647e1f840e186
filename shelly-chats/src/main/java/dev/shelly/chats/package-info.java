/**
 * API: the chat data model every Shelly module builds on: roles, multi-modal parts, immutable
 * messages, a thread-safe {@link dev.shelly.chats.Chat}, and {@link
 * dev.shelly.chats.ShellyException}, the root of Shelly's errors.
 */
package dev.shelly.chats;
