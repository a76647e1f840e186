package dev.shelly.agent;

import dev.shelly.skills.Skill;
import java.util.List;

/**
 * Writes an agent's system prompt in the structure every Shelly agent uses:
 *
 * <pre>
 * You are {name}. {description}
 *
 * ## Instructions
 *
 * {instructions}
 *
 * ## Project Context
 *
 * {context}
 *
 * ## Skills
 *
 * ### {skill name}
 *
 * {skill content}
 *
 * ## Available Agents
 *
 * - **{name}**: {description}
 * </pre>
 *
 * Only non-empty sections appear; each text is stripped of surrounding white space.
 */
final class SystemPrompt {
    private SystemPrompt() {}

    static String build(String name, String description, String instructions, String context, List<Skill> skills,
            List<Registry.Entry> agents) {
        StringBuilder sb = new StringBuilder(256).append("You are ").append(name).append('.');
        if (!description.isBlank()) {
            sb.append(' ').append(description.strip());
        }
        section(sb, "Instructions", instructions);
        section(sb, "Project Context", context);
        if (!skills.isEmpty()) {
            sb.append("\n\n## Skills");
            for (Skill skill : skills) {
                sb.append("\n\n### ").append(skill.name());
                if (!skill.content().isBlank()) {
                    sb.append("\n\n").append(skill.content().strip());
                }
            }
        }
        if (!agents.isEmpty()) {
            sb.append("\n\n## Available Agents\n");
            for (Registry.Entry entry : agents) {
                sb.append("\n- **").append(entry.name()).append("**");
                if (!entry.description().isBlank()) {
                    sb.append(": ").append(entry.description());
                }
            }
        }
        return sb.toString();
    }

    private static void section(StringBuilder sb, String title, String text) {
        if (!text.isBlank()) {
            sb.append("\n\n## ").append(title).append("\n\n").append(text.strip());
        }
    }
}
