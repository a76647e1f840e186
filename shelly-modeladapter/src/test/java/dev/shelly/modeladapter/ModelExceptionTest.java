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
}
