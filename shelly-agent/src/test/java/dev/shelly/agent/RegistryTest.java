package dev.shelly.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.testing.ScriptedCompleter;
import dev.shelly.testing.Step;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class RegistryTest {

    private static Supplier<Agent> factory(String name) {
        return () -> Agent.builder(name).completer(ScriptedCompleter.of(Step.reply("hi"))).build();
    }

    @Test
    void listsEntriesSortedByName() {
        Registry r = new Registry()
                .register("writer", "  Writes  ", factory("writer"))
                .register("analyst", "Analyses", factory("analyst"));

        assertThat(r.list()).containsExactly(new Registry.Entry("analyst", "Analyses"), new Registry.Entry("writer", "Writes"));
        assertThat(r.contains("writer")).isTrue();
        assertThat(r.get("writer")).isPresent();
        assertThat(r.get("nobody")).isEmpty();
        assertThat(r.spawn("nobody")).isEmpty();
    }

    @Test
    void aNullNameIsRefusedNamingTheMethodWhetherTheRegistryIsEmptyOrNot() {
        for (Registry r : List.of(new Registry(), new Registry().register("writer", "Writes", factory("writer")))) {
            assertThatThrownBy(() -> r.get(null)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("Registry.get name must not be null");
            assertThatThrownBy(() -> r.contains(null)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("Registry.contains name must not be null");
            assertThatThrownBy(() -> r.spawn(null)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("Registry.spawn name must not be null");
        }
        Registry one = new Registry().register("writer", "Writes", factory("writer"));
        assertThat(one.contains("writer")).isTrue();
        assertThat(one.contains("reader")).isFalse();
        assertThat(one.spawn("reader")).isEmpty();
        assertThat(one.spawn("writer")).get().extracting(Agent::name).isEqualTo("writer");
    }

    @Test
    void spawnBuildsAFreshAgentEveryTime() {
        AtomicInteger built = new AtomicInteger();
        Registry r = new Registry().register("w", "worker", () -> {
            built.incrementAndGet();
            return factory("w").get();
        });

        Agent one = r.spawn("w").orElseThrow();
        Agent two = r.spawn("w").orElseThrow();

        assertThat(one).isNotSameAs(two);
        assertThat(one.chat()).isNotSameAs(two.chat());
        assertThat(one.registry()).isEmpty(); // a spawned agent runs with its delegator's registry
        assertThat(built.get()).isEqualTo(2);
    }

    @Test
    void registrationAndSpawnRejectBadInput() {
        Registry r = new Registry().register("w", "worker", factory("w"));
        Agent shared = factory("same").get();
        r.register("same", "returns one instance", () -> shared)
                .register("liar", "builds another name", factory("other"))
                .register("null", "returns null", () -> null);

        assertThatThrownBy(() -> r.register("w", "again", factory("w")))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("an agent named 'w' is already registered");
        assertThatThrownBy(() -> r.register(" ", "x", factory("x")))
                .hasMessage("Registry.register: agent name ' ' is invalid: use 1 to 64 letters, digits, '_' or '-' "
                        + "(providers accept only these in the tool and sender names an agent's name appears in)");
        assertThatThrownBy(() -> r.register("web search", "x", factory("x")))
                .hasMessageStartingWith("Registry.register: agent name 'web search' is invalid: ");
        assertThatThrownBy(() -> r.spawn("liar"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("the factory of agent 'liar' built an agent named 'other'; register it under that name "
                        + "or build it with this one");
        assertThatThrownBy(() -> r.spawn("null")).hasMessage("the factory of agent 'null' returned null");
        r.spawn("same");
        assertThatThrownBy(() -> r.spawn("same"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("the factory of agent 'same' returned an agent it had returned before; a factory must "
                        + "build a fresh agent on every call");
    }

    @RepeatedTest(5)
    void concurrentRegistrationsAndReadsAreSafe() throws Exception {
        Registry r = new Registry();
        int n = 64;
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int i = 0; i < n; i++) {
            String name = String.format("agent-%02d", i);
            threads.add(Thread.ofVirtual().start(() -> {
                try {
                    start.await();
                    r.register(name, "d", factory(name));
                    List<Registry.Entry> seen = r.list();
                    assertThat(seen).isSortedAccordingTo(java.util.Comparator.comparing(Registry.Entry::name));
                    assertThat(r.spawn(name).orElseThrow().name()).isEqualTo(name);
                } catch (Throwable t) {
                    failures.add(t);
                }
            }));
        }
        start.countDown();
        for (Thread t : threads) {
            t.join();
        }

        assertThat(failures).isEmpty();
        assertThat(r.list()).hasSize(n);
        assertThat(r.list().getFirst().name()).isEqualTo("agent-00");
    }
}
