package dev.shelly.agent.workflow;

import dev.shelly.agent.RunContext;
import dev.shelly.agent.Runner;
import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolContext;
import dev.shelly.tools.ToolOutput;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.function.Supplier;
import tools.jackson.databind.JsonNode;

/**
 * Any {@link Runner} as a {@link Tool}: an agent, a team, a hand-off group, a wrapped runner.
 *
 * <pre>{@code
 * Tool research = AgentTool.of("researcher", "Delegate a research task to a specialist",
 *         () -> Agent.builder("researcher").completer(model).toolboxes(searchTools).build());
 * Agent lead = Agent.builder("lead").completer(model).toolboxes(ToolBox.of(research)).build();
 * }</pre>
 *
 * <p>The tool takes {@code {"task": "..."}}. Each call gets a fresh runner from the factory, gives
 * it the task as a user message whose sender is the calling agent (through
 * {@link Runner#receive}, so an agent writes its system prompt first), runs it, and returns the
 * text of its final message. Everything else stays in the runner's private chat: only the final
 * text crosses the boundary. A fresh runner per call means the calls of one turn can run
 * concurrently and no call sees another's work; a factory that returns one runner every time
 * keeps its history across calls instead (the seed's stateful sub-agent), and its calls must then
 * not overlap. The runner continues the calling run: it runs in the caller's {@link RunContext}
 * (same session, values, listener and hooks, same delegation depth), and its run names the
 * caller's run as its parent.
 *
 * <p>Failures become error results the calling model can act on: a missing task, a factory that
 * fails, a runner that fails ({@code agent 'researcher' failed: ...}). Cancelling the calling
 * agent interrupts the runner, and the call is answered as cancelled.
 */
public final class AgentTool {
    private static final String SCHEMA = """
            {"type":"object","properties":{"task":{"type":"string","description":"What to do: a complete, \
            self-contained task. Nothing else of your conversation is passed on."}},"required":["task"]}""";

    private AgentTool() {}

    /**
     * Wraps runners made by a factory as a tool.
     *
     * @param name the tool's name (letters, digits, '_' or '-')
     * @param description what the tool does, for the calling model
     * @param factory makes the runner for each call
     * @return the tool
     */
    public static Tool of(String name, String description, Supplier<? extends Runner> factory) {
        if (factory == null) {
            throw new IllegalArgumentException("AgentTool '" + name + "' factory must not be null");
        }
        if (description == null) {
            throw new IllegalArgumentException("AgentTool '" + name + "' description must not be null");
        }
        return Tool.of(name, description, SCHEMA, (input, ctx) -> call(name, factory, input, ctx));
    }

    private static ToolOutput call(String tool, Supplier<? extends Runner> factory, JsonNode input, ToolContext ctx)
            throws InterruptedException {
        String caller = ctx.agent();
        JsonNode taskNode = input.get("task");
        if (taskNode == null || !taskNode.isString() || taskNode.stringValue().isBlank()) {
            return ToolOutput.error("tool '" + tool + "' needs \"task\": what to do, as text");
        }
        Runner runner;
        try {
            runner = factory.get();
        } catch (RuntimeException e) {
            return ToolOutput.error("tool '" + tool + "' could not make its runner: " + Failures.describe(e));
        }
        if (runner == null) {
            return ToolOutput.error("tool '" + tool + "' could not make its runner: the factory returned null");
        }
        try {
            runner.receive(List.of(Message.text(caller, Role.USER, taskNode.stringValue())));
            Message reply = runner.run(RunContext.from(ctx).orElseGet(RunContext::root));
            if (reply == null) {
                return ToolOutput.error("agent '" + runner.name() + "' returned null instead of a reply");
            }
            return ToolOutput.text(reply.text());
        } catch (CancellationException e) {
            InterruptedException interrupted = new InterruptedException("agent '" + runner.name() + "' was cancelled");
            interrupted.initCause(e);
            throw interrupted;
        } catch (RuntimeException e) {
            return ToolOutput.error("agent '" + runner.name() + "' failed: " + Failures.describe(e));
        }
    }
}
