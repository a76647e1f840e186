package dev.shelly.providers.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.ModelException.Kind;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.RetryPolicy;
import dev.shelly.modeladapter.spi.CompleterFactory;
import dev.shelly.modeladapter.spi.InvalidSettingException;
import dev.shelly.modeladapter.spi.ProviderSettings;
import dev.shelly.provider.spi.AccessToken;
import dev.shelly.providers.Fixtures;
import dev.shelly.providers.internal.WireSupport;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.atomic.AtomicInteger;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import mockwebserver3.junit5.StartStop;
import org.junit.jupiter.api.Test;

/** What Azure OpenAI has of its own: paths, auth, the environment, content filtering, retry-after-ms. */
class AzureOpenAiCompleterTest {
    private static final String KEY = "azure-key-0123456789abcdef";
    private static final String REPLY = """
            {"id":"chatcmpl-A1","object":"chat.completion","model":"gpt-4o-2024-08-06","choices":[{"index":0,
             "message":{"role":"assistant","content":"ok"},"finish_reason":"stop",
             "content_filter_results":{"hate":{"filtered":false,"severity":"safe"}}}],
             "prompt_filter_results":[{"prompt_index":0,"content_filter_results":{"hate":{"filtered":false,"severity":"safe"}}}],
             "usage":{"prompt_tokens":9,"completion_tokens":1,"total_tokens":10}}
            """;
    private static final String FILTERED = """
            {"error":{"message":"The response was filtered due to the prompt triggering Azure OpenAI's content management \
            policy. Please modify your prompt and retry.","type":null,"param":"prompt","code":"content_filter","status":400,
             "innererror":{"code":"ResponsibleAIPolicyViolation","content_filter_result":{
              "hate":{"filtered":false,"severity":"safe"},"jailbreak":{"filtered":true,"detected":true},
              "self_harm":{"filtered":false,"severity":"safe"},"sexual":{"filtered":false,"severity":"safe"},
              "violence":{"filtered":true,"severity":"medium"}}}}}
            """;

    @StartStop
    private final MockWebServer server = new MockWebServer();

    private static final ModelRequest HI = Fixtures.request(Chat.of(Message.user("hi")), List.of());

    private AzureOpenAiCompleter.Builder builder() {
        return AzureOpenAiCompleter.builder().baseUrl(server.url("/").toString()).model("gpt-4o-prod")
                .environment(name -> null).retry(RetryPolicy.none());
    }

    @Test
    void theEnvironmentGivesKeyEndpointAndVersion() throws Exception {
        server.enqueue(Fixtures.json(200, REPLY));
        Map<String, String> env = Map.of("AZURE_OPENAI_API_KEY", KEY, "AZURE_OPENAI_ENDPOINT", server.url("/").toString(),
                "OPENAI_API_VERSION", "2024-10-21");
        Completer azure = AzureOpenAiCompleter.builder().model("gpt-4o-prod").environment(env::get)
                .retry(RetryPolicy.none()).build();

        assertThat(azure.complete(HI).message().text()).isEqualTo("ok");
        RecordedRequest request = server.takeRequest();
        assertThat(request.getUrl().encodedPath() + "?" + request.getUrl().encodedQuery())
                .isEqualTo("/openai/deployments/gpt-4o-prod/chat/completions?api-version=2024-10-21");
        assertThat(request.getHeaders().get("api-key")).isEqualTo(KEY);
        assertThat(azure.toString()).doesNotContain(KEY).isEqualTo("AzureOpenAiCompleter[name=azure-openai, "
                + "deployment=gpt-4o-prod, endpoint=" + server.url("/") + ", path=openai/deployments/gpt-4o-prod/"
                + "chat/completions?api-version=2024-10-21]");
    }

    @Test
    void aTokenSourceSendsABearerTokenAndNeedsNoKey() throws Exception {
        server.enqueue(Fixtures.json(200, REPLY));
        server.enqueue(Fixtures.json(200, REPLY));
        AtomicInteger fetches = new AtomicInteger();
        Completer azure = builder().tokenSource(() -> new AccessToken("entra-" + fetches.incrementAndGet(),
                Instant.now().plus(Duration.ofHours(1)))).build();

        azure.complete(HI);
        azure.complete(HI);
        for (int i = 0; i < 2; i++) {
            RecordedRequest request = server.takeRequest();
            assertThat(request.getHeaders().get("Authorization")).isEqualTo("Bearer entra-1");
            assertThat(request.getHeaders().get("api-key")).isNull();
            assertThat(request.getUrl().encodedPath()).isEqualTo("/openai/v1/chat/completions");
        }
        assertThat(fetches).hasValue(1);
    }

