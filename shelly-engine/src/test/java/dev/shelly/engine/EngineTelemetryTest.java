package dev.shelly.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.engine.config.AgentConfig;
import dev.shelly.engine.config.EngineConfig;
import dev.shelly.engine.config.ProviderConfig;
import dev.shelly.otel.ShellyTelemetry;
import dev.shelly.testing.ScriptedCompleter;
import dev.shelly.testing.Step;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolOutput;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.MDC;

/** Telemetry switched on from code and from the telemetry: section; MDC ids on the threads of a turn. */
@Timeout(60)
class EngineTelemetryTest {

    private static EngineConfig config() {
        return EngineConfig.builder()
                .provider(ProviderConfig.builder("m", "openai", "gpt-test").apiKey("k").build())
                .agent(AgentConfig.builder("lead").description("Leads").provider("m").toolboxes("app").build())
                .build();
    }

    @Test
    void telemetryGivenInCodeTracesEachTurnWithItsSessionAndPutsTraceIdsBesideTheSessionInTheMdc() throws Exception {
        InMemorySpanExporter spans = InMemorySpanExporter.create();
        try (OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
                .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build())
                .build()) {
            List<Map<String, String>> mdcs = new CopyOnWriteArrayList<>();
            CyclicBarrier both = new CyclicBarrier(2);
            ToolBox app = ToolBox.of(Tool.of("look", "Looks", "{\"type\":\"object\"}", (in, ctx) -> {
                both.await(10, TimeUnit.SECONDS); // two calls at once: each on a thread of its own
                mdcs.add(MDC.getCopyOfContextMap());
                return ToolOutput.text("seen");
            }));
            ScriptedCompleter model = ScriptedCompleter.of(
                    Step.toolCalls(new Step.Call("look", "{}"), new Step.Call("look", "{}")), Step.reply("done"));
            try (Engine engine = Engine.builder().config(config()).completer("m", model).toolbox("app", app)
                    .telemetry(ShellyTelemetry.create(sdk)).build()) {
                assertThat(engine.observers()).hasSize(1);
                Session session = engine.newSession();
                Turn turn = session.send("go");

                SpanData run = spans.getFinishedSpanItems().stream().filter(s -> s.getName().equals("invoke_agent lead"))
                        .findFirst().orElseThrow();
                assertThat(run.getAttributes().get(AttributeKey.stringKey("gen_ai.conversation.id"))).isEqualTo(session.id());
                List<SpanData> tools = spans.getFinishedSpanItems().stream()
                        .filter(s -> s.getName().equals("execute_tool look")).toList();
                assertThat(tools).hasSize(2);
                assertThat(mdcs).hasSize(2).allSatisfy(mdc -> {
                    assertThat(mdc).containsEntry(Session.MDC_SESSION, session.id())
                            .containsEntry(Session.MDC_TURN, turn.id())
                            .containsEntry(ShellyTelemetry.MDC_TRACE_ID, run.getTraceId())
                            .containsEntry(ShellyTelemetry.MDC_RUN, run.getAttributes().get(AttributeKey.stringKey("shelly.run.id")))
                            .containsEntry(ShellyTelemetry.MDC_TRACE_FLAGS, run.getSpanContext().getTraceFlags().asHex());
                    assertThat(tools).extracting(SpanData::getSpanId).contains(mdc.get(ShellyTelemetry.MDC_SPAN_ID));
                });
                assertThat(mdcs).extracting(m -> m.get(ShellyTelemetry.MDC_SPAN_ID)).doesNotHaveDuplicates();
            }
        }
    }

    @Test
    void theTelemetrySectionExportsOverOtlpThroughTheSdksAutoconfiguration(@TempDir Path tmp) throws Exception {
        try (MockWebServer provider = new MockWebServer(); MockWebServer collector = new MockWebServer()) {
            provider.start();
            provider.enqueue(new MockResponse.Builder()
                    .addHeader("Content-Type", "application/json")
                    .body("""
                            {"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-test-2025",
                             "choices":[{"index":0,"message":{"role":"assistant","content":"Paris."},"finish_reason":"stop"}],
                             "usage":{"prompt_tokens":21,"completion_tokens":2,"total_tokens":23}}
                            """)
                    .build());
            collector.setDispatcher(new Dispatcher() {
                @Override
                public MockResponse dispatch(RecordedRequest request) {
                    return new MockResponse.Builder().code(200).build();
                }
            });
            collector.start();
            Path shelly = Files.createDirectories(tmp.resolve(".shelly"));
            Files.writeString(shelly.resolve("config.yaml"), """
                    providers:
                      - { name: gpt, kind: openai, model: gpt-test, base_url: "${BASE}", api_key: k, retry: { max_attempts: 1 } }
                    agents:
                      - { name: geo, description: Knows capitals }
                    telemetry:
                      endpoint: ${OTLP}
                      protocol: http/protobuf
                      service_name: geo-service
                      headers:
                        authorization: Bearer ${OTLP_TOKEN}
                      properties:
                        otel.logs.exporter: none
                    """);
            Map<String, String> env = Map.of("BASE", provider.url("/v1").toString(), "OTLP",
                    collector.url("/").toString().replaceAll("/$", ""), "OTLP_TOKEN", "t0ken");
            String sessionId;
            try (Engine engine = Engine.builder().dir(new ShellyDir(shelly)).environment(env::get).build()) {
                Session session = engine.newSession();
                sessionId = session.id();
                assertThat(session.send("Capital of France?").text()).isEqualTo("Paris.");
            } // closing the engine shuts the SDK down, which exports what it buffered

            List<RecordedRequest> exports = new ArrayList<>();
            for (RecordedRequest r; (r = collector.takeRequest(1, TimeUnit.SECONDS)) != null; ) {
                exports.add(r);
            }
            RecordedRequest traces = exports.stream().filter(r -> r.getTarget().equals("/v1/traces")).findFirst().orElseThrow();
            assertThat(traces.getHeaders().get("authorization")).isEqualTo("Bearer t0ken");
            assertThat(traces.getHeaders().get("Content-Type")).isEqualTo("application/x-protobuf");
            String body = traces.getBody().utf8();
            assertThat(body).contains("geo-service", "invoke_agent geo", "chat gpt-test", "gen_ai.conversation.id", sessionId,
                    "gpt-test-2025", "openai");
            RecordedRequest metrics = exports.stream().filter(r -> r.getTarget().equals("/v1/metrics")).findFirst()
                    .orElseThrow();
            assertThat(metrics.getBody().utf8()).contains("gen_ai.client.operation.duration", "gen_ai.client.token.usage");
        }
    }
}
