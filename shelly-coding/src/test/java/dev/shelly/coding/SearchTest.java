package dev.shelly.coding;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolContext;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SearchTest {
    @TempDir
    Path ws;

    ToolResult call(ToolBox box, Object... kv) {
        return box.call(new ToolCall("c1", CodingTools.SEARCH, EscapeTest.args(kv)), ToolContext.of("coder"));
    }

    @Test
    void findsMatchesHonouringGitignoreAndSkippingSensitiveAndGit() throws Exception {
        Files.createDirectories(ws.resolve("src/gen"));
        Files.createDirectories(ws.resolve("build"));
        Files.createDirectories(ws.resolve(".git"));
        Files.writeString(ws.resolve(".gitignore"), "build/\n*.log\n!keep.log\n");
        Files.writeString(ws.resolve("src/.gitignore"), "gen/\n");
        Files.writeString(ws.resolve("src/A.java"), "class A {\n  // MARK one\n}\n");
        Files.writeString(ws.resolve("src/gen/G.java"), "// MARK generated\n");
        Files.writeString(ws.resolve("build/out.txt"), "MARK built\n");
        Files.writeString(ws.resolve("x.log"), "MARK log\n");
        Files.writeString(ws.resolve("keep.log"), "MARK kept\n");
        Files.writeString(ws.resolve(".env"), "MARK secret\n");
        Files.writeString(ws.resolve(".git/config"), "MARK git\n");
        ToolBox box = CodingTools.builder(ws).build().toolBox();
        ToolResult r = call(box, "pattern", "MARK \\w+");
        assertThat(r.text()).isEqualTo("keep.log:1: MARK kept\nsrc/A.java:2:   // MARK one\n2 matches in 2 files");
        assertThat(call(box, "pattern", "mark", "ignore_case", true, "glob", "*.java").text())
                .isEqualTo("src/A.java:2:   // MARK one\n1 match in 1 file");
        assertThat(call(box, "pattern", "nothing").text()).isEqualTo("no match for /nothing/");
        assertThat(call(box, "pattern", "(").text()).startsWith("pattern is not a valid regular expression: ");
    }

    @Test
    void stopsAtTheMatchCap() throws Exception {
        Files.writeString(ws.resolve("many.txt"), "hit\n".repeat(50));
        ToolBox box = CodingTools.builder(ws).maxMatches(5).build().toolBox();
        String text = call(box, "pattern", "hit").text();
        assertThat(text).endsWith("5 matches in 1 file; stopped at the cap (5 matches or 30000 characters): narrow the "
                + "pattern, the path or the glob");
    }
}
