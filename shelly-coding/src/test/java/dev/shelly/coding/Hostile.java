package dev.shelly.coding;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolContext;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * A workspace under attack: a canary planted outside it and in its {@code .env}, the toolbox a
 * model calls, and the checks every hostile call must pass: no canary and no absolute path in
 * any result, nothing outside changed.
 */
final class Hostile {
    static final String CANARY = "CANARY-7f3a9c";

    final Path base;
    final Path ws;
    final Path outside;
    final ToolBox box;
    private final Map<String, String> before;

    /** Plants the canaries: outside/{canary.txt, src.txt, w.txt, del.txt, d/}, base/canary.txt, ws/.env. */
    Hostile(Path base) throws IOException {
        this.base = base;
        this.ws = Files.createDirectories(base.resolve("ws"));
        this.outside = Files.createDirectories(base.resolve("outside"));
        for (String name : new String[] {"canary.txt", "src.txt", "w.txt", "del.txt", "m1.txt", "copy.txt"}) {
            Files.writeString(outside.resolve(name), CANARY + " " + name);
        }
        Files.createDirectories(outside.resolve("sub"));
        Files.writeString(outside.resolve("sub/x.txt"), CANARY + " sub");
        Files.writeString(base.resolve("canary.txt"), CANARY + " base");
        Files.writeString(ws.resolve(".env"), "OPENAI_API_KEY=" + CANARY);
        this.box = CodingTools.builder(ws).build().toolBox();
        this.before = snapshot(outside);
    }

    /** Calls a tool and checks its result: no canary, no absolute path of the workspace or above it. */
    ToolResult call(String tool, Object... kv) {
        ToolResult r = box.call(new ToolCall("c1", tool, EscapeTest.args(kv)), ToolContext.of("coder"));
        assertThat(r.text()).as("%s %s", tool, EscapeTest.args(kv)).doesNotContain(CANARY)
                .doesNotContain(base.toString()).doesNotContain(ws.toString());
        return r;
    }

    /** Calls a tool that must be refused, and returns the refusal. */
    String refused(String tool, Object... kv) {
        ToolResult r = call(tool, kv);
        assertThat(r.isError()).as("%s %s -> %s", tool, EscapeTest.args(kv), r.text()).isTrue();
        return r.text();
    }

    /** Nothing outside the workspace was created, changed or deleted, and the canaries are in place. */
    void assertNothingOutsideChanged() throws IOException {
        assertThat(snapshot(outside)).isEqualTo(before);
        assertThat(Files.readString(base.resolve("canary.txt"))).isEqualTo(CANARY + " base");
        assertThat(Files.readString(ws.resolve(".env"))).isEqualTo("OPENAI_API_KEY=" + CANARY);
    }

    /** Every entry below a directory: a file with its content, a directory or a link with its kind. */
    static Map<String, String> snapshot(Path dir) throws IOException {
        Map<String, String> out = new TreeMap<>();
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.toList()) {
                String rel = dir.relativize(p).toString();
                if (Files.isSymbolicLink(p)) {
                    out.put(rel, "link " + Files.readSymbolicLink(p));
                } else if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
                    out.put(rel, "dir");
                } else {
                    out.put(rel, Files.readString(p));
                }
            }
        }
        return out;
    }
}
