package dev.shelly.providers.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

class JsonObjectMemoTest {

    @Test
    void aHitGivesTheSameAnswerAsTheFirstCheck() {
        JsonObjectMemo memo = new JsonObjectMemo();
        for (int round = 0; round < 2; round++) {
            assertThat(memo.isJsonObject("{\"a\":1}")).isTrue();
            assertThat(memo.isJsonObject(" {\"a\":[1,2]} ")).isTrue();
            assertThat(memo.isJsonObject("{\"a\":")).as("cut off").isFalse();
            assertThat(memo.isJsonObject("[1]")).as("an array").isFalse();
            assertThat(memo.isJsonObject("{} {}")).as("two objects").isFalse();
            assertThat(memo.isJsonObject("")).isFalse();
            assertThat(memo.isJsonObject(null)).isFalse();
        }
        assertThat(memo.size()).isEqualTo(6);
    }

    @Test
    void itStartsOverWhenFull() {
        JsonObjectMemo memo = new JsonObjectMemo();
        for (int i = 0; i <= JsonObjectMemo.MAX_ENTRIES; i++) {
            assertThat(memo.isJsonObject("{\"i\":" + i + "}")).isTrue();
        }
        assertThat(memo.size()).isEqualTo(1);
        assertThat(memo.isJsonObject("{\"i\":")).isFalse();
    }

    @RepeatedTest(3)
    void concurrentCallersGetCorrectAnswers() throws Exception {
        JsonObjectMemo memo = new JsonObjectMemo();
        List<Future<Boolean>> results = new ArrayList<>();
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < 2_000; i++) {
                String text = i % 2 == 0 ? "{\"n\":" + (i % 50) + "}" : "{\"n\":" + (i % 50);
                boolean expected = i % 2 == 0;
                results.add(pool.submit(() -> memo.isJsonObject(text) == expected));
            }
        }
        for (Future<Boolean> r : results) {
            assertThat(r.get()).isTrue();
        }
    }
}
