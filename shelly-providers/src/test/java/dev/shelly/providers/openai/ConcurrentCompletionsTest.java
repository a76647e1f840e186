package dev.shelly.providers.openai;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.RetryPolicy;
import dev.shelly.modeladapter.Usage;
import dev.shelly.modeladapter.UsageTracker;
import dev.shelly.providers.Fixtures;
import dev.shelly.providers.internal.WireSupport;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import mockwebserver3.junit5.StartStop;
import org.junit.jupiter.api.RepeatedTest;

/** One completer shared by many threads: every caller gets its own reply, and all usage is counted. */
class ConcurrentCompletionsTest {
    @StartStop
    private final MockWebServer server = new MockWebServer();

    /** Echoes the last user message back, streamed or not, with usage 1 in, 1 out. */
    private static final class Echo extends Dispatcher {
        @Override
        public MockResponse dispatch(RecordedRequest request) {
            var body = WireSupport.JSON.readTree(request.getBody().utf8());
            var messages = body.get("messages");
            String said = messages.get(messages.size() - 1).get("content").asString();
            String quoted = WireSupport.JSON.writeValueAsString(said);
            String usage = "{\"prompt_tokens\":1,\"completion_tokens\":1,\"total_tokens\":2}";
            if (body.path("stream").asBoolean(false)) {
                return new MockResponse.Builder().addHeader("Content-Type", "text/event-stream")
                        .body("data: {\"id\":\"s\",\"choices\":[{\"index\":0,\"delta\":{\"content\":" + quoted + "}}]}\n\n"
                                + "data: {\"id\":\"s\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n"
                                + "data: {\"id\":\"s\",\"choices\":[],\"usage\":" + usage + "}\n\n"
                                + "data: [DONE]\n\n")
                        .build();
            }
            return new MockResponse.Builder().addHeader("Content-Type", "application/json")
                    .body("{\"id\":\"n\",\"choices\":[{\"index\":0,\"message\":{\"content\":" + quoted
                            + "},\"finish_reason\":\"stop\"}],\"usage\":" + usage + "}")
                    .build();
        }
    }

    @RepeatedTest(3)
    void manyThreadsShareOneCompleter() throws Exception {
        server.setDispatcher(new Echo());
        UsageTracker tracker = new UsageTracker();
        OpenAiCompleter completer = OpenAiCompleter.compatible().baseUrl(server.url("/v1").toString()).model("m")
                .usageTracker(tracker).retry(RetryPolicy.none()).build();
        int calls = 40;
        CountDownLatch start = new CountDownLatch(1);
        List<Future<String>> replies = new ArrayList<>();
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < calls; i++) {
                String text = "message " + i;
                boolean stream = i % 2 == 0;
                replies.add(pool.submit(() -> {
                    start.await();
                    Chat chat = Chat.of(Message.user(text));
                    ModelResponse reply = stream ? completer.complete(Fixtures.request(chat, List.of()), d -> { }) : completer.complete(Fixtures.request(chat, List.of()));
                    assertThat(reply.usage()).isEqualTo(Usage.of(1, 1));
                    return reply.message().text();
                }));
            }
            start.countDown();
            for (int i = 0; i < calls; i++) {
                assertThat(replies.get(i).get()).isEqualTo("message " + i);
            }
        }
        assertThat(tracker.count()).isEqualTo(calls);
        assertThat(tracker.total()).isEqualTo(Usage.of(calls, calls));
    }
}
