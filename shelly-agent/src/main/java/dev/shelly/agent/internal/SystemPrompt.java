package dev.shelly.agent.internal;

import dev.shelly.agent.Registry;
import dev.shelly.chats.Message;
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
 * Call load_skill with a skill's name to read its full procedure before you follow it.
 *
 * ### {skill name}
 *
 * {skill description, or the skill's content when it has no description}
 *
 * ## Available Agents
 *
 * - **{name}**: {description}
 * </pre>
 *
 * Only non-empty sections appear; each text is stripped of surrounding white space. A skill
 * with a description is listed by it, and the model loads its content with {@code load_skill}
 * (the line about {@code load_skill} appears only when a skill is listed so); a skill without one
 * is inlined in full.
 */
final class SystemPrompt {
    /** The line under {@code ## Skills} when a skill is listed by its description only. */
    static final String LOAD_HINT = "Call load_skill with a skill's name to read its full procedure before you follow it.";

    private SystemPrompt() {}

    /** A skill with a description is listed by it and loaded on demand; one without is inlined. */
    static boolean onDemand(Skill skill) {
        return !skill.description().isBlank();
    }

    private static boolean anyOnDemand(List<Skill> skills) {
        for (Skill s : skills) {
            if (onDemand(s)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The texts and the message of the latest prompt made without skills or agents to list: the
     * next fresh agent of a fan-out with the same texts shares the message instead of writing
     * its own copy (a message is an immutable value, so chats may share one).
     */
    private record Last(String name, String description, String instructions, String context, Message message) {
        boolean matches(String n, String d, String i, String c) {
            return name.equals(n) && description.equals(d) && instructions.equals(i) && context.equals(c);
        }
    }

    private static volatile Last last;

    /** The prompt as a system message; see {@link #build}. */
    static Message message(String name, String description, String instructions, String context, List<Skill> skills,
            List<Registry.Entry> agents) {
        if (!skills.isEmpty() || !agents.isEmpty()) {
            return Message.system(build(name, description, instructions, context, skills, agents));
        }
        Last known = last;
        if (known != null && known.matches(name, description, instructions, context)) {
            return known.message();
        }
        Message made = Message.system(build(name, description, instructions, context, skills, agents));
        last = new Last(name, description, instructions, context, made);
        return made;
    }

    static String build(String name, String description, String instructions, String context, List<Skill> skills,
            List<Registry.Entry> agents) {
        if (skills.isEmpty() && agents.isEmpty()) {
            // One concatenation, sized once: the prompt of every fresh agent of a fan-out.
            String d = description.isBlank() ? "" : description.strip();
            String i = instructions.isBlank() ? "" : instructions.strip();
            String c = context.isBlank() ? "" : context.strip();
            return "You are " + name + '.' + (d.isEmpty() ? "" : " ") + d
                    + (i.isEmpty() ? "" : "\n\n## Instructions\n\n") + i
                    + (c.isEmpty() ? "" : "\n\n## Project Context\n\n") + c;
        }
        StringBuilder sb = new StringBuilder(256).append("You are ").append(name).append('.');
        if (!description.isBlank()) {
            sb.append(' ').append(description.strip());
        }
        section(sb, "Instructions", instructions);
        section(sb, "Project Context", context);
        if (!skills.isEmpty()) {
            sb.append("\n\n## Skills");
            if (anyOnDemand(skills)) {
                sb.append("\n\n").append(LOAD_HINT);
            }
            for (Skill skill : skills) {
                sb.append("\n\n### ").append(skill.name());
                String text = onDemand(skill) ? skill.description() : skill.content();
                if (!text.isBlank()) {
                    sb.append("\n\n").append(text.strip());
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
