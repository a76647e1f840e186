package dev.shelly.agent.workflow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.groups.Tuple.tuple;

import dev.shelly.agent.Agent;
import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.ResponseFormat;
import dev.shelly.modeladapter.StopReason;
import dev.shelly.modeladapter.Usage;
import dev.shelly.testing.ScriptedCompleter;
import dev.shelly.testing.Step;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class LlmCoordinatorTest {

    private static final String PROMPT = """
            You are a team coordinator. Based on the conversation, decide which team member(s) should act next.

            Team members:
            - "researcher" (role: research) — Searches the web for information
            - "writer" (role: write) — Writes articles and summaries
            - "reviewer" (role: review)

            Respond with ONLY a JSON object (no markdown, no explanation):
            {"members": ["researcher"], "done": false}

            Name several members to have them work at the same time. When the work is complete, respond:
            {"members": [], "done": true}""";

    /** A team of three agents, each answering once, coordinated by the given coordinator. */
    private static Team team(Coordinator coordinator) {
        return Team.builder("smart-team")
                .member(Agent.builder("researcher").completer(ScriptedCompleter.of(Step.reply("Findings: X"))).build(),
                        "research", "Searches the web for information")
                .member(Agent.builder("writer").completer(ScriptedCompleter.of(Step.reply("Article: X"))).build(),
                        "write", "Writes articles and summaries")
                .member(Agent.builder("reviewer").completer(ScriptedCompleter.of(Step.reply("Looks good"))).build(),
                        "review", "")
                .coordinator(coordinator)
                .build();
    }

    @Test
    void theModelDecidesWhoActsNextFromThePinnedPromptAndTheRecentConversation() {
        ScriptedCompleter brain = ScriptedCompleter.of(
                Step.reply("{\"members\": [\"researcher\"], \"done\": false}"),
                Step.reply("{\"members\": [\"writer\"], \"done\": false}"),
                Step.reply("{\"members\": [\"reviewer\"], \"done\": false}"),
                Step.reply("{\"members\": [], \"done\": true}"));
        Team team = team(Coordinator.llm(brain));

        Message result = team.run("Write about X");

        assertThat(result.text()).isEqualTo("Looks good");
        assertThat(team.chat().messages()).extracting(Message::sender)
                .containsExactly("user", "researcher", "writer", "reviewer");
        List<ScriptedCompleter.Request> requests = brain.requests();
        assertThat(requests).hasSize(4);
        assertThat(requests.get(0).tools()).isEmpty();
        assertThat(requests.get(0).messages()).extracting(Message::sender, Message::role, Message::text).containsExactly(
                tuple("system", Role.SYSTEM, PROMPT),
                tuple("coordinator", Role.USER, "Recent conversation:\n[user] Write about X\n\nWho should act next?"));
        assertThat(requests.get(3).messages().get(1).text()).isEqualTo("""
                Recent conversation:
                [user] Write about X
                [researcher] Findings: X
                [writer] Article: X
                [reviewer] Looks good

                Who should act next?""");
    }

    @Test
    void severalNamedMembersRunConcurrentlyInTheOrderNamed() {
        ScriptedCompleter brain = ScriptedCompleter.of(
                Step.reply("{\"members\": [\"writer\", \"researcher\"], \"done\": false}"),
                Step.reply("{\"members\": [], \"done\": true}"));
        Team team = team(Coordinator.llm(brain));

        team.run("go");

        assertThat(team.chat().messages()).extracting(Message::sender).containsExactly("user", "writer", "researcher");
    }

    @Test
    void theModelSeesOnlyTheWindowOfTheSharedChat() {
        Chat shared = new Chat();
        for (int i = 1; i <= 5; i++) {
            shared.append(Message.user("message " + i));
        }
        shared.append(Message.text("user", Role.USER, "  "));
        LlmCoordinator coordinator = new LlmCoordinator(ScriptedCompleter.of(), 10, 3);

        assertThat(coordinator.conversation(shared))
                .isEqualTo("Recent conversation:\n[user] message 4\n[user] message 5\n\nWho should act next?");
        assertThat(coordinator.conversation(new Chat()))
                .isEqualTo("Recent conversation:\n(no messages yet)\n\nWho should act next?");
        assertThat(coordinator.window()).isEqualTo(3);
        assertThat(((LlmCoordinator) Coordinator.llm(ScriptedCompleter.of())).window()).isEqualTo(20);
    }

    @Test
    void anInvalidAnswerIsRetriedOnceWithWhatWasWrong() {
        ScriptedCompleter brain = ScriptedCompleter.of(
                Step.reply("The researcher should go first."),
                Step.reply("{\"members\": [\"researcher\"], \"done\": false}"),
                Step.reply("```json\n{\"members\": [], \"done\": true}\n```"));
        Team team = team(Coordinator.llm(brain));

        team.run("go");

        List<Message> retry = brain.requests().get(1).messages();
        assertThat(retry).extracting(Message::role)
                .containsExactly(Role.SYSTEM, Role.USER, Role.ASSISTANT, Role.USER);
        assertThat(retry.get(2).text()).isEqualTo("The researcher should go first.");
        assertThat(retry.get(3).text()).startsWith("Your answer was not valid: the answer is not valid JSON (")
                .endsWith("). Respond with ONLY a JSON object such as {\"members\": [\"researcher\"], \"done\": false} "
                        + "or {\"members\": [], \"done\": true}.");
        assertThat(team.chat().messages()).extracting(Message::sender).containsExactly("user", "researcher");
        assertThat(brain.callCount()).isEqualTo(3);
    }

    @Test
    void anUnknownMemberIsInvalidAndTwoInvalidAnswersFailTheTeam() {
        ScriptedCompleter brain = ScriptedCompleter.of(
                Step.reply("{\"members\": [\"editor\"], \"done\": false}"),
                Step.reply("{\"members\": [\"editor\"], \"done\": false}"));
        Team team = team(Coordinator.llm(brain));

        assertThatThrownBy(() -> team.run("go")).isInstanceOf(TeamException.class)
                .hasMessage("the LLM coordinator of team 'smart-team' gave no valid answer at step 0, after a retry: "
                        + "there is no member \"editor\"; the members are \"researcher\", \"writer\", \"reviewer\"; "
                        + "its answer was '{\"members\": [\"editor\"], \"done\": false}'");
        assertThat(brain.requests().get(1).lastMessage().text()).isEqualTo("Your answer was not valid: there is no member "
                + "\"editor\"; the members are \"researcher\", \"writer\", \"reviewer\". Respond with ONLY a JSON object "
                + "such as {\"members\": [\"researcher\"], \"done\": false} or {\"members\": [], \"done\": true}.");
        assertThat(team.chat().messages()).hasSize(1);
        assertThat(brain.requests()).allSatisfy(r -> assertThat(((ResponseFormat.JsonSchema) r.options().responseFormat())
                .schema()).contains("\"enum\":[\"researcher\",\"writer\",\"reviewer\"]"));
    }

    @Test
    void eachKindOfInvalidAnswerSaysWhatIsWrong() {
        List<String> names = List.of("a", "b");
        assertThat(LlmCoordinator.parse("", names).problem())
                .isEqualTo("the answer is empty; a JSON object was expected");
        assertThat(LlmCoordinator.parse("[\"a\"]", names).problem()).isEqualTo("$ must be an object, got an array");
        assertThat(LlmCoordinator.parse("{\"members\": [\"a\"], \"done\": false} and more", names).problem())
                .startsWith("the answer is not valid JSON (");
        assertThat(LlmCoordinator.parse("{\"done\": false}", names).problem()).isEqualTo("$.members is required");
        assertThat(LlmCoordinator.parse("{\"members\": [\"a\"]}", names).problem()).isEqualTo("$.done is required");
        assertThat(LlmCoordinator.parse("{\"members\": [0], \"done\": \"no\"}", names).problem())
                .isEqualTo("$.members[0] must be a string, got a number; $.done must be a boolean, got a string");
        assertThat(LlmCoordinator.parse("{\"members\": [\"a\", \"a\"], \"done\": false}", names).problem())
                .isEqualTo("member \"a\" is named twice");
        assertThat(LlmCoordinator.parse("{\"members\": [\"a\"], \"done\": true}", names).problem())
                .isEqualTo("\"done\" is true but \"members\" is not empty; either name who acts next with "
                        + "\"done\": false, or name nobody with \"done\": true");
        assertThat(LlmCoordinator.parse("{\"members\": [], \"done\": false}", names).problem())
                .isEqualTo("\"members\" is empty but \"done\" is false; name at least one member, or say \"done\": true");
        assertThat(LlmCoordinator.parse(" {\"members\": [\"b\", \"a\"], \"done\": false} ", names).selection())
                .isEqualTo(Selection.of("b", "a"));
    }

    @Test
    void afterMaxRoundsTheModelMustSayDone() {
        ScriptedCompleter brain = ScriptedCompleter.of(
                Step.reply("{\"members\": [\"researcher\"], \"done\": false}"),
                Step.reply("{\"members\": [\"writer\"], \"done\": false}"));
        Team team = team(Coordinator.llm(brain, 1, 20));

        assertThatThrownBy(() -> team.run("go")).isInstanceOf(MaxRoundsException.class)
                .hasMessage("team 'smart-team' reached its limit of 1 step without its coordinator saying done");
        assertThat(team.chat().messages()).extracting(Message::sender).containsExactly("user", "researcher");

        ScriptedCompleter finishing = ScriptedCompleter.of(
                Step.reply("{\"members\": [\"researcher\"], \"done\": false}"),
                Step.reply("{\"members\": [], \"done\": true}"));
        assertThat(team(Coordinator.llm(finishing, 1, 20)).run("go").sender()).isEqualTo("researcher");
    }

    @Test
    void aModelFailureFailsTheTeamNamingTheCoordinator() {
        ModelException down = ModelException.builder(ModelException.Kind.OVERLOADED).providerMessage("busy").build();
        Team team = team(Coordinator.llm(ScriptedCompleter.of(Step.fail(down))));

        assertThatThrownBy(() -> team.run("go")).isInstanceOf(TeamException.class)
                .hasMessage("the coordinator of team 'smart-team' failed at step 0: " + down.getMessage()).hasCause(down);
    }

    @Test
    void everyStepAsksForTheDecisionSchemaAsStructuredOutput() {
        ScriptedCompleter brain = ScriptedCompleter.of(
                Step.reply("{\"members\": [\"researcher\"]}"),
                Step.reply("{\"members\": [\"researcher\"], \"done\": false}"),
                Step.reply("{\"members\": [], \"done\": true}"));
        Team team = team(Coordinator.llm(brain));

        team.run("go");

        ResponseFormat expected = ResponseFormat.jsonSchema("Decision", """
                {"type":"object","properties":{"members":{"type":"array","items":{"type":"string",\
                "enum":["researcher","writer","reviewer"]}},"done":{"type":"boolean"}},"required":["members","done"],\
                "additionalProperties":false}""", true);
        assertThat(brain.requests()).extracting(r -> r.options().responseFormat())
                .containsExactly(expected, expected, expected);
        assertThat(brain.requests().get(1).lastMessage().text()).isEqualTo("Your answer was not valid: "
                + "$.done is required. Respond with ONLY a JSON object such as {\"members\": [\"researcher\"], "
                + "\"done\": false} or {\"members\": [], \"done\": true}.");
    }

    @Test
    void aRefusalFailsTheTeamWithoutARetry() {
        ScriptedCompleter brain = ScriptedCompleter.of(Step.respond(request -> new ModelResponse(
                Message.text("model", Role.ASSISTANT, "I won't decide that."), Usage.ZERO, StopReason.REFUSAL, null,
                null, null, null)));
        Team team = team(Coordinator.llm(brain));

        assertThatThrownBy(() -> team.run("go")).isInstanceOf(TeamException.class)
                .hasMessage("the LLM coordinator of team 'smart-team' gave no valid answer at step 0: the model "
                        + "refused: I won't decide that.; its answer was 'I won't decide that.'");
        assertThat(brain.callCount()).isEqualTo(1);
    }
}
