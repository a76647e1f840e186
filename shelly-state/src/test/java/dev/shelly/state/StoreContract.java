package dev.shelly.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/** What a {@link Store} promises, on any {@link StateBackend}: every backend runs it. Published in the test jar. */
public abstract class StoreContract {
    /**
     * A new, empty backend for one test; each call must return a backend that shares nothing
     * with the others.
     *
     * @return the backend
     */
    protected abstract StateBackend newBackend();

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private static JsonNode json(String text) {
        return JsonValues.JSON.readTree(text);
    }

    @Test
    void setGetDeleteKeysAndSnapshot() {
        Store store = new Store(newBackend());
        assertThat(store.get("a")).isEmpty();
        store.set("b", json("{\"x\":[1,null,\"s\"]}"));
        store.setJson("a", "\"plain\"");
        store.set("c", NODES.nullNode());
        assertThat(store.get("b")).contains(json("{\"x\":[1,null,\"s\"]}"));
        assertThat(store.get("a")).contains(NODES.stringNode("plain"));
        assertThat(store.get("c")).contains(NODES.nullNode());
        assertThat(store.keys()).containsExactly("a", "b", "c");
        Map<String, JsonNode> snapshot = store.snapshot();
        assertThat(snapshot.keySet()).containsExactly("a", "b", "c");
        assertThat(snapshot.get("b")).isEqualTo(json("{\"x\":[1,null,\"s\"]}"));

        assertThat(store.delete("b")).isTrue();
        assertThat(store.delete("b")).isFalse();
        assertThat(store.keys()).containsExactly("a", "c");
        assertThat(snapshot).containsKey("b");
    }

    @Test
    void setReplacesTheValue() {
        Store store = new Store(newBackend());
        store.setJson("k", "1");
        store.setJson("k", "{\"v\":2}");
        assertThat(store.get("k")).contains(json("{\"v\":2}"));
        assertThat(store.keys()).containsExactly("k");
    }

    @Test
    void callersCannotChangeStoredStateThroughNodesTheyHold() {
        Store store = new Store(newBackend());
        ObjectNode written = (ObjectNode) json("{\"list\":[1,2],\"inner\":{\"a\":1}}");
        store.set("k", written);
        written.put("added", true);
        written.withArray("list").add(3);

        ObjectNode read = (ObjectNode) store.get("k").orElseThrow();
        read.put("added", true);
        read.withObject("inner").put("a", 99);
        store.snapshot().get("k").withArray("list").removeAll();

        assertThat(store.get("k")).contains(json("{\"list\":[1,2],\"inner\":{\"a\":1}}"));
        assertThat(store.snapshot()).isUnmodifiable();
        assertThat(store.keys()).isUnmodifiable();
    }

    @Test
    void updateAppliesAFunctionOfTheCurrentValue() {
        Store store = new Store(newBackend());
        assertThat(store.update("n", v -> NODES.numberNode(v == null ? 1 : v.intValue() + 1))).isEqualTo(NODES.numberNode(1));
        assertThat(store.update("n", v -> NODES.numberNode(v.intValue() + 1))).isEqualTo(NODES.numberNode(2));
        assertThat(store.get("n")).contains(NODES.numberNode(2));
    }

    @Test
    void badArgumentsNameWhatIsWrong() {
        Store store = new Store(newBackend());
        assertThatThrownBy(() -> store.set("k", null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("value for key 'k' must not be null; store JSON null as NullNode, or delete the key");
        assertThatThrownBy(() -> store.get(" "))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Store.get key must not be null or blank");
        assertThatThrownBy(() -> store.setJson("k", "{\"a\":"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("Store.setJson value for key 'k' is not valid JSON: ");
        assertThatThrownBy(() -> store.setJson("k", "1 2"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("Store.setJson value for key 'k' is not valid JSON: ");
        assertThatThrownBy(() -> store.setJson("k", ""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Store.setJson value for key 'k' is empty; give one JSON value");
        ObjectNode withPojo = NODES.objectNode();
        withPojo.putArray("a").addPOJO(new Object());
        assertThatThrownBy(() -> store.set("k", withPojo))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("value for key 'k' holds a pojo node at /a/0; only JSON values "
                        + "(object, array, string, number, boolean, null) can be stored");
        assertThatThrownBy(() -> store.update("k", v -> null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("value for key 'k' must not be null; store JSON null as NullNode, or delete the key");
        assertThat(store.keys()).isEmpty();
    }

    @Test
    void watchReturnsAtOnceWhenTheKeyIsPresent() throws InterruptedException {
        Store store = new Store(newBackend());
        store.setJson("k", "[1]");
        assertThat(store.watch("k", Duration.ZERO)).contains(json("[1]"));
        assertThat(store.watch("k", Duration.ofDays(1))).contains(json("[1]"));
    }

    @Test
    void watchReturnsEmptyWhenTheTimeoutPasses() throws InterruptedException {
        Store store = new Store(newBackend());
        assertThat(store.watch("k", Duration.ZERO)).isEmpty();
        assertThat(store.watch("k", Duration.ofMillis(-5))).isEmpty();
        store.setJson("other", "1");
        assertThat(store.watch("k", Duration.ofMillis(50))).isEmpty();
    }

    @Test
    void watchWakesWhenTheKeyIsWrittenNotOnOtherKeys() throws Exception {
        Store store = new Store(newBackend());
        Waiting.Blocked<Optional<JsonNode>> watcher = Waiting.start(() -> store.watch("findings", Duration.ofMinutes(1)));
        store.setJson("noise", "0");
        store.delete("noise");
        assertThatThrownBy(() -> watcher.result().get(50, TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class);
        store.setJson("findings", "{\"n\":3}");
        assertThat(watcher.result().get(30, TimeUnit.SECONDS)).contains(json("{\"n\":3}"));
    }

    @Test
    void watchAnswersAnInterruptPromptly() throws Exception {
        Store store = new Store(newBackend());
        Waiting.Blocked<Optional<JsonNode>> watcher = Waiting.start(() -> store.watch("never", Duration.ofDays(1)));
        watcher.thread().interrupt();
        assertThatThrownBy(() -> watcher.result().get(30, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(InterruptedException.class);
    }

    @Test
    void anAlreadyInterruptedWatcherThrowsAtOnceUnlessTheKeyIsThere() throws Exception {
        Store store = new Store(newBackend());
        store.setJson("here", "true");
        Thread.currentThread().interrupt();
        try {
            assertThat(store.watch("here", Duration.ofDays(1))).contains(NODES.booleanNode(true));
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
            assertThatThrownBy(() -> store.watch("absent", Duration.ofDays(1))).isInstanceOf(InterruptedException.class);
        } finally {
            Thread.interrupted();
        }
    }
}
