package dev.shelly.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shelly.state.tasks.TaskBoard;
import java.time.Clock;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.JsonNodeFactory;

class RedisBackendsTest {

    private static RedisBackends backends(String prefix) {
        return RedisBackends.builder(SharedRedis.server().url()).keyPrefix(prefix).build();
    }

    /** Fills a board and a blackboard, as a program's run would. */
    private static void use(RedisBackends redis) {
        new TaskBoard(redis.taskBackend("board"), Clock.systemUTC()).create("a task", "");
        redis.stateBackend("notes").put("k", JsonNodeFactory.instance.stringNode("v"));
    }

    @Test
    void deleteKeysRemovesEverythingUnderThePrefixAndNothingElse() {
        String run = UUID.randomUUID().toString();
        try (RedisBackends mine = backends("run-" + run + ":*[a]:"); RedisBackends other = backends("run-" + run + ":")) {
            use(mine);
            use(other);

            assertThat(mine.deleteKeys()).isPositive();

            assertThat(mine.deleteKeys()).isZero();
            assertThat(mine.stateBackend("notes").keys()).isEmpty();
            assertThat(other.stateBackend("notes").keys()).containsExactly("k");
            assertThat(other.deleteKeys()).isPositive();
        }
    }

    @Test
    void deleteKeysRefusesAnEmptyPrefix() {
        try (RedisBackends all = backends("")) {
            assertThatThrownBy(all::deleteKeys).isInstanceOf(IllegalStateException.class)
                    .hasMessage("RedisBackends.deleteKeys needs a key prefix: without one it would delete every key of "
                            + "the database");
        }
    }
}
