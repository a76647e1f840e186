package dev.shelly.engine;

import dev.shelly.agent.ToolPolicy;
import dev.shelly.chats.Message;
import dev.shelly.chats.Part;
import dev.shelly.chats.Role;
import dev.shelly.chats.Text;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import dev.shelly.engine.config.AgentConfig;
import dev.shelly.engine.config.EngineConfig;
import dev.shelly.engine.config.ProviderConfig;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.storage.internal.FilePermissionStore;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolOutput;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Engines whose agents write and read files under a policy that asks before every write, for
 * the approval tests here and in a second JVM. The model is stateless (its reply depends only on
 * the request), so a session continues the same way in any process.
 */
final class ApprovalEngines {
    static final ToolPolicy ASK_WRITES = ToolPolicy.builder().ask("fs_write*").build();

    private ApprovalEngines() {}

    static EngineConfig config() {
        return EngineConfig.builder()
                .provider(ProviderConfig.builder("m", "openai", "x").apiKey("k").build())
                .agent(AgentConfig.builder("lead").description("Leads").toolboxes("files").build())
                .agent(AgentConfig.builder("helper").description("Helps").toolboxes("files").build())
                .entryAgent("lead")
                .build();
    }

    /**
     * A user message {@code delegate: <task>} makes the lead read and delegate the task to the
     * helper; any other user message makes the agent write then read file {@code a}; tool results
     * are answered {@code done: } and the results' texts.
     */
    static Completer model() {
        return request -> {
            Message last = request.last().orElseThrow();
            int n = 0;
            for (Message m : request.messages()) {
                n += m.toolCalls().size();
            }
            List<Part> parts = new ArrayList<>();
            if (last.role() == Role.USER && last.text().startsWith("delegate: ")) {
                parts.add(new ToolCall("c" + (n + 1), "fs_read", "{\"file\":\"a\"}"));
                parts.add(new ToolCall("c" + (n + 2), "delegate", "{\"tasks\":[{\"agent\":\"helper\",\"task\":\""
                        + last.text().substring(10) + "\"}]}"));
            } else if (last.role() == Role.USER) {
                parts.add(new ToolCall("c" + (n + 1), "fs_write", "{\"file\":\"a\",\"text\":\"" + last.text() + "\"}"));
                parts.add(new ToolCall("c" + (n + 2), "fs_read", "{\"file\":\"a\"}"));
            } else {
                List<String> texts = new ArrayList<>();
                for (ToolResult r : last.toolResults()) {
                    texts.add(r.text());
                }
                parts.add(new Text("done: " + String.join(" | ", texts)));
            }
            return ModelResponse.of(new Message("model", Role.ASSISTANT, parts));
        };
    }

    /** fs_read and fs_write; every call that runs appends a line to the log. */
    static ToolBox files(Path log) {
        return ToolBox.of(
                Tool.of("fs_read", "Reads a file", "{\"type\":\"object\"}", (input, ctx) -> {
                    note(log, ctx.agent() + " fs_read " + input);
                    return ToolOutput.text("read " + input.path("file").asString());
                }),
                Tool.of("fs_write", "Writes a file", "{\"type\":\"object\"}", (input, ctx) -> {
                    note(log, ctx.agent() + " fs_write " + input);
                    return ToolOutput.text("wrote " + input.path("text").asString());
                }));
    }

    static void note(Path log, String line) {
        try {
            Files.writeString(log, line + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static List<String> log(Path log) throws IOException {
        return Files.exists(log) ? Files.readAllLines(log) : List.of();
    }

    static Engine.Builder builder(Path dir) {
        return Engine.builder().config(config()).completer("m", model()).sessionsDir(dir.resolve("sessions"))
                .toolbox("files", files(dir.resolve("tools.log")))
                .toolPolicy("lead", ASK_WRITES).toolPolicy("helper", ASK_WRITES)
                .permissionStore(new FilePermissionStore(dir.resolve("permissions.json")))
                .sessionWait(Duration.ofSeconds(30));
    }
}
