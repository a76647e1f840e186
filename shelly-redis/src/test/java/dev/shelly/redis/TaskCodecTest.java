package dev.shelly.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.state.tasks.Task;
import dev.shelly.state.tasks.TaskStatus;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class TaskCodecTest {
    private static final Instant T = Instant.parse("2026-01-01T00:00:00Z");

    @Test
    void aClaimKeepsItsTokenAndAnOldStoredClaimReadsBackWithoutOne() {
        Task claimed = new Task("task-1", "t", "", TaskStatus.IN_PROGRESS, "w", null, null, T, T, T.plusSeconds(30),
                "8f3a");
        assertThat(TaskCodec.decode("here", TaskCodec.encode(claimed))).isEqualTo(claimed);

        String stored = "{\"id\":\"task-1\",\"title\":\"t\",\"description\":\"\",\"status\":\"in_progress\","
                + "\"assignee\":\"w\",\"createdBy\":null,\"result\":null,\"createdAt\":\"2026-01-01T00:00:00Z\","
                + "\"updatedAt\":\"2026-01-01T00:00:00Z\",\"leaseUntil\":\"2026-01-01T00:00:30Z\"}";
        Task old = TaskCodec.decode("here", stored);
        assertThat(old.claim()).isNull();
        assertThat(old.leaseUntil()).isEqualTo(T.plusSeconds(30));
        assertThat(TaskCodec.encode(old)).as("the same text, so the replace script matches it").isEqualTo(stored);
    }

    @Test
    void aTaskWithoutAClaimEncodesAsBeforeClaimsHadTokens() {
        Task pending = new Task("task-1", "t", "", TaskStatus.PENDING, null, null, null, T, T);
        assertThat(TaskCodec.encode(pending)).doesNotContain("claim").doesNotContain("leaseUntil");
    }
}
