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

    private static RunDefaults plain() {
        return defaults("worker", AgentListener.NONE, List.of(), 5);
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

    /** Each thing an agent brings to its scope tells two agents' scopes apart, one at a time. */
    @Test
    void aRegistryAGraceOrLinksOfItsOwnEachGiveAnAgentItsOwnScope() {
        RunScope shared = scope.entered(plain());
        Registry registry = new Registry();
        RunInterceptor own = new RunInterceptor() {};
        RunScope withRegistry = scope.entered(new RunDefaults("worker", registry, null, 5, AgentListener.NONE, List.of(),
                List.of()));
        RunScope withGrace = scope.entered(new RunDefaults("worker", null, Duration.ofMillis(50), 5, AgentListener.NONE,
                List.of(), List.of()));
        RunScope withLinks = scope.entered(new RunDefaults("worker", null, null, 5, AgentListener.NONE, List.of(own),
                List.of()));

        assertThat(List.of(withRegistry, withGrace, withLinks)).allSatisfy(s -> assertThat(s).isNotSameAs(shared));
        assertThat(withRegistry.registry).isSameAs(registry);
        assertThat(withGrace.cancelGrace).isEqualTo(Duration.ofMillis(50));
        assertThat(withLinks.interceptors).containsExactly(AUDIT, own); // inherited by its children
        assertThat(scope.entered(plain())).as("still remembered after three others").isSameAs(shared);
    }

    /** A delegate call that mixes agents bringing other defaults keeps one scope per kind, not one per child. */
    @Test
    void runsOfTwoKindsOfAgentEnteredInTurnShareAScopePerKind() {
        RunScope quiet = scope.entered(plain());
        RunScope heard = scope.entered(defaults("helper", HEARD, List.of(), 5));
        for (int i = 0; i < 10; i++) {
            assertThat(scope.entered(plain())).isSameAs(quiet);
            assertThat(scope.entered(defaults("helper", HEARD, List.of(), 5))).isSameAs(heard);
        }
    }

    /** Every scope the application builds with nothing set is one, so the runs entered from them share theirs. */
    @Test
    void scopesBuiltWithNothingSetAreOne() {
        assertThat(RunScope.DEFAULT.isDefault()).isTrue();
        assertThat(scope.isDefault()).isFalse();
        assertThat(new RunScope(null, Integer.MAX_VALUE, null, AgentListener.NONE, RunValues.EMPTY, List.of(), List.of(),
                Duration.ofSeconds(2), null, null).isDefault()).isTrue();
        assertThat(new RunScope("s", Integer.MAX_VALUE, null, AgentListener.NONE, RunValues.EMPTY, List.of(), List.of(),
                Duration.ofSeconds(2), null, null).isDefault()).isFalse();
        assertThat(RunScope.DEFAULT.entered(plain())).isSameAs(RunScope.DEFAULT.entered(plain()));
    }
}
