package dev.shelly.engine;

import dev.shelly.agent.Answer;
import dev.shelly.chats.Message;
import dev.shelly.chats.ShellyException;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import dev.shelly.modeladapter.ModelResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;

/**
 * What a session's journal recorded of a turn that did not end with a save: the turn's input,
 * every model response by run, every tool call started and finished, the runs started under
 * others, the decisions given, the runs cancelled, and whether the turn ended. Read once when a
 * session is resumed; immutable.
 */
final class Journal {
    /** The delegation tool's name: its children's own steps are in the journal, so it runs again. */
    static final String DELEGATE = "delegate";

    /** A model response of a run, as the loop took it. */
    record Model(String agent, ModelResponse response) {}

    /** A tool call that was started: its handler may have run. */
    record Started(String run, String agent, String call, String tool, String key, boolean idempotent,
            String arguments) {}

    /** A run started under another run. */
    record Child(String run, String parent, String call, String agent, String path) {}

    final long turn;
    final String turnId;
    final List<Message> input;
    private final Map<String, List<Model>> models = new LinkedHashMap<>();
    private final Map<String, Started> started = new LinkedHashMap<>();
    private final Map<String, ToolResult> finished = new HashMap<>();
    final List<Child> children = new ArrayList<>();
    /** The answers given while the journal was open, by pending id, in order. */
    final Map<String, Answer> decisions = new LinkedHashMap<>();
    final Set<String> cancelled = new LinkedHashSet<>();
    /** The runs that asked a model or started a call, in the order they first did. */
    private final Set<String> runs = new LinkedHashSet<>();
    final boolean ended;
    /** How many entries it was read from. */
    final int size;

    private Journal(long turn, String turnId, List<Message> input, boolean ended, int size) {
        this.turn = turn;
        this.turnId = turnId;
        this.input = input;
        this.ended = ended;
        this.size = size;
    }

    /**
     * Reads the entries of a journal.
     *
     * @param id the session, for messages
     * @param entries the entries, oldest first
     * @param codec the entries' codec
     * @return the turn they record, or null when they hold no turn
     * @throws ShellyException naming the session when an entry cannot be read
     */
    static Journal read(String id, List<String> entries, JournalEntries codec) {
        JsonNode turn = null;
        boolean ended = false;
        List<JsonNode> nodes = new ArrayList<>(entries.size());
        for (int i = 0; i < entries.size(); i++) {
            JsonNode n;
            try {
                n = codec.read(entries.get(i));
            } catch (RuntimeException e) {
                throw new ShellyException("session '" + id + "': journal entry " + (i + 1) + " is not JSON: "
                        + e.getMessage(), e);
            }
            String type = n.path("type").asString("");
            if (type.equals("turn") && turn == null) {
                turn = n;
            }
            ended |= type.equals("end");
            nodes.add(n);
        }
        if (turn == null) {
            return null;
        }
        try {
            List<Message> input = new ArrayList<>();
            for (JsonNode m : turn.path("input")) {
                input.add(codec.message(m));
            }
            Journal journal = new Journal(turn.path("turn").asLong(), turn.path("id").asString(""), List.copyOf(input),
                    ended, entries.size());
            for (JsonNode n : nodes) {
                journal.add(n, codec);
            }
            return journal;
        } catch (RuntimeException e) {
            throw new ShellyException("session '" + id + "': its journal cannot be read: " + e.getMessage(), e);
        }
    }

    private void add(JsonNode n, JournalEntries codec) {
        String run = JournalEntries.optional(n, "run");
        String type = n.path("type").asString("");
        if (run != null && (type.equals("model") || type.equals("started"))) {
            runs.add(run);
        }
        switch (type) {
            case "model" -> models.computeIfAbsent(run, r -> new ArrayList<>())
                    .add(new Model(n.path("agent").asString(), codec.response(n)));
            case "started" -> started.putIfAbsent(key(run, n.path("call").asString()), new Started(run,
                    JournalEntries.optional(n, "agent"), n.path("call").asString(), n.path("tool").asString(),
                    JournalEntries.optional(n, "key"), n.path("idempotent").asBoolean(),
                    n.path("arguments").asString("{}")));
            case "finished" -> finished.putIfAbsent(key(run, n.path("call").asString()), codec.result(n.get("result")));
            case "child" -> children.add(new Child(run, JournalEntries.optional(n, "parent"),
                    JournalEntries.optional(n, "call"), n.path("agent").asString(), n.path("path").asString("")));
            case "decision" -> decisions.put(n.path("call").asString(), codec.answer(n.get("answer")));
            case "cancelled" -> cancelled.add(run);
            default -> { }
        }
    }

    static String key(String run, String call) {
        return run + "\n" + call;
    }

    /** The model responses recorded for a run, in order. */
    List<Model> models(String run) {
        return models.getOrDefault(run, List.of());
    }

    /** The recorded result of a call, or null. */
    ToolResult finished(String run, String call) {
        return finished.get(key(run, call));
    }

    /** Whether a call was started, with or without a result. */
    Started started(String run, String call) {
        return started.get(key(run, call));
    }

    /**
     * The top run of the turn: the first run that asked a model or started a call and is no
     * other run's child; null when none did (a turn that goes on after decisions may start
     * calls before it asks its model).
     */
    String topRun() {
        for (String run : runs) {
            if (child(run) == null) {
                return run;
            }
        }
        return null;
    }

    Child child(String run) {
        for (Child c : children) {
            if (c.run().equals(run)) {
                return c;
            }
        }
        return null;
    }

    /** The agent of a run, as its entries name it, or null. */
    String agent(String run) {
        Child c = child(run);
        if (c != null) {
            return c.agent();
        }
        List<Model> m = models(run);
        if (!m.isEmpty()) {
            return m.getFirst().agent();
        }
        for (Started s : started.values()) {
            if (s.run().equals(run) && s.agent() != null) {
                return s.agent();
            }
        }
        return null;
    }

    /** Where a run stands in its delegation tree ({@code ""} at the top). */
    String path(String run) {
        Child c = child(run);
        return c == null ? "" : c.path();
    }

    /**
     * The calls started without a recorded result, in the order they started, leaving out
     * {@value #DELEGATE} calls (their children's steps are recorded and run again).
     */
    List<Started> inFlight() {
        List<Started> open = new ArrayList<>();
        for (Map.Entry<String, Started> e : started.entrySet()) {
            if (!finished.containsKey(e.getKey()) && !e.getValue().tool().equals(DELEGATE)) {
                open.add(e.getValue());
            }
        }
        return open;
    }

    /** A call as the model of its run made it, or null when no recorded response holds it. */
    ToolCall call(String run, String call) {
        for (Model m : models(run)) {
            for (ToolCall c : m.response().message().toolCalls()) {
                if (c.id().equals(call)) {
                    return c;
                }
            }
        }
        return null;
    }
}
