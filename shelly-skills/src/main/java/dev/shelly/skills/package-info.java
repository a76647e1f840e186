/**
 * API: markdown skills: a SKILL.md file with YAML frontmatter, loaded one by one or from a
 * directory. Start at {@link dev.shelly.skills.Skill}.
 */
package dev.shelly.skills;
