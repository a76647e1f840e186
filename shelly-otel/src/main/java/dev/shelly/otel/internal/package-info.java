/**
 * Internal, not API: the conventions' attribute names and the content encoding. Public only so
 * that tests can read the names; they may change in any release.
 */
package dev.shelly.otel.internal;
