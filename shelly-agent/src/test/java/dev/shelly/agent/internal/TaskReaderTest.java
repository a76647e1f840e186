package dev.shelly.agent.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

class TaskReaderTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    record Task(String agent, String task, String context) {}

    /** The tasks read, or null when the reader refused the text. */
    private static List<Task> read(String arguments) {
        List<Task> got = new ArrayList<>();
        return TaskReader.read(arguments, (a, t, c) -> got.add(new Task(a, t, c))) ? got : null;
    }

    /**
     * What Jackson reads from the text when it is in the reader's shape (an object with only
     * {@code tasks}, a non-empty array of objects with string {@code agent} and {@code task} and an
     * optional string-or-null {@code context}, no other member and none twice), else null.
     */
    private static List<Task> jackson(String arguments) {
        JsonNode root;
        try {
            root = JSON.readTree(arguments);
        } catch (JacksonException e) {
            return null;
        }
        if (root == null || !root.isObject() || root.size() != 1 || !(root.get("tasks") instanceof ArrayNode list)
                || list.isEmpty()) {
            return null;
        }
        List<Task> tasks = new ArrayList<>();
        for (JsonNode item : list) {
            if (!(item instanceof ObjectNode task) || !(task.get("agent") instanceof JsonNode agent) || !agent.isString()
                    || !(task.get("task") instanceof JsonNode what) || !what.isString()) {
                return null;
            }
            JsonNode context = task.get("context");
            if (task.size() != (context == null ? 2 : 3) || context != null && !context.isString() && !context.isNull()) {
                return null;
            }
            tasks.add(new Task(agent.stringValue(), what.stringValue(),
                    context == null || context.isNull() ? null : context.stringValue()));
        }
        return tasks;
    }

    @Test
    void readsTheTasksInOrderWithTheirMembersInAnyOrderAndWhitespaceAnywhere() {
        String pretty = """
                {
                  "tasks" : [
                    { "agent" : "worker", "task" : " part one ", "context" : "shared" },
                    {"task":"part two","agent":" helper "},
                    {"context":null,"agent":"worker","task":"part three"}
                  ]
                }
                """;

        assertThat(read(pretty)).containsExactly(new Task("worker", " part one ", "shared"),
                new Task(" helper ", "part two", null), new Task("worker", "part three", null));
    }

    @Test
    void readsEveryEscapeJsonHasAsJacksonDoes() {
        String text = "{\"tasks\":[{\"agent\":\"w\",\"task\":\"a\\\"b\\\\c\\/d\\be\\ff\\ng\\rh\\ti\\u00e9\\u00C9"
                + "\\ud83d\\ude00 é 😀\",\"context\":\"x\\u0000y\"}]}";

        assertThat(read(text)).containsExactly(new Task("w", "a\"b\\c/d\be\ff\ng\rh\tiéÉ\ud83d\ude00 é 😀", "x\0y"))
                .isEqualTo(jackson(text));
    }

    @Test
    void equalAgentsAndContextsOfNeighbouringTasksAreOneString() {
        List<Task> tasks = read("{\"tasks\":[{\"agent\":\"worker\",\"task\":\"a\",\"context\":\"same\"},"
                + "{\"agent\":\"worker\",\"task\":\"b\",\"context\":\"same\"}]}");

        assertThat(tasks.get(1).agent()).isSameAs(tasks.get(0).agent());
        assertThat(tasks.get(1).context()).isSameAs(tasks.get(0).context());
    }

    @Test
    void refusesWhatIsNotInItsShapeValidJsonOrNot() {
        String task = "{\"agent\":\"w\",\"task\":\"t\"}";
        for (String text : List.of(
                "{\"tasks\":[]}",
                "{\"tasks\":[{}]}",
                "{\"tasks\":[" + task + "],\"why\":1}",
                "{\"why\":1,\"tasks\":[" + task + "]}",
                "{\"tasks\":[{\"agent\":\"w\",\"task\":\"t\",\"note\":true}]}",
                "{\"tasks\":[{\"agent\":\"w\",\"agent\":\"v\",\"task\":\"t\"}]}",
                "{\"tasks\":[{\"agent\":\"w\",\"task\":\"t\",\"context\":null,\"context\":\"c\"}]}",
                "{\"tasks\":[{\"agent\":\"w\"}]}",
                "{\"tasks\":[{\"agent\":1,\"task\":\"t\"}]}",
                "{\"tasks\":[{\"agent\":\"w\",\"task\":\"t\",\"context\":{\"k\":1}}]}",
                "{\"tasks\":[{\"agent\":\"w\",\"task\":\"t\",\"context\":nul}]}",
                "{\"tasks\":[{\"\\u0061gent\":\"w\",\"task\":\"t\"}]}",
                "{\"tasks\":[" + task + "]} {}",
                "{\"tasks\":[" + task + "]",
                "{\"tasks\":[" + task + ",]}",
                "{\"tasks\":" + task + "}",
                "[" + task + "]",
                "{\"tasks\":[{\"agent\":\"w\",\"task\":\"line\nbreak\"}]}",
                "{\"tasks\":[{\"agent\":\"w\",\"task\":\"bad \\x escape\"}]}",
                "{\"tasks\":[{\"agent\":\"w\",\"task\":\"short \\u12\"}]}",
                "{\"tasks\":[{\"agent\":\"w\",\"task\":\"not hex \\u12G4\"}]}",
                "{\"tasks\":[{\"agent\":\"w\",\"task\":\"arabic digits \\u١٢٣٤\"}]}",
                "{\"tasks\":[{\"agent\":\"w\",\"task\":\"open",
                "\uFEFF{\"tasks\":[" + task + "]}",
                "{\"tasks\":[" + task + "]}\u00a0",
                "")) {
            assertThat(read(text)).as(text).isNull();
        }
    }

    /** A string longer than Jackson reads is refused here too, escaped or not: the tree then says it is too long. */
    @Test
    void aStringLongerThanJacksonsLimitIsRefused() {
        int max = StreamReadConstraints.defaults().getMaxStringLength();
        String longest = "a".repeat(max);
        String fits = "{\"tasks\":[{\"agent\":\"w\",\"task\":\"" + longest + "\"}]}";
        String tooLong = "{\"tasks\":[{\"agent\":\"w\",\"task\":\"" + longest + "a\"}]}";

        assertThat(read(fits)).hasSize(1).isEqualTo(jackson(fits));
        assertThat(read(tooLong)).isNull();
        assertThat(jackson(tooLong)).isNull();
        assertThat(read("{\"tasks\":[{\"agent\":\"w\",\"task\":\"\\n" + longest + "\"}]}")).isNull();
        assertThat(read("{\"tasks\":[{\"agent\":\"w\",\"task\":\"\\n" + longest.substring(1) + "\"}]}"))
                .hasSize(1);
    }

    @Test
    void stopsAtTheFirstTaskItsReceiverRefuses() {
        List<String> given = new ArrayList<>();
        boolean read = TaskReader.read("{\"tasks\":[{\"agent\":\"a\",\"task\":\"1\"},{\"agent\":\"b\",\"task\":\"2\"},"
                + "{\"agent\":\"c\",\"task\":\"3\"}]}", (a, t, c) -> given.add(a) && !a.equals("b"));

        assertThat(read).isFalse();
        assertThat(given).containsExactly("a", "b");
    }

    /**
     * Arguments Jackson writes from random tasks (every kind of character, as Jackson escapes
     * them), laid out with random whitespace, are read as Jackson reads them.
     */
    @Test
    void readsWhateverJacksonWritesInItsShapeAsJacksonReadsIt() {
        Random random = new Random(32);
        for (int round = 0; round < 2_000; round++) {
            ObjectNode root = JSON.createObjectNode();
            ArrayNode list = root.putArray("tasks");
            for (int i = 1 + random.nextInt(4); i > 0; i--) {
                ObjectNode task = JSON.createObjectNode();
                List<String> members = new ArrayList<>(List.of("agent", "task", "context"));
                Collections.shuffle(members, random);
                for (String m : members) {
                    if (!m.equals("context")) {
                        task.put(m, text(random));
                    } else if (random.nextInt(3) == 0) {
                        task.putNull(m);
                    } else if (random.nextInt(3) > 0) {
                        task.put(m, text(random));
                    }
                }
                list.add(task);
            }
            String written = spaced(JSON.writeValueAsString(root), random);

            assertThat(read(written)).as(written).isNotNull().isEqualTo(jackson(written));
        }
    }

    /**
     * Whatever one slip (a character changed, dropped or added, or the text cut short) makes of
     * valid arguments, the reader either refuses it or reads what Jackson reads: never a task
     * Jackson would not give.
     */
    @Test
    void whateverItReadsFromDamagedArgumentsJacksonReadsTheSame() {
        Random random = new Random(7);
        String valid = "{\"tasks\":[{\"agent\":\"worker\",\"task\":\"a \\\"quoted\\\" \\u00e9 part\",\"context\":null},"
                + " {\"context\":\"c\\n\",\"task\":\"b\",\"agent\":\"helper\"}]}";
        char[] slips = "{}[],:\"\\ \n\tnul0aeu/".toCharArray();
        int read = 0;
        for (int round = 0; round < 20_000; round++) {
            StringBuilder text = new StringBuilder(valid);
            int at = random.nextInt(text.length());
            switch (random.nextInt(4)) {
                case 0 -> text.setCharAt(at, slips[random.nextInt(slips.length)]);
                case 1 -> text.deleteCharAt(at);
                case 2 -> text.insert(at, slips[random.nextInt(slips.length)]);
                default -> text.setLength(at);
            }
            List<Task> got = read(text.toString());
            if (got != null) {
                read++;
                assertThat(got).as(text.toString()).isEqualTo(jackson(text.toString()));
            }
        }
        assertThat(read).isGreaterThan(1_000); // some slips leave valid arguments: spaces, other letters
    }

    /** A string of random characters: letters, quotes, backslashes, control characters, non-Latin ones, surrogates. */
    private static String text(Random random) {
        char[] alphabet = ("ab \"\\/\b\f\n\r\t\u0000\u001f\u007féÉ€\u2028\ud83d\ude00" + "xyz").toCharArray();
        char[] out = new char[random.nextInt(12)];
        for (int i = 0; i < out.length; i++) {
            out[i] = alphabet[random.nextInt(alphabet.length)];
        }
        return new String(out);
    }

    /** The text with whitespace added at random before its tokens' first characters (outside strings). */
    private static String spaced(String json, Random random) {
        StringBuilder out = new StringBuilder();
        boolean inString = false;
        for (int i = 0; i < json.length(); i++) {
            char c = json.charAt(i);
            if (!inString && "{}[],:\"".indexOf(c) >= 0 && random.nextInt(3) == 0) {
                out.append(" \n\t\r".charAt(random.nextInt(4)));
            }
            out.append(c);
            if (c == '"' && backslashesBefore(json, i) % 2 == 0) {
                inString = !inString;
            }
        }
        return out.toString();
    }

    private static int backslashesBefore(String json, int i) {
        int n = 0;
        while (i - 1 - n >= 0 && json.charAt(i - 1 - n) == '\\') {
            n++;
        }
        return n;
    }

    @Test
    void theReaderAndJacksonAgreeOnTheUsualBigCall() {
        StringBuilder json = new StringBuilder("{\"tasks\":[");
        for (int i = 0; i < 1_000; i++) {
            json.append(i == 0 ? "" : ",").append("{\"agent\":\"worker\",\"task\":\"Work on part ").append(i)
                    .append("\",\"context\":\"The parts are independent.\"}");
        }
        String text = json.append("]}").toString();

        List<Task> tasks = read(text);
        assertThat(tasks).hasSize(1_000).isEqualTo(jackson(text))
                .endsWith(new Task("worker", "Work on part 999", "The parts are independent."));
    }
}
