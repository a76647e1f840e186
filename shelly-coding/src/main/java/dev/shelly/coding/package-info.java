/**
 * API: a coding toolbox confined to a workspace directory: files (read, write, edit, patch,
 * list, stat, move, copy, delete, mkdir), regex search honouring {@code .gitignore}, commands run
 * without a shell under an allowlist and a denylist, and git; every path is resolved and refused
 * outside the workspace, every refusal is an error result saying why. Start at
 * {@link dev.shelly.coding.CodingTools}.
 */
package dev.shelly.coding;
