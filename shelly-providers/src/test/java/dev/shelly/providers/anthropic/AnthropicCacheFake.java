package dev.shelly.providers.anthropic;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.RecordedRequest;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * A Messages API that caches prompts the way the real one does, closely enough to measure how
 * much of a conversation's input a client's breakpoints let it read back:
 * <ul>
 *   <li>the prompt is a sequence of blocks, tools then system then messages; a block costs one
 *       token per 4 UTF-8 bytes of its canonical JSON (without its {@code cache_control});
 *   <li>at each {@code cache_control} block it stores the hash of the prefix ending there, when
 *       that prefix holds at least 1024 tokens;
 *   <li>a request reads the longest stored prefix that ends within the 20 blocks up to one of its
 *       breakpoints, and writes the rest up to its last breakpoint;
 *   <li>more than 4 breakpoints, or a malformed {@code cache_control}, is the API's 400.
 * </ul>
 * It answers a tool result with text and anything else with a call to the first tool.
 */
final class AnthropicCacheFake extends Dispatcher {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final int MIN_TOKENS = 1024;
    private static final int LOOKBACK = 20;

    private final Set<String> stored = ConcurrentHashMap.newKeySet();
    private int calls;

    @Override
    public MockResponse dispatch(RecordedRequest request) {
        JsonNode body = JSON.readTree(request.getBody().utf8());
        List<JsonNode> blocks = new ArrayList<>();
        List<String> roles = new ArrayList<>();
        for (JsonNode tool : body.path("tools")) {
            blocks.add(tool);
            roles.add("tool");
        }
        JsonNode system = body.get("system");
        if (system != null && system.isString()) {
            blocks.add(JSON.createObjectNode().put("type", "text").put("text", system.stringValue()));
            roles.add("system");
        } else if (system != null) {
            for (JsonNode b : system) {
                blocks.add(b);
                roles.add("system");
            }
        }
        for (JsonNode m : body.path("messages")) {
            for (JsonNode b : m.path("content")) {
                blocks.add(b);
                roles.add(m.path("role").stringValue());
            }
        }
        List<Integer> breakpoints = new ArrayList<>();
        long[] tokens = new long[blocks.size()];
        String[] hashes = new String[blocks.size()];
        MessageDigest digest = sha256();
        for (int i = 0; i < blocks.size(); i++) {
            JsonNode b = blocks.get(i);
            JsonNode control = b.get("cache_control");
            if (control != null) {
                String problem = problem(control);
                if (problem != null) {
                    return error(problem);
                }
                breakpoints.add(i);
            }
            ObjectNode plain = ((ObjectNode) b).deepCopy();
            plain.remove("cache_control");
            byte[] canonical = (roles.get(i) + ":" + JSON.writeValueAsString(plain)).getBytes(StandardCharsets.UTF_8);
            tokens[i] = (canonical.length + 3) / 4;
            digest.update(canonical);
            hashes[i] = HexFormat.of().formatHex(cloneDigest(digest).digest());
        }
        if (breakpoints.size() > 4) {
            return error("A maximum of 4 blocks with cache_control may be provided. Found " + breakpoints.size() + ".");
        }
        long[] upTo = new long[blocks.size()];
        long sum = 0;
        for (int i = 0; i < blocks.size(); i++) {
            sum += tokens[i];
            upTo[i] = sum;
        }
        int hit = -1;
        for (int b : breakpoints) {
            for (int j = b; j >= 0 && j > b - LOOKBACK; j--) {
                if (stored.contains(hashes[j])) {
                    hit = Math.max(hit, j);
                    break;
                }
            }
        }
        long read = hit < 0 ? 0 : upTo[hit];
        long write = 0;
        if (!breakpoints.isEmpty()) {
            int last = breakpoints.getLast();
            if (upTo[last] >= MIN_TOKENS && last > hit) {
                write = upTo[last] - read;
            }
            for (int b : breakpoints) {
                if (upTo[b] >= MIN_TOKENS) {
                    stored.add(hashes[b]);
                }
            }
        }
        long input = sum - read - write;
        return reply(body, blocks, input, read, write);
    }

    private MockResponse reply(JsonNode body, List<JsonNode> blocks, long input, long read, long write) {
        calls++;
        boolean answer = !blocks.isEmpty() && "tool_result".equals(blocks.getLast().path("type").stringValue());
        String content = answer || body.path("tools").isEmpty()
                ? "{\"type\":\"text\",\"text\":\"Done.\"}"
                : "{\"type\":\"tool_use\",\"id\":\"toolu_" + calls + "\",\"name\":\""
                        + body.path("tools").get(0).path("name").stringValue() + "\",\"input\":{\"q\":" + calls + "}}";
        String json = "{\"id\":\"msg_" + calls + "\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\""
                + body.path("model").stringValue() + "\",\"content\":[" + content + "],\"stop_reason\":\""
                + (answer ? "end_turn" : "tool_use") + "\",\"usage\":{\"input_tokens\":" + input
                + ",\"cache_creation_input_tokens\":" + write + ",\"cache_read_input_tokens\":" + read
                + ",\"output_tokens\":12}}";
        return new MockResponse.Builder().code(200).addHeader("Content-Type", "application/json").body(json).build();
    }

    private static String problem(JsonNode control) {
        if (!control.isObject() || !"ephemeral".equals(control.path("type").stringValue())) {
            return "cache_control.type: Input should be 'ephemeral'";
        }
        JsonNode ttl = control.get("ttl");
        if (ttl != null && !ttl.isString() || ttl != null && !Set.of("5m", "1h").contains(ttl.stringValue())) {
            return "cache_control.ttl: Input should be '5m' or '1h'";
        }
        if (control.size() > (ttl == null ? 1 : 2)) {
            return "cache_control: Extra inputs are not permitted";
        }
        return null;
    }

    private static MockResponse error(String message) {
        String json = "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":"
                + JSON.writeValueAsString(message) + "}}";
        return new MockResponse.Builder().code(400).addHeader("Content-Type", "application/json").body(json).build();
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static MessageDigest cloneDigest(MessageDigest d) {
        try {
            return (MessageDigest) d.clone();
        } catch (CloneNotSupportedException e) {
            throw new IllegalStateException(e);
        }
    }
}
