package dev.shelly.provider.spi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.ModelException.Kind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ContextOverflowTest {

    private static ModelException overflow(String said) {
        return ModelException.builder(Kind.CONTEXT_LENGTH_EXCEEDED).provider("p").status(400).providerMessage(said)
                .build();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            request (2574 tokens) exceeds the available context size (2048 tokens), try increasing it | 2574 | 2048
            prompt is too long: 208310 tokens > 200000 maximum | 208310 | 200000
            input length and `max_tokens` exceed context limit: 178959 + 64000 > 200000, decrease input length or `max_tokens` and try again | 242959 | 200000
            The input token count (1200000) exceeds the maximum number of tokens allowed (1048576). | 1200000 | 1048576
            This model's maximum context length is 4097 tokens. However, your messages resulted in 4294 tokens. | 4294 | 4097
            This model's maximum context length is 131072 tokens. However, you requested 156632 tokens (152536 in the messages, 4096 in the completion). | 156632 | 131072
            """)
    void readsTheRequestsSizeAndTheWindowFromEveryProvidersWords(String said, long request, long window) {
        ModelException e = ContextOverflow.complete(overflow(said), "m1");
        assertThat(e.requestTokens()).hasValue(request);
        assertThat(e.contextWindow()).hasValue(window);
        assertThat(e.model()).contains("m1");
        assertThat(e.getMessage()).isEqualTo("p: context length exceeded (HTTP 400): the request (" + request
                + " tokens) does not fit the context window of model m1 (" + window + " tokens): " + said);
    }

    @Test
    void wordsWithoutNumbersGiveTheModelOnly() {
        ModelException e = ContextOverflow.complete(overflow("Your input exceeds the context window of this model."), "m1");
        assertThat(e.requestTokens()).isEmpty();
        assertThat(e.contextWindow()).isEmpty();
        assertThat(e.getMessage()).isEqualTo("p: context length exceeded (HTTP 400): the request does not fit the "
                + "context window of model m1: Your input exceeds the context window of this model.");
    }

    @Test
    void anotherKindOrAFailureThatSaysItAllIsReturnedAsItIs() {
        ModelException other = ModelException.builder(Kind.INVALID_REQUEST).providerMessage("prompt is too long: 5 tokens > 4 maximum")
                .build();
        assertThat(ContextOverflow.complete(other, "m1")).isSameAs(other);
        ModelException known = ContextOverflow.complete(overflow("prompt is too long: 5 tokens > 4 maximum"), "m1");
        assertThat(ContextOverflow.complete(known, "m2")).isSameAs(known);
        ModelException unknownModel = overflow("too long");
        assertThat(ContextOverflow.complete(unknownModel, null)).isSameAs(unknownModel);
    }
}
