package dev.shelly.agent;

import dev.shelly.agent.internal.Children;
import dev.shelly.agent.internal.Run;
import dev.shelly.chats.Message;
import java.util.List;
import java.util.function.Supplier;

/**
 * How a {@code delegate} call starts a child: a fresh agent from the registry, in a run context
 * one level below the delegating run, on its own conversation; its pause comes back as a value.
 * Running a child is one call down to the agent, so that its frame is thin: it is under every
 * model call of the child.
 */
final class Spawner implements Children {
    @Override
    public Runner spawn(String agent, RunContext parent) {
        Registry registry = parent.registry().orElse(null);
        Agent child = registry == null ? null : registry.spawned(agent);
        if (child == null) {
            throw new AgentException(agent, "agent '" + agent + "' is not in the registry", null);
        }
        return child;
    }

    @Override
    public RunContext enter(Runner child, RunContext parent, Supplier<String> path, List<Message> kept) {
        Agent agent = (Agent) child;
        RunContext context = parent.delegated(path, agent.defaults);
        if (!kept.isEmpty()) {
            agent.chat().append(kept);
        }
        return context;
    }

    @Override
    public Run run(Runner child, List<Message> input, RunContext context) {
        Agent agent = (Agent) child;
        return agent.hold(agent.conversation(), input, context, true, null);
    }
}