    @Test
    void theContentFilterIsAContentFilterFailureNamingTheCategories() {
        server.enqueue(new MockResponse.Builder().code(400).addHeader("Content-Type", "application/json")
                .addHeader("apim-request-id", "f0e1d2c3").body(FILTERED).build());
        assertThatThrownBy(() -> builder().apiKey(KEY).retry(RetryPolicy.defaults()).build().complete(HI))
                .isInstanceOfSatisfying(ModelException.class, e -> {
                    assertThat(e.kind()).isEqualTo(Kind.CONTENT_FILTER);
                    assertThat(e.retryable()).isFalse();
                    assertThat(e.getMessage()).isEqualTo("azure-openai: content filter (HTTP 400): The response was "
                            + "filtered due to the prompt triggering Azure OpenAI's content management policy. Please "
                            + "modify your prompt and retry.; filtered: jailbreak (detected), violence (medium) "
                            + "[request f0e1d2c3]");
                });
        assertThat(server.getRequestCount()).as("never retried").isEqualTo(1);
    }

    @Test
    void a429sRetryAfterMsIsTheDelay() throws Exception {
        server.enqueue(AzureChatContractTest.azureError(429, "429", "Requests to the ChatCompletions_Create Operation "
                        + "under Azure OpenAI API version 2024-10-21 have exceeded token rate limit.").newBuilder()
                .setHeader("retry-after-ms", "1250").setHeader("retry-after", "2").build());
        server.enqueue(Fixtures.json(200, REPLY));
        List<Duration> slept = new ArrayList<>();
        Completer azure = builder().apiKey(KEY).retry(RetryPolicy.defaults()).sleeper(slept::add).build();

        assertThat(azure.complete(HI).message().text()).isEqualTo("ok");
        assertThat(slept).containsExactly(Duration.ofMillis(1250));
    }

    @Test
    void theResponsesApiOnV1TakesTheDeploymentAsItsModel() throws Exception {
        server.enqueue(Fixtures.json(200, ResponsesContractTest.REPLY));
        builder().apiKey(KEY).api(OpenAiCompleter.Api.RESPONSES).apiVersion("v1").build().complete(HI);
        RecordedRequest request = server.takeRequest();
        assertThat(request.getUrl().encodedPath()).isEqualTo("/openai/v1/responses");
        assertThat(request.getUrl().encodedQuery()).isNull();
        assertThat(WireSupport.JSON.readTree(request.getBody().utf8()).path("model").asString()).isEqualTo("gpt-4o-prod");
    }

    @Test
    void theKindReadsApiAndVersionAndReportsBadOnesByField() throws Exception {
        CompleterFactory factory = ServiceLoader.load(CompleterFactory.class).stream().map(ServiceLoader.Provider::get)
                .filter(f -> f.kind().equals("azure-openai")).findFirst().orElseThrow();
        Map<String, Object> values = new LinkedHashMap<>();
        values.put("model", "gpt-5-mini");
        values.put("base_url", server.url("/").toString());
        values.put("api", "responses");
        values.put("api_version", "2025-04-01-preview");
        ProviderSettings settings = ProviderSettings.of("azure", values, Map.of("AZURE_OPENAI_API_KEY", KEY)::get);
        server.enqueue(Fixtures.json(200, ResponsesContractTest.REPLY));

        factory.create(settings).complete(HI);
        RecordedRequest request = server.takeRequest();
        assertThat(request.getUrl().encodedPath() + "?" + request.getUrl().encodedQuery())
                .isEqualTo("/openai/responses?api-version=2025-04-01-preview");
        assertThat(settings.unread()).isEmpty();

        values.put("api_version", "2024 10 21");
        assertThatThrownBy(() -> factory.create(ProviderSettings.of("azure", values, Map.of("AZURE_OPENAI_API_KEY", KEY)::get)))
                .isInstanceOfSatisfying(InvalidSettingException.class, e -> {
                    assertThat(e.field()).isEqualTo("api_version");
                    assertThat(e.reason()).isEqualTo("expected a version such as 2024-10-21 or v1, got '2024 10 21'");
                });
        values.remove("api_version");
        assertThatThrownBy(() -> factory.create(ProviderSettings.of("azure", values, n -> null)))
                .isInstanceOfSatisfying(InvalidSettingException.class, e -> assertThat(e.field()).isEqualTo("api_key"));
        values.remove("base_url");
        assertThatThrownBy(() -> factory.create(ProviderSettings.of("azure", values, Map.of("AZURE_OPENAI_API_KEY", KEY)::get)))
                .isInstanceOfSatisfying(InvalidSettingException.class, e -> assertThat(e.reason())
                        .isEqualTo("missing required field; set it, or the environment variable AZURE_OPENAI_ENDPOINT"));
    }

    @Test
    void aDeploymentNameThatCannotBeInAPathIsRefused() {
        assertThatThrownBy(() -> builder().apiKey(KEY).model("gpt 4o/../x").build())
                .hasMessage("azure-openai: the deployment name 'gpt 4o/../x' may hold only letters, digits, '.', '_' "
                        + "and '-' (at most 64)");
    }
}
