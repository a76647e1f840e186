package dev.shelly.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.chats.ToolResult;
import dev.shelly.testing.ScriptedCompleter;
import dev.shelly.testing.Step;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A {@code delegate} call's results that pass the lead's limit on a tool result keep the entries
 * that fit whole, with a note naming the tasks left out.
 */
@Timeout(30)
class DelegateResultsLimitTest {

    /** A registry whose workers answer {@code done: <their task>}, and a lead with the limit delegating tasks t0, t1, ... */
    private static Agent lead(int limit, int tasks, String answer) {
        ScriptedCompleter workers = ScriptedCompleter.perChat(Step.reply(request -> answer != null ? answer
                : "done: " + request.messages().getLast().text()));
        Registry registry = new Registry().register("worker", "Works",
                () -> Agent.builder("worker").description("Works").completer(workers).build());
        StringBuilder arguments = new StringBuilder("{\"tasks\":[");
        for (int i = 0; i < tasks; i++) {
            arguments.append(i == 0 ? "" : ",").append("{\"agent\":\"worker\",\"task\":\"t").append(i).append("\"}");
        }
        ScriptedCompleter model = ScriptedCompleter.of(Step.toolCall("delegate", arguments.append("]}").toString()),
                Step.reply("ok"));
        return Agent.builder("lead").completer(model).registry(registry).maxToolResultChars(limit).build();
    }

    private static String entries(int count) {
        List<String> entries = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            entries.add("{\"agent\":\"worker\",\"result\":\"done: t" + i + "\"}");
        }
        return "[" + String.join(",", entries) + "]";
    }

    private static ToolResult result(Agent lead) {
        lead.run("go");
        for (Message m : lead.chat().messages()) {
            if (m.role() == Role.TOOL) {
                return m.toolResults().getFirst();
            }
        }
        throw new AssertionError("no tool result in " + lead.chat().messages());
    }

    @Test
    void resultsOverTheLimitKeepTheEntriesThatFitWholeAndNameTheTasksLeftOut() {
        // 40 entries take 1,591 characters; 18 of them (710) leave room for the note under 1,000.
        ToolResult result = result(lead(1_000, 40, null));

        assertThat(result.isError()).isFalse();
        assertThat(result.text()).isEqualTo(entries(18) + "\n\n[truncated: the results of tasks[18] to tasks[39] "
                + "(22 of 40 tasks) are omitted to keep within 1000 characters; delegate fewer tasks at once, or ask "
                + "for shorter answers]");
        assertThat(result.text().length()).isLessThanOrEqualTo(1_000);
    }

    @Test
    void resultsThatFitTheLimitAreKeptWholeEvenWhenTheyLeaveNoRoomForANote() {
        assertThat(entries(40)).hasSize(1_591);

        assertThat(result(lead(1_600, 40, null)).text()).isEqualTo(entries(40));
        assertThat(result(lead(1_591, 40, null)).text()).isEqualTo(entries(40));
    }

    @Test
    void aFirstAnswerTooLongForANoteAfterItIsCutAsAnyToolResultIs() {
        String answer = "x".repeat(400);

        ToolResult result = result(lead(300, 2, answer));

        String whole = "[{\"agent\":\"worker\",\"result\":\"" + answer + "\"},{\"agent\":\"worker\",\"result\":\"" + answer
                + "\"}]";
        assertThat(result.text()).isEqualTo(whole.substring(0, 300) + "\n\n[truncated: " + (whole.length() - 300)
                + " of " + whole.length() + " characters omitted; ask for less, e.g. a narrower query, a smaller range "
                + "or fewer lines]");
    }
}
