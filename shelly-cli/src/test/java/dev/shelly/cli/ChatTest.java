package dev.shelly.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.mcp.McpElicitation;
import dev.shelly.mcp.McpServerCall;
import dev.shelly.mcp.McpToolServer;
import dev.shelly.testing.ScriptedCompleter;
import dev.shelly.testing.Step;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolOutput;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code shelly chat} driven through a pipe: answers, approvals asked inline, resuming, Ctrl-C. */
class ChatTest {
    @TempDir
    Path dir;

    @Test
    void aToolCallWaitsForTheApprovalTypedAfterItAndTheAnswerFollows() throws Exception {
        ScriptedCompleter model = ScriptedCompleter.of(
                Step.toolCall("fs_write", "{\"path\":\"note.txt\",\"content\":\"hello\"}"),
                Step.reply("I wrote note.txt."));
        Shell shell = Shell.project(dir, model);

        Shell.Result r = shell.run("write a note\ny\n/exit\n", "chat");

        String id = shell.sessions().getFirst();
        assertThat(r.err()).isEmpty();
        assertThat(r.status()).isZero();
        assertThat(r.out()).isEqualTo("""
                agent assistant, session %1$s
                /exit or end of input quits; Ctrl-C stops a reply; /help for more
                > write a note
                ? assistant wants to run fs_write {"path":"note.txt","content":"hello"}
                allow? [y]es, [a]lways, [n]o, [e]dit: y
                  → fs_write {"path":"note.txt","content":"hello"}
                  ← fs_write: created note.txt (5 bytes)
                I wrote note.txt.
                > /exit
                session %1$s saved; go on with: shelly chat --session %1$s
                """.formatted(id));
        assertThat(Files.readString(dir.resolve("note.txt"))).isEqualTo("hello");
    }

    @Test
    void aDelegationShowsAsItsTaskAndTheOtherAgentsAnswerWithTheChildsToolCallsIndented() throws Exception {
        Files.writeString(dir.resolve("CHANGES.md"), "fixed the parser\n");
        ScriptedCompleter model = ScriptedCompleter.of(
                Step.delegate("reviewer", "review the change"),
                Step.toolCall("fs_read", "{\"path\":\"CHANGES.md\"}"),
                Step.reply("Looks fine."),
                Step.reply("The reviewer says it looks fine."));
        Shell shell = Shell.project(dir, model);
        shell.config(Shell.CONFIG.replace("    skills: []\n", "    skills: []\n    coding:\n      workspace: .\n"));

        Shell.Result r = shell.run("review my change\n", "chat");

        assertThat(r.out()).contains("""
                > review my change
                  → reviewer: review the change
                    [reviewer] → fs_read {"path":"CHANGES.md"}
                    [reviewer] ← fs_read: 1 fixed the parser
                  ← reviewer: Looks fine.
                The reviewer says it looks fine.
                """);
    }

    @Test
    void aQuestionTheModelAsksIsAnsweredWithTheNextLine() throws Exception {
        ScriptedCompleter model = ScriptedCompleter.of(
                Step.toolCall("ask_user", "{\"question\":\"Which file should I read?\"}"),
                Step.reply(request -> "You chose " + request.messages().getLast().toolResults().getFirst().text()));
        Shell shell = Shell.project(dir, model);
        shell.config(Shell.CONFIG.replace("    coding:\n", "    approval: { ask_user: true }\n    coding:\n"));

        Shell.Result r = shell.run("read something\nnotes.md\n", "chat");

        assertThat(r.out()).contains("""
                > read something
                ? assistant asks: Which file should I read?
                answer: notes.md
                """).contains("\nYou chose notes.md\n");
    }

