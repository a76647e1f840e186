package dev.shelly.modeladapter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.chats.Message;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RoutingCompleterTest {

    @Test
    void eachRequestGoesWhereTheFunctionSays() {
        FallbackCompleterTest.Provider main = new FallbackCompleterTest.Provider("anthropic");
        FallbackCompleterTest.Provider cheap = new FallbackCompleterTest.Provider("openai");
        RoutingCompleter router = RoutingCompleter.of(main,
                r -> r.options().responseFormat() != null ? cheap : null);

        ModelRequest plain = ModelRequest.of(List.of(Message.user("hi")));
        ModelRequest extraction = plain.toBuilder()
                .responseFormat(ResponseFormat.jsonSchema("Answer", "{\"type\":\"object\"}", true)).build();

        assertThat(router.complete(plain).provider()).isEqualTo("anthropic");
        List<Delta> deltas = new ArrayList<>();
        assertThat(router.complete(extraction, deltas::add).provider()).isEqualTo("openai");
        assertThat(main.calls).hasValue(1);
        assertThat(cheap.calls).hasValue(1);
        assertThat(router.target()).isEqualTo(main.target());
    }
}
