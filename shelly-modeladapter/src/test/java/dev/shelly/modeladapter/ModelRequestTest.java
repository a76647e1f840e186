package dev.shelly.modeladapter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.chats.ToolDefinition;
import dev.shelly.modeladapter.ModelOptions.CacheHints;
import dev.shelly.modeladapter.ModelOptions.Reasoning;
import dev.shelly.modeladapter.ModelOptions.ToolChoice;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class ModelRequestTest {
    private static final ToolDefinition A = new ToolDefinition("a", "", "{\"type\":\"object\"}");
    private static final ToolDefinition B = new ToolDefinition("b", "", "{\"type\":\"object\"}");

    @Test
    void aNullElementIsNamedByItsIndex() {
        List<Message> messages = Arrays.asList(Message.user("x"), null);
        assertThatThrownBy(() -> ModelRequest.of(messages))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("ModelRequest.messages[1] must not be null");
        assertThatThrownBy(() -> ModelRequest.of(List.of(), Arrays.asList(A, null)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("ModelRequest.tools[1] must not be null");
        assertThatThrownBy(() -> ModelRequest.of(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("ModelRequest.messages must not be null");
    }

    @Test
    void aChatsMessagesAreKeptAsTheyAreAndAreNotChangedByLaterAppends() {
        Chat chat = new Chat(List.of(Message.system("s"), Message.user("x")));
        List<Message> messages = chat.messages();
        ModelRequest request = ModelRequest.of(messages);
        assertThat(request.messages()).as("no second copy").isSameAs(messages);
        chat.append(Message.user("later"));
        assertThat(request.messages()).extracting(Message::text).containsExactly("s", "x");
        assertThat(ModelRequest.of(chat.since(1)).messages()).extracting(Message::text).containsExactly("x", "later");
    }

    @Test
    void theListsAreSnapshotsAndAnImmutableListIsNotCopiedAgain() {
        List<Message> live = new ArrayList<>(List.of(Message.user("x")));
        ModelRequest request = ModelRequest.of(live);
        live.add(Message.user("y"));
        assertThat(request.messages()).hasSize(1);
        List<Message> frozen = List.of(Message.user("x"));
        assertThat(ModelRequest.of(frozen).messages()).isSameAs(frozen);
        assertThat(request.options()).isSameAs(ModelOptions.NONE);
        assertThat(request.last()).contains(Message.user("x"));
        assertThat(request.systemPrompt()).isEmpty();
        assertThat(ModelRequest.of(List.of(Message.system("be brief"), Message.user("q"))).systemPrompt())
                .contains("be brief");
    }

    @Test
    void theToolChoiceMustFitTheTools() {
        assertThatThrownBy(() -> ModelRequest.builder().toolChoice(ToolChoice.REQUIRED).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("ModelRequest: tool choice REQUIRED needs at least one tool");
        assertThatThrownBy(() -> ModelRequest.builder().tools(List.of(A, B)).toolChoice(ToolChoice.named("x")).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("ModelRequest: tool choice names tool 'x', which the request does not offer; offered: a, b");
        assertThat(ModelRequest.builder().tools(List.of(A)).toolChoice(ToolChoice.named("a")).build().options()
                .toolChoice()).isEqualTo(ToolChoice.named("a"));
    }

    @Test
    void badOptionsAreNamedWithTheirValue() {
        assertThatThrownBy(() -> ModelOptions.builder().maxTokens(0).build())
                .hasMessage("ModelOptions.maxTokens must be at least 1, was 0");
        assertThatThrownBy(() -> ModelOptions.builder().temperature(-1.0).build())
                .hasMessage("ModelOptions.temperature must be a finite number of zero or more, was -1.0");
        assertThatThrownBy(() -> ModelOptions.builder().topP(1.5).build())
                .hasMessage("ModelOptions.topP must be above 0 and at most 1, was 1.5");
        assertThatThrownBy(() -> ModelOptions.builder().stop("END", "").build())
                .hasMessage("ModelOptions.stop[1] must not be null or empty");
        assertThatThrownBy(() -> ResponseFormat.jsonSchema("my schema", "{}", true))
                .hasMessage("ResponseFormat.jsonSchema name 'my schema' is invalid: use 1 to 64 letters, digits, '_' or '-'");
        assertThatThrownBy(() -> Reasoning.budget(0)).hasMessage("Reasoning.budget tokens must be at least 1, was 0");
        assertThatThrownBy(() -> Reasoning.effort("High"))
                .hasMessage("Reasoning.effort level must be a lower-case word such as low, medium or high, was 'High'");
        assertThatThrownBy(() -> new CacheHints(true, true, Duration.ZERO))
                .hasMessage("CacheHints.ttl must be positive, was PT0S");
    }

    @Test
    void orElseTakesThisValueWhereSetElseTheDefaultsFieldByField() {
        ModelOptions defaults = ModelOptions.builder().maxTokens(4096).temperature(0.5).stop("END")
                .reasoning(Reasoning.effort("low")).cache(CacheHints.ON).build();
        ModelOptions mine = ModelOptions.builder().temperature(0.0).toolChoice(ToolChoice.AUTO).build();
        assertThat(mine.orElse(defaults)).isEqualTo(new ModelOptions(ToolChoice.AUTO, null, 4096, 0.0, null,
                List.of("END"), Reasoning.effort("low"), CacheHints.ON));
        assertThat(ModelOptions.NONE.orElse(defaults)).isSameAs(defaults);
        assertThat(mine.orElse(ModelOptions.NONE)).isSameAs(mine);
        assertThat(mine.orElse(null)).isSameAs(mine);
        assertThat(mine.withCache(CacheHints.OFF).cache()).isEqualTo(CacheHints.OFF);
    }

    @Test
    void theBuilderRoundTrips() {
        ModelRequest request = ModelRequest.builder().message(Message.system("s"), Message.user("u")).tools(List.of(A))
                .toolChoice(ToolChoice.REQUIRED).maxTokens(10).topP(0.5).stop("x").conversationId("chat-1").build();
        assertThat(request.toBuilder().build()).isEqualTo(request);
        assertThat(request.withMessages(List.of(Message.user("v"))).conversationId()).isEqualTo("chat-1");
        assertThat(request.withOptions(null).options()).isSameAs(ModelOptions.NONE);
    }
}