    @Test
    void anMcpServersQuestionIsAnsweredInlineWhileItsToolRunsAndCheckedAgainstTheForm() throws Exception {
        Map<String, Object> form = Map.of("type", "object", "properties", Map.of("size", Map.of("type", "string",
                "enum", List.of("small", "large"))), "required", List.of("size"));
        ToolBox shop = ToolBox.of(Tool.of("order", "Orders a coffee", "{\"type\":\"object\"}", (in, ctx) -> {
            McpElicitation.Answer answer = McpServerCall.of(ctx).orElseThrow().elicit("Which size?", form, Duration.ofSeconds(30));
            return ToolOutput.text(answer.action() + " " + answer.content());
        }));
        ScriptedCompleter model = ScriptedCompleter.of(Step.toolCall("order", "{}"),
                Step.reply(request -> "Ordered: " + request.messages().getLast().toolResults().getFirst().text()));
        try (McpToolServer server = McpToolServer.builder(shop).build().startHttp(0)) {
            Shell shell = Shell.project(dir, model);
            shell.config(Shell.CONFIG.replace("agents:\n", "mcp_servers:\n  - name: shop\n    url: " + server.url().orElseThrow()
                    + "\n    elicitation: true\nagents:\n").replace("    coding:\n", "    toolboxes: [shop]\n    coding:\n"));

            Shell.Result r = shell.run("a coffee please\nhuge\nLarge\n", "chat");

            assertThat(r.err()).isEmpty();
            assertThat(r.out()).contains("""
                    > a coffee please
                      → order
                    ? assistant asks: MCP server 'shop' asks: Which size? (one of: small, large)
                    answer: huge
                    ? assistant asks: That answer does not fit: size must be one of [small, large], was huge.
                    MCP server 'shop' asks: Which size? (one of: small, large)
                    answer: Large
                      ← order: ACCEPT {size=large}
                    Ordered: ACCEPT {size=large}
                    """);
        }
    }

    @Test
    void quittingAndComingBackWithContinueOrSessionGoesOnWithTheSameConversation() throws Exception {
        ScriptedCompleter model = ScriptedCompleter.of(
                Step.reply("Noted: the build uses Maven."),
                Step.reply(request -> "You told me " + request.messages().size() + " messages ago: "
                        + request.messages().get(1).text()),
                Step.reply(request -> "Still here, " + turns(request.messages()) + " turns in."));
        Shell shell = Shell.project(dir, model);

        Shell.Result first = shell.run("the build uses Maven\n", "chat");
        String id = shell.sessions().getFirst();
        assertThat(first.out()).endsWith("> the build uses Maven\nNoted: the build uses Maven.\nsession " + id
                + " saved; go on with: shelly chat --session " + id + "\n");

        Shell.Result second = shell.run("what did I say?\n", "chat", "--continue");
        assertThat(second.status()).isZero();
        assertThat(second.out()).startsWith("agent assistant, session " + id + ", 1 turn so far\n")
                .contains("> what did I say?\nYou told me 4 messages ago: the build uses Maven\n");

        Shell.Result third = shell.run("still there?\n", "chat", "--session", id.substring(0, 20));
        assertThat(third.out()).startsWith("agent assistant, session " + id + ", 2 turns so far\n")
                .contains("Still here, 3 turns in.");
        assertThat(shell.sessions()).containsExactly(id);
    }

