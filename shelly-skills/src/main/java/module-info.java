/**
 * Markdown skills with YAML frontmatter.
 */
module dev.shelly.skills {
    requires transitive dev.shelly.chats;
    requires org.snakeyaml.engine;

    exports dev.shelly.skills;
    // The depth-limited YAML parser the engine reads its config with.
    exports dev.shelly.skills.internal to dev.shelly.engine;
}
