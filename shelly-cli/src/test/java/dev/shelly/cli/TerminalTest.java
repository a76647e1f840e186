package dev.shelly.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.testing.ScriptedCompleter;
import dev.shelly.testing.Step;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Styles on a terminal that can show them, plain text everywhere else. */
class TerminalTest {
    @TempDir
    Path dir;

    @Test
    void stylesOnlyOnATerminalWithAKnownTermAndWithoutNoColor() {
        assertThat(Terminal.styles(true, Map.of("TERM", "xterm-256color"))).isTrue();
        assertThat(Terminal.styles(true, Map.of("TERM", "dumb"))).isFalse();
        assertThat(Terminal.styles(true, Map.of())).isFalse();
        assertThat(Terminal.styles(true, Map.of("TERM", "xterm", "NO_COLOR", ""))).isFalse();
        assertThat(Terminal.styles(false, Map.of("TERM", "xterm"))).isFalse();
    }

    @Test
    void onAStyledTerminalTheChatPromptsInBoldShowsToolCallsFaintAndDoesNotEchoWhatIsTyped() throws Exception {
        ScriptedCompleter model = ScriptedCompleter.of(Step.toolCall("fs_list", "{}"), Step.reply("Two files."));
        Shell.project(dir, model);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Terminal terminal = new Terminal(new BufferedReader(new StringReader("what is here?\n")),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(new ByteArrayOutputStream(), true,
                StandardCharsets.UTF_8), Map.of("TERM", "xterm"), dir, true, true, new FakeInterrupts());

        int status = new Cli(terminal, b -> b.completer("main", model)).run("chat");

        String text = out.toString(StandardCharsets.UTF_8);
        assertThat(status).isZero();
        assertThat(text).contains("\u001b[1m> \u001b[0m\u001b[2m  → fs_list\u001b[0m\n")
                .contains("Two files.\n\u001b[1m> \u001b[0m\n\u001b[2msession ")
                .doesNotContain("what is here?");
    }
}