    @Test
    void ctrlCStopsTheReplyBeingWrittenAndTheChatReadsTheNextLine() throws Exception {
        ScriptedCompleter model = ScriptedCompleter.of(Step.hang(), Step.reply("A quick answer."));
        Shell shell = Shell.project(dir, model);
        // Lines typed one by one: the second only after Ctrl-C.
        java.io.PipedOutputStream keys = new java.io.PipedOutputStream();
        shell.input(new java.io.PipedInputStream(keys));

        CompletableFuture<Shell.Result> chat = CompletableFuture.supplyAsync(() -> shell.run(null, "chat"));
        keys.write("a long question\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        keys.flush();
        assertThat(model.awaitCalls(1, Duration.ofSeconds(10))).isTrue();
        shell.interrupts.press(Duration.ofSeconds(10));
        keys.write("a short one\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        keys.close();

        Shell.Result r = chat.get(30, TimeUnit.SECONDS);
        assertThat(r.status()).isZero();
        assertThat(r.out()).contains("> a long question\n[cancelled]\n> a short one\nA quick answer.\n");
    }

    @Test
    void anApprovalCanBeForTheSessionRefusedWithAReasonOrGivenOtherArguments() throws Exception {
        ScriptedCompleter model = ScriptedCompleter.of(
                Step.toolCall("fs_write", "{\"path\":\"a.txt\",\"content\":\"1\"}"),
                Step.toolCall("fs_write", "{\"path\":\"b.txt\",\"content\":\"2\"}"),
                Step.reply("Both written."),
                Step.toolCall("fs_delete", "{\"path\":\"a.txt\"}"),
                Step.reply(request -> "Told: " + request.messages().getLast().toolResults().getFirst().text()),
                Step.toolCall("fs_write", "{\"path\":\"c.txt\",\"content\":\"3\"}"),
                Step.reply("Written without asking."),
                Step.toolCall("fs_delete", "{\"path\":\"a.txt\"}"),
                Step.reply("Deleted what you chose."));
        Shell shell = Shell.project(dir, model);

        Shell.Result r = shell.run("""
                write two files
                maybe
                a
                delete a.txt
                n keep it, it is the log
                write c
                delete a.txt after all
                e
                {"path":"b.txt"
                e
                {"path":"b.txt"}
                """, "chat");

        assertThat(r.status()).isZero();
        assertThat(r.out()).contains("""
                > write two files
                ? assistant wants to run fs_write {"path":"a.txt","content":"1"}
                allow? [y]es, [a]lways, [n]o, [e]dit: maybe
                  answer y, a, n or e
                allow? [y]es, [a]lways, [n]o, [e]dit: a
                  → fs_write {"path":"a.txt","content":"1"}
                  ← fs_write: created a.txt (1 bytes)
                  → fs_write {"path":"b.txt","content":"2"}
                  ← fs_write: created b.txt (1 bytes)
                Both written.
                > delete a.txt
                ? assistant wants to run fs_delete {"path":"a.txt"}
                allow? [y]es, [a]lways, [n]o, [e]dit: n keep it, it is the log
                  ← fs_delete failed: tool 'fs_delete' was not run: keep it, it is the log
                Told: tool 'fs_delete' was not run: keep it, it is the log
                > write c
                  → fs_write {"path":"c.txt","content":"3"}
                  ← fs_write: created c.txt (1 bytes)
                Written without asking.
                > delete a.txt after all
                ? assistant wants to run fs_delete {"path":"a.txt"}
                allow? [y]es, [a]lways, [n]o, [e]dit: e
                arguments (JSON): {"path":"b.txt"
                  that is not a JSON object; answer again
                allow? [y]es, [a]lways, [n]o, [e]dit: e
                arguments (JSON): {"path":"b.txt"}
                """).endsWith("Deleted what you chose.\nsession " + shell.sessions().getFirst() + " saved; go on with: "
                        + "shelly chat --session " + shell.sessions().getFirst() + "\n");
        assertThat(Files.exists(dir.resolve("a.txt"))).isTrue();
        assertThat(Files.exists(dir.resolve("b.txt"))).isFalse();
        assertThat(Files.readString(dir.resolve("c.txt"))).isEqualTo("3");
    }

    @Test
    void theEndOfInputWhileACallWaitsLeavesItWaitingForTheNextChat() throws Exception {
        ScriptedCompleter model = ScriptedCompleter.of(
                Step.toolCall("fs_write", "{\"path\":\"late.txt\",\"content\":\"x\"}"),
                Step.reply("Written at last."));
        Shell shell = Shell.project(dir, model);

        Shell.Result first = shell.run("write late.txt\n", "chat");
        assertThat(first.out()).contains("the turn waits for your decision\nsession ");
        assertThat(Files.exists(dir.resolve("late.txt"))).isFalse();

        Shell.Result second = shell.run("y\n", "chat", "--continue");
        assertThat(second.out()).contains("""
                ? assistant wants to run fs_write {"path":"late.txt","content":"x"}
                allow? [y]es, [a]lways, [n]o, [e]dit: y
                """).contains("Written at last.");
        assertThat(Files.readString(dir.resolve("late.txt"))).isEqualTo("x");
    }

    @Test
    void agentPicksWhoAnswersANewSession() throws Exception {
        ScriptedCompleter model = ScriptedCompleter.of(Step.reply(request -> request.systemPrompt().orElse("")));
        Shell shell = Shell.project(dir, model);

        Shell.Result r = shell.run("look at this\n", "chat", "--agent", "reviewer");

        assertThat(r.out()).startsWith("agent reviewer, session ").contains("Review the change you are given.");
    }

    @Test
    void anUnknownAgentOrSessionIsOneLineThatSaysWhatThereIs() throws Exception {
        Shell shell = Shell.project(dir, ScriptedCompleter.of());

        Shell.Result agent = shell.run("", "chat", "--agent", "nobody");
        assertThat(agent.status()).isEqualTo(1);
        assertThat(agent.out()).isEmpty();
        assertThat(agent.err()).isEqualTo("error: no agent 'nobody'; configured agents: assistant, reviewer\n");

        Shell.Result session = shell.run("", "chat", "--session", "20990101-000000-nothing");
        assertThat(session.status()).isEqualTo(1);
        assertThat(session.err()).isEqualTo("error: no saved session '20990101-000000-nothing'; shelly sessions lists the"
                + " saved ones\n");

        Shell.Result none = shell.run("", "chat", "--continue");
        assertThat(none.err()).isEqualTo("error: no saved session to continue in " + dir.resolve(".shelly/sessions")
                + "; start one with: shelly chat\n");
    }

    private static long turns(java.util.List<Message> messages) {
        return messages.stream().filter(m -> m.role() == Role.USER).count();
    }
}
