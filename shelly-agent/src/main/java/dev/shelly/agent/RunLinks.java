package dev.shelly.agent;

import dev.shelly.agent.internal.Run;
import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import java.util.List;

/**
 * The walk down a run's links, the loop innermost. It starts at the agent because a link's
 * chain names the agent ({@link RunInterceptor.RunChain#agent()}).
 */
record RunLinks(Agent agent, Run run, int index) implements RunInterceptor.RunChain {
    @Override
    public RunContext context() {
        return run.context();
    }

    @Override
    public Chat chat() {
        return run.chat();
    }

    @Override
    public boolean paused() {
        return run.paused() != null;
    }

    @Override
    public Message proceed() {
        List<RunInterceptor> links = run.links();
        if (index == links.size()) {
            return run.proceed();
        }
        Message reply = links.get(index).interceptRun(new RunLinks(agent, run, index + 1));
        if (reply == null) {
            throw new AgentException(agent.name(), "interceptor " + run.place(index) + " (" + links.get(index)
                    + ") of agent '" + agent.name() + "' returned null instead of a message", null);
        }
        return reply;
    }
}
