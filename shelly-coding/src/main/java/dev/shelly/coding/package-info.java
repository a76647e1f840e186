/**
 * API: a coding toolbox confined to a workspace directory: files (read, write, edit,
 * patch, list, stat, move, copy, delete, mkdir) walked race-free from a handle on the root,
 * regex search, commands and git run inside an OS {@link dev.shelly.coding.Sandbox} (bubblewrap on
 * Linux) under an allowlist and a denylist; sensitive files are refused by name and by identity,
 * and every refusal is an error result saying why. Start at {@link dev.shelly.coding.CodingTools};
 * plug in another confinement by implementing {@link dev.shelly.coding.Sandbox}, the one SPI type here.
 */
package dev.shelly.coding;
