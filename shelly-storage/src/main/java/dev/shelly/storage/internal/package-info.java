/**
 * Internal: the file store's machinery, not for use outside this module: the lock file of a
 * sessions folder ({@link dev.shelly.storage.internal.LockFile}), one operating-system lock per
 * session shared by every holder in the JVM. May change in any release.
 */
package dev.shelly.storage.internal;
