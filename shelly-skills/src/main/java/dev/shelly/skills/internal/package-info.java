/**
 * Internal: helpers the other Shelly modules share (the engine parses its config with the same
 * depth-limited YAML parser as SKILL.md frontmatter). Not part of Shelly's API: it may change
 * in any release.
 */
package dev.shelly.skills.internal;
