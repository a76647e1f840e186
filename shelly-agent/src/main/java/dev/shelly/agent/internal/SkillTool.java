package dev.shelly.agent.internal;

import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolDefinition;
import dev.shelly.skills.Skill;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolOutput;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The {@code load_skill} tool: a skill's full procedure and where its supplementary files are. */
final class SkillTool {
    static final String NAME = "load_skill";

    private static final String SCHEMA = """
            {"type":"object","properties":{"name":{"type":"string","description":"The skill's name, as listed under ## Skills"}},"required":["name"],"additionalProperties":false}""";

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private SkillTool() {}

    /** What the model is told about {@code load_skill} for these skills. */
    static ToolDefinition definition(List<Skill> skills) {
        return new ToolDefinition(NAME, "Load the full procedure of one of your skills by name, with the path of the "
                + "folder holding its supplementary files (checklists, scripts, templates). Skills: "
                + String.join(", ", names(skills)) + ".", SCHEMA);
    }

    /**
     * The tool for one call.
     *
     * @param skills the agent's skills
     * @param onLoad starts the tools a loaded skill brings and says what the model is told about
     *     them, or null for nothing to tell
     */
    static ToolBox toolbox(List<Skill> skills, Function<Skill, String> onLoad) {
        List<String> names = names(skills);
        return ToolBox.of(new Tool(definition(skills), (input, ctx) -> load(skills, names, input, onLoad), null));
    }

    /** The skill a {@code load_skill} call asks for, or null when its arguments name none. */
    static String nameIn(ToolCall call) {
        try {
            JsonNode name = JSON.readTree(call.arguments()).get("name");
            return name != null && name.isString() && !name.stringValue().isBlank() ? name.stringValue().strip() : null;
        } catch (JacksonException e) {
            return null;
        }
    }

    private static List<String> names(List<Skill> skills) {
        List<String> names = new ArrayList<>(skills.size());
        for (Skill s : skills) {
            names.add(s.name());
        }
        return names;
    }

    private static ToolOutput load(List<Skill> skills, List<String> names, JsonNode input,
            Function<Skill, String> onLoad) {
        JsonNode name = input.get("name");
        if (name == null || !name.isString() || name.stringValue().isBlank()) {
            return ToolOutput.error("load_skill needs 'name': one of " + String.join(", ", names));
        }
        String wanted = name.stringValue().strip();
        for (Skill s : skills) {
            if (s.name().equals(wanted)) {
                String tools = onLoad.apply(s);
                return ToolOutput.text(tools == null ? render(s) : render(s) + "\n\n" + tools);
            }
        }
        return ToolOutput.error("unknown skill '" + wanted + "'; available skills: " + String.join(", ", names));
    }

    /** The skill's content, then a footer naming its folder when it has one. */
    static String render(Skill skill) {
        if (skill.dir() == null) {
            return skill.content();
        }
        return skill.content() + "\n\n---\nSkill directory: " + skill.dir()
                + "\nSupplementary files mentioned above are in this directory.";
    }
}
