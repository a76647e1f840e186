package dev.shelly.testing.logs;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;
import org.slf4j.event.Level;

/** This module's tests run with LogCapture as their slf4j binding and System.LoggerFinder. */
class LogCaptureTest {
    private static final Logger LOG = LoggerFactory.getLogger("dev.shelly.test");

    @Test
    void anOpenCaptureKeepsEveryLevelWithLoggerMdcThreadAndException() {
        IllegalStateException boom = new IllegalStateException("boom");
        List<LogCapture.Line> lines;
        try (LogCapture logs = LogCapture.start()) {
            MDC.put("session", "s1");
            try {
                LOG.trace("t {}", 1);
                LOG.debug("d {}", 2);
                LOG.info("i {} {}", 3, "x");
                LOG.warn("w", boom);
                LOG.error("e {}", 5, boom);
            } finally {
                MDC.remove("session");
            }
            lines = logs.lines();
        }
        assertThat(lines).extracting(LogCapture.Line::toString)
                .containsExactly("TRACE t 1", "DEBUG d 2", "INFO i 3 x", "WARN w", "ERROR e 5");
        assertThat(lines).allSatisfy(l -> {
            assertThat(l.logger()).isEqualTo("dev.shelly.test");
            assertThat(l.mdc()).containsExactly(java.util.Map.entry("session", "s1"));
            assertThat(l.thread()).isEqualTo(Thread.currentThread().getName());
        });
        assertThat(lines.get(4).error()).isSameAs(boom);
        assertThat(lines.get(3).render()).startsWith("WARN dev.shelly.test - w\njava.lang.IllegalStateException: boom\n\tat ");
    }

    @Test
    void systemLoggerLinesArriveWithSlf4jLevelsAndTheirArguments() {
        System.Logger jdk = System.getLogger("dev.shelly.jdk");
        List<LogCapture.Line> lines;
        try (LogCapture logs = LogCapture.start()) {
            jdk.log(System.Logger.Level.WARNING, "retrying in {0} ms (attempt {1})", "250", "2");
            jdk.log(System.Logger.Level.DEBUG, () -> "lazy");
            jdk.log(System.Logger.Level.ERROR, "failed", new IllegalStateException("x"));
            lines = logs.lines();
        }
        assertThat(lines).extracting(LogCapture.Line::toString)
                .containsExactly("WARN retrying in 250 ms (attempt 2)", "DEBUG lazy", "ERROR failed");
        assertThat(lines).extracting(LogCapture.Line::logger).containsOnly("dev.shelly.jdk");
        assertThat(lines.get(2).error()).hasMessage("x");
    }

    @Test
    void linesLoggedWhileNoCaptureIsOpenAreDroppedAndEveryOpenCaptureSeesEachLine() {
        LOG.info("before");
        LogCapture first = LogCapture.start();
        LogCapture second = LogCapture.start();
        LOG.info("both");
        second.close();
        LOG.info("first only");
        first.close();
        LOG.info("after");

        assertThat(first.lines()).extracting(LogCapture.Line::message).containsExactly("both", "first only");
        assertThat(second.lines()).extracting(LogCapture.Line::message).containsExactly("both");
    }

    @Test
    void aCapturesOwnLoggerWritesToItAloneEvenWhenClosed() {
        List<LogCapture.Line> others;
        LogCapture mine = LogCapture.start();
        mine.close();
        try (LogCapture other = LogCapture.start()) {
            mine.logger("given").info("to {}", "mine");
            others = other.lines();
        }
        assertThat(mine.lines()).singleElement().satisfies(l -> {
            assertThat(l.level()).isEqualTo(Level.INFO);
            assertThat(l.logger()).isEqualTo("given");
            assertThat(l.message()).isEqualTo("to mine");
        });
        assertThat(others).isEmpty();
    }

    @Test
    void linesFromManyThreadsAtOnceAreAllKept() throws Exception {
        int threads = 16;
        int each = 200;
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> started = new ArrayList<>();
        List<LogCapture.Line> lines;
        try (LogCapture logs = LogCapture.start()) {
            for (int t = 0; t < threads; t++) {
                int id = t;
                started.add(Thread.ofPlatform().start(() -> {
                    try {
                        go.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                    IntStream.range(0, each).forEach(i -> LOG.info("{}-{}", id, i));
                }));
            }
            go.countDown();
            for (Thread t : started) {
                t.join();
            }
            lines = logs.lines();
        }
        assertThat(lines).hasSize(threads * each);
        for (int t = 0; t < threads; t++) {
            String prefix = t + "-";
            assertThat(lines).filteredOn(l -> l.message().startsWith(prefix)).extracting(LogCapture.Line::message)
                    .as("thread %s's lines in its order", t)
                    .containsExactlyElementsOf(IntStream.range(0, each).mapToObj(i -> prefix + i).toList());
        }
    }
}
