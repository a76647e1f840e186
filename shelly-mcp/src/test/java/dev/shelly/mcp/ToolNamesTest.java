package dev.shelly.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ToolNamesTest {

    @Test
    void validNamesStayAsTheyAre() {
        assertThat(ToolNames.map("", List.of("echo", "get-sum", "read_file")))
                .containsExactly(Map.entry("echo", "echo"), Map.entry("get-sum", "get-sum"), Map.entry("read_file", "read_file"));
        assertThat(ToolNames.map("fs_", List.of("read_file"))).containsExactly(Map.entry("fs_read_file", "read_file"));
    }

    @Test
    void otherCharactersBecomeUnderscoresAndLongNamesAreCut() {
        String long70 = "a".repeat(70);
        assertThat(ToolNames.map("", List.of("files.read", "github/create issue", long70))).containsExactly(
                Map.entry("files_read", "files.read"),
                Map.entry("github_create_issue", "github/create issue"),
                Map.entry("a".repeat(64), long70));
    }

    @Test
    void collisionsGetAHashOfTheOriginalWhateverTheOrder() {
        List<String> names = List.of("files.read", "files/read", "files_read");
        Map<String, String> mapped = ToolNames.map("", names);
        assertThat(mapped).containsExactly(
                Map.entry("files_read_601e4eb6", "files.read"),
                Map.entry("files_read_2b733164", "files/read"),
                Map.entry("files_read", "files_read"));
        List<String> reversed = new ArrayList<>(names);
        Collections.reverse(reversed);
        assertThat(ToolNames.map("", reversed)).containsExactlyInAnyOrderEntriesOf(mapped);
        assertThat(mapped.keySet()).allMatch(name -> name.matches("[a-zA-Z0-9_-]{1,64}"));
    }

    @Test
    void emptyAndRepeatedNamesAreLeftOut() {
        assertThat(ToolNames.map("", java.util.Arrays.asList("", null, "x", "x"))).containsExactly(Map.entry("x", "x"));
    }

    @Test
    void prefixes() {
        assertThat(ToolNames.isValidPrefix("")).isTrue();
        assertThat(ToolNames.isValidPrefix("github_")).isTrue();
        assertThat(ToolNames.isValidPrefix("git.hub")).isFalse();
        assertThat(ToolNames.isValidPrefix("p".repeat(33))).isFalse();
    }
}
