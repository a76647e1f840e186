/**
 * API: saved sessions: the {@link dev.shelly.storage.SessionStore} an engine writes every turn to,
 * its file-backed default, the session codec, the file of remembered approval decisions, and the
 * errors a session lookup or lock can raise.
 */
package dev.shelly.storage;
