/**
 * Markdown skills with YAML frontmatter.
 */
module dev.shelly.skills {
    requires transitive dev.shelly.chats;
    requires org.snakeyaml.engine;

    exports dev.shelly.skills;
}
