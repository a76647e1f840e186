package dev.shelly.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.Usage;
import dev.shelly.testing.ScriptedCompleter;
import dev.shelly.testing.Step;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** {@code shelly run}: one turn for scripts, its exit status by outcome, and its JSON record. */
class RunTest {
    @TempDir
    Path dir;

    @Test
    void jsonRecordsTheSessionAgentReplyToolCallsUsageAndCostOfTheTurn() throws Exception {
        Files.writeString(dir.resolve("note.txt"), "hello\n");
        ScriptedCompleter model = ScriptedCompleter.of(
                Step.toolCall("fs_read", "{\"path\":\"note.txt\"}").withUsage(Usage.of(100, 20))
                        .withModel("claude-sonnet-4-5"),
                Step.reply("It says hello.").withUsage(Usage.of(200, 10)).withModel("claude-sonnet-4-5"));
        Shell shell = Shell.project(dir, model);

        Shell.Result r = shell.run("", "run", "what", "does", "note.txt", "say?", "--json");

        assertThat(r.err()).isEmpty();
        assertThat(r.status()).isZero();
        ObjectNode record = (ObjectNode) Shown.JSON.readTree(r.out());
        assertThat(record.remove("took_ms").isIntegralNumber()).isTrue();
        String turn = record.path("turn").stringValue();
        assertThat(turn).isNotBlank();
        assertThat(record.toString()).isEqualTo("{\"session\":\"" + shell.sessions().getFirst() + "\","
                + "\"agent\":\"assistant\",\"outcome\":\"answered\",\"turn\":\"" + turn + "\","
                + "\"reply\":\"It says hello.\","
                + "\"tool_calls\":[{\"agent\":\"assistant\",\"id\":\"call_1\",\"name\":\"fs_read\","
                + "\"arguments\":{\"path\":\"note.txt\"},\"result\":\"     1\\thello\\n\",\"is_error\":false}],"
                + "\"pending\":[],"
                + "\"usage\":{\"input_tokens\":300,\"output_tokens\":30,\"cache_read_tokens\":0,\"cache_write_tokens\":0,"
                + "\"total_tokens\":330},"
                + "\"cost\":{\"usd\":0.00135,\"unpriced_tokens\":0}}");
        assertThat(model.requests().getFirst().last().orElseThrow().text()).isEqualTo("what does note.txt say?");
    }

    @Test
    void aCallThatNeedsApprovalEndsTheRunWithThreeAndChatAnswersItLater() throws Exception {
        ScriptedCompleter model = ScriptedCompleter.of(
                Step.toolCall("fs_write", "{\"path\":\"out.txt\",\"content\":\"42\"}"),
                Step.reply("Wrote out.txt."));
        Shell shell = Shell.project(dir, model);

        Shell.Result r = shell.run("", "run", "write the answer", "--json");

        assertThat(r.status()).isEqualTo(3);
        String id = shell.sessions().getFirst();
        JsonNode record = Shown.JSON.readTree(r.out());
        assertThat(record.path("outcome").stringValue()).isEqualTo("paused");
        assertThat(record.path("reply").isNull()).isTrue();
        assertThat(record.path("tool_calls").isEmpty()).isTrue();
        JsonNode pending = record.path("pending").get(0);
        assertThat(pending.path("agent").stringValue()).isEqualTo("assistant");
        assertThat(pending.path("id").stringValue()).isEqualTo("call_1");
        assertThat(pending.path("name").stringValue()).isEqualTo("fs_write");
        assertThat(pending.path("arguments").toString()).isEqualTo("{\"path\":\"out.txt\",\"content\":\"42\"}");
        assertThat(pending.path("kind").stringValue()).isEqualTo("approval");
        assertThat(pending.path("reason").stringValue()).isNotBlank();
        assertThat(Files.exists(dir.resolve("out.txt"))).isFalse();

        Shell.Result again = shell.run("", "run", "--session", id, "go on");
        assertThat(again.status()).isEqualTo(1);
        assertThat(again.err()).isEqualTo("error: session " + id + " waits for a decision on its last turn; answer it"
                + " with: shelly chat --session " + id + "\n");

        Shell.Result chat = shell.run("y\n", "chat", "--session", id);
        assertThat(chat.out()).contains("allow? [y]es, [a]lways, [n]o, [e]dit: y\n").contains("Wrote out.txt.");
        assertThat(Files.readString(dir.resolve("out.txt"))).isEqualTo("42");
    }

    @Test
    void withoutJsonTheAnswerGoesToStandardOutputAndTheToolCallsToStandardError() throws Exception {
        Files.writeString(dir.resolve("note.txt"), "hello\n");
        ScriptedCompleter model = ScriptedCompleter.of(
                Step.toolCall("fs_read", "{\"path\":\"note.txt\"}"),
                Step.reply("It says hello."),
                Step.toolCall("fs_delete", "{\"path\":\"note.txt\"}"));
        Shell shell = Shell.project(dir, model);

        Shell.Result answered = shell.run("", "run", "read note.txt");
        assertThat(answered.status()).isZero();
        assertThat(answered.out()).isEqualTo("It says hello.\n");
        assertThat(answered.err()).isEqualTo("  → fs_read {\"path\":\"note.txt\"}\n  ← fs_read: 1 hello\n");

        Shell.Result paused = shell.run("", "run", "--continue", "now delete it");
        String id = shell.sessions().getFirst();
        assertThat(paused.status()).isEqualTo(3);
        assertThat(paused.out()).isEmpty();
        assertThat(paused.err()).isEqualTo("paused: assistant wants to run fs_delete {\"path\":\"note.txt\"}\n"
                + "answer with: shelly chat --session " + id + "\n");
    }

    @Test
    void aFailedTurnExitsWithOneAndItsJsonSaysWhy() throws Exception {
        ScriptedCompleter model = ScriptedCompleter.of(Step.fail(ModelException.builder(ModelException.Kind.OVERLOADED)
                .provider("anthropic").status(529).providerMessage("Overloaded").build()));
        Shell shell = Shell.project(dir, model);

        Shell.Result r = shell.run("", "run", "hello", "--json");

        assertThat(r.status()).isEqualTo(1);
        JsonNode record = Shown.JSON.readTree(r.out());
        assertThat(record.path("outcome").stringValue()).isEqualTo("failed");
        assertThat(record.path("session").stringValue()).isEqualTo(shell.sessions().getFirst());
        assertThat(record.path("error").stringValue()).contains("Overloaded");
        assertThat(r.err()).startsWith("error: ").contains("Overloaded").doesNotContain("\tat ");
        assertThat(r.err().lines()).hasSize(1);
    }

    @Test
    void thePromptComesFromTheWordsOrFromStandardInputAndIsRequired() throws Exception {
        ScriptedCompleter model = ScriptedCompleter.of(Step.reply(request -> "got: " + request.last().orElseThrow().text()));
        Shell shell = Shell.project(dir, model);

        assertThat(shell.run("two lines\nof prompt\n", "run", "-").out()).isEqualTo("got: two lines\nof prompt\n");

        Shell.Result none = shell.run("", "run", "--json");
        assertThat(none.status()).isEqualTo(2);
        assertThat(none.err()).isEqualTo("error: shelly run: needs a prompt: shelly run \"what to do\" (or - to read it"
                + " from standard input) (see shelly run --help)\n");
    }
}
