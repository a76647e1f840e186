package dev.shelly.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.tools.RunValues;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class RunScopeTest {
    private static final RunInterceptor AUDIT = new RunInterceptor() {};
    private static final AgentListener HEARD = event -> {};

    private final RunScope scope = new RunScope("s-1", 3, null, AgentListener.NONE, RunValues.EMPTY, List.of(AUDIT),
            List.of(), Duration.ofSeconds(2), null, null);

    private static RunDefaults defaults(String agent, AgentListener listener, List<RunInterceptor> middleware,
            int maxDepth) {
        return new RunDefaults(agent, null, null, maxDepth, listener, List.of(), middleware);
    }

    /** Agents built alike (a registry's factory makes one per task) share the scope their runs enter. */
    @Test
    void runsOfAgentsBuiltAlikeShareOneScope() {
        RunScope first = scope.entered(defaults("worker", AgentListener.NONE, List.of(), 5));
        RunScope second = scope.entered(defaults("worker", AgentListener.NONE, List.of(), 5));
        RunScope otherName = scope.entered(defaults("helper", AgentListener.NONE, List.of(), 5));

        assertThat(second).isSameAs(first);
        assertThat(otherName).isSameAs(first);
        assertThat(first.sessionId).isEqualTo("s-1");
        assertThat(first.delegationLimit).isEqualTo(3);
        assertThat(first.links).containsExactly(AUDIT);
        assertThat(first.cancelGrace).isEqualTo(Duration.ofSeconds(2));
    }

    /** An agent that brings anything else gets a scope of its own: its listener, links and limit are its. */
    @Test
    void anAgentThatBringsOtherDefaultsGetsItsOwnScope() {
        RunScope plain = scope.entered(defaults("worker", AgentListener.NONE, List.of(), 5));
        RunScope listening = scope.entered(defaults("worker", HEARD, List.of(), 5));
        RunInterceptor own = new RunInterceptor() {};
        RunScope wrapped = scope.entered(defaults("worker", AgentListener.NONE, List.of(own), 5));
        RunScope limited = scope.entered(defaults("worker", AgentListener.NONE, List.of(), 1));

        assertThat(listening).isNotSameAs(plain);
        assertThat(listening.listener).isSameAs(HEARD);
        assertThat(wrapped).isNotSameAs(plain);
        assertThat(wrapped.links).containsExactly(AUDIT, own);
        assertThat(wrapped.interceptors).containsExactly(AUDIT); // middleware is not inherited
        assertThat(limited.delegationLimit).isEqualTo(1);
        assertThat(scope.entered(defaults("worker", AgentListener.NONE, List.of(), 5)).links).containsExactly(AUDIT);
    }
}
