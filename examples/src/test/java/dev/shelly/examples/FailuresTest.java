package dev.shelly.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.agent.AgentException.MaxIterationsException;
import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.ModelException.Kind;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

/** One-line reasons for the failures a user meets. */
class FailuresTest {
    private static final ExampleModels OPENAI = ExampleModels.select(Map.of("OPENAI_API_KEY", "sk-x"));
    private static final ExampleModels LOCAL = ExampleModels.select(Map.of("OPENAI_BASE_URL", "http://localhost:11434/v1"));

    private static ModelException failure(Kind kind, int status, String said) {
        return ModelException.builder(kind).provider("openai").status(status).providerMessage(said).build();
    }

    @Test
    void aRejectedKeyNamesTheVariableToCheck() {
        assertThat(Failures.reason(failure(Kind.AUTHENTICATION, 401, "Incorrect API key provided"), OPENAI))
                .isEqualTo("openai rejected the API key (HTTP 401): Incorrect API key provided; check OPENAI_API_KEY");
    }

    @Test
    void anUnknownModelPointsAtShellyModel() {
        assertThat(Failures.reason(failure(Kind.NOT_FOUND, 404, "model 'llama3.2' not found"), LOCAL))
                .isEqualTo("openai has no model llama3.2 at http://localhost:11434/v1 (HTTP 404): model 'llama3.2' not "
                        + "found; set SHELLY_MODEL to a model it serves");
    }

    @Test
    void anUnreachableLocalServerAsksWhetherItRuns() {
        ModelException refused = ModelException.builder(Kind.NETWORK).provider("openai-compatible")
                .providerMessage("Failed to connect to localhost/127.0.0.1:11434").build();

        assertThat(Failures.reason(refused, LOCAL)).isEqualTo("cannot reach openai-compatible at "
                + "http://localhost:11434/v1: Failed to connect to localhost/127.0.0.1:11434; is the server running?");
    }

    @Test
    void aStreamTheServerCutIsNotCalledUnreachable() {
        ModelException cut = ModelException.builder(Kind.NETWORK).provider("openai-compatible").status(200)
                .providerMessage("the server closed the stream before the reply was complete (unexpected end of stream)")
                .build();

        assertThat(Failures.reason(cut, LOCAL)).isEqualTo("openai-compatible at http://localhost:11434/v1 (HTTP 200): "
                + "the server closed the stream before the reply was complete (unexpected end of stream); try again");
    }

    @Test
    void everyKindGivesOneLine() {
        for (Kind kind : Kind.values()) {
            String reason = Failures.reason(failure(kind, 500, "line one\nline two"), OPENAI);
            assertThat(reason).as("%s", kind).doesNotContain("\n").contains("line one line two");
        }
    }

    @Test
    void agentFailuresKeepTheirOwnMessage() {
        assertThat(Failures.reason(new MaxIterationsException("lead", 10), OPENAI))
                .isEqualTo("agent 'lead' reached its limit of 10 iterations without a final answer");
        assertThat(Failures.reason(new ExecutionException(new CancellationException("agent 'lead' was cancelled")), OPENAI))
                .isEqualTo("cancelled: agent 'lead' was cancelled");
    }

    @Test
    void longReasonsAreClipped() {
        String reason = Failures.reason(new IllegalArgumentException("x".repeat(1000)), OPENAI);

        assertThat(reason).hasSize(400).endsWith("…");
    }
}
