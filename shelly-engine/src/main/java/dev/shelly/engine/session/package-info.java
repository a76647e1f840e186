/**
 * API: saved sessions: the {@link dev.shelly.engine.session.SessionStore} the engine writes every
 * turn to, its file-backed default, and the errors a session lookup or lock can raise.
 */
package dev.shelly.engine.session;
