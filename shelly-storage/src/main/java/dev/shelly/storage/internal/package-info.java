/**
 * Internal: what the session stores of this module and of shelly-redis share, and the engine
 * uses, not for applications: the session codec ({@link dev.shelly.storage.internal.ChatJson},
 * with {@link dev.shelly.storage.internal.OpaquePart} for part kinds it does not know), session
 * ids ({@link dev.shelly.storage.internal.SessionIds}), the lease bookkeeping of every session
 * store ({@link dev.shelly.storage.internal.LeaseWait}, {@link dev.shelly.storage.internal.LeaseState}),
 * the file of remembered approval decisions ({@link dev.shelly.storage.internal.FilePermissionStore}),
 * the lock file of a sessions folder ({@link dev.shelly.storage.internal.LockFile}) and the
 * journal's lines ({@link dev.shelly.storage.internal.JournalLines}, in a folder
 * {@link dev.shelly.storage.internal.JournalFile}). Exported
 * only to {@code dev.shelly.redis} and {@code dev.shelly.engine}; may change in any release.
 */
package dev.shelly.storage.internal;
