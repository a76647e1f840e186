/**
 * API: the providers Shelly ships, chosen by name. Each provider lives in a package of its own.
 */
package dev.shelly.providers;
