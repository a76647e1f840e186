package dev.shelly.modeladapter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.chats.ShellyException;
import java.io.IOException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ModelExceptionTest {

    @Test
    void messageNamesProviderKindStatusAndProviderMessage() {
        ModelException e = ModelException.builder(ModelException.Kind.RATE_LIMITED)
                .provider("anthropic")
                .status(429)
                .providerMessage("Number of request tokens has exceeded your per-minute rate limit")
                .requestId("req_011CSHoEeqs5C35K2UUqR7Fy")
                .retryAfter(Duration.ofSeconds(7))
                .build();
        assertThat(e).isInstanceOf(ShellyException.class);
        assertThat(e.getMessage()).isEqualTo("anthropic: rate limited (HTTP 429): Number of request tokens has "
                + "exceeded your per-minute rate limit [request req_011CSHoEeqs5C35K2UUqR7Fy] (retry after 7000 ms)");
        assertThat(e.kind()).isEqualTo(ModelException.Kind.RATE_LIMITED);
        assertThat(e.status()).isEqualTo(429);
        assertThat(e.retryAfter()).contains(Duration.ofSeconds(7));
        assertThat(e.requestId()).contains("req_011CSHoEeqs5C35K2UUqR7Fy");
        assertThat(e.provider()).contains("anthropic");
        assertThat(e.retryable()).isTrue();
    }

    @Test
    void retryableFollowsTheKindUnlessOverridden() {
        assertThat(ModelException.builder(ModelException.Kind.AUTHENTICATION).build().retryable()).isFalse();
        assertThat(ModelException.builder(ModelException.Kind.QUOTA_EXCEEDED).build().retryable()).isFalse();
        assertThat(ModelException.builder(ModelException.Kind.OVERLOADED).build().retryable()).isTrue();
        assertThat(ModelException.builder(ModelException.Kind.SERVER).retryable(false).build().retryable()).isFalse();
    }

    @Test
    void networkFailureKeepsItsCause() {
        IOException cause = new IOException("connection reset");
        ModelException e = ModelException.builder(ModelException.Kind.NETWORK)
                .provider("openai").providerMessage("connection reset").cause(cause).build();
        assertThat(e.getCause()).isSameAs(cause);
        assertThat(e.getMessage()).isEqualTo("openai: network: connection reset");
        assertThat(e.status()).isZero();
        assertThat(e.retryAfter()).isEmpty();
        assertThat(e.requestId()).isEmpty();
    }

    @Test
    void aContextOverflowNamesTheModelAndWhatIsKnownOfTheSizes() {
        ModelException known = ModelException.builder(ModelException.Kind.CONTEXT_LENGTH_EXCEEDED).provider("llama")
                .status(400).model("qwen3").requestTokens(2574).contextWindow(2048).providerMessage("too long").build();
        assertThat(known.getMessage()).isEqualTo("llama: context length exceeded (HTTP 400): the request (2574 tokens) "
                + "does not fit the context window of model qwen3 (2048 tokens): too long");
        assertThat(known.requestTokens()).hasValue(2574);
        assertThat(known.contextWindow()).hasValue(2048);
        assertThat(ModelException.builder(ModelException.Kind.CONTEXT_LENGTH_EXCEEDED).provider("p").build().getMessage())
                .isEqualTo("p: context length exceeded: the request does not fit the context window of the model");
    }

    @Test
    void toBuilderKeepsEveryFactAndAdviceEndsTheMessage() {
        ModelException e = ModelException.builder(ModelException.Kind.CONTEXT_LENGTH_EXCEEDED).provider("p").status(400)
                .model("m").requestTokens(9).contextWindow(8).providerMessage("said").requestId("r1")
                .retryAfter(Duration.ofSeconds(1)).retryable(true).build();
        ModelException copy = e.toBuilder().advice("give the agent a context policy").build();
        assertThat(copy.getMessage()).isEqualTo(e.getMessage() + "; give the agent a context policy");
        assertThat(copy.advice()).contains("give the agent a context policy");
        assertThat(copy.toBuilder().advice(null).build().getMessage()).isEqualTo(e.getMessage());
        assertThat(copy.retryable()).isTrue();
        assertThat(copy.retryAfter()).contains(Duration.ofSeconds(1));
        assertThat(copy.model()).contains("m");
    }
}
