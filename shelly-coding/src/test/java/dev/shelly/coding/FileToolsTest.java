package dev.shelly.coding;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileToolsTest {
    @TempDir
    Path ws;

    ToolBox box;

    @BeforeEach
    void setUp() {
        box = CodingTools.builder(ws).build().toolBox();
    }

    ToolResult call(String tool, Object... kv) {
        return box.call(new ToolCall("c1", tool, EscapeTest.args(kv)), ToolContext.of("coder"));
    }

    String ok(String tool, Object... kv) {
        ToolResult r = call(tool, kv);
        assertThat(r.isError()).as(r.text()).isFalse();
        return r.text();
    }

    String error(String tool, Object... kv) {
        ToolResult r = call(tool, kv);
        assertThat(r.isError()).as(r.text()).isTrue();
        return r.text();
    }

    @Test
    void readsNumberedLinesAndRanges() throws Exception {
        Files.writeString(ws.resolve("a.txt"), "one\ntwo\nthree\nfour\n");
        assertThat(ok(CodingTools.READ, "path", "a.txt")).isEqualTo("     1\tone\n     2\ttwo\n     3\tthree\n     4\tfour\n");
        assertThat(ok(CodingTools.READ, "path", "a.txt", "start_line", 2, "end_line", 3))
                .isEqualTo("     2\ttwo\n     3\tthree\n");
        assertThat(error(CodingTools.READ, "path", "a.txt", "start_line", 9))
                .isEqualTo("'a.txt' has 4 lines; start_line 9 is past its end");
        assertThat(error(CodingTools.READ, "path", "nope.txt")).isEqualTo("file 'nope.txt' does not exist");
    }

    @Test
    void readStopsAtTheSizeCapAndSaysWhereToGoOn() throws Exception {
        box = CodingTools.builder(ws).maxReadChars(100).build().toolBox();
        Files.writeString(ws.resolve("big.txt"), "0123456789\n".repeat(50));
        String text = ok(CodingTools.READ, "path", "big.txt");
        assertThat(text).endsWith("[stopped at 100 characters after line 5 of 'big.txt' (550 bytes); read on with "
                + "start_line 6]");
    }

    @Test
    void refusesBinaryFiles() throws Exception {
        Files.write(ws.resolve("b.bin"), new byte[] {1, 0, 2});
        assertThat(error(CodingTools.READ, "path", "b.bin")).isEqualTo("'b.bin' is a binary file (3 bytes); fs_read reads text");
    }

    @Test
    void writesAtomicallyWithParentsAndLeavesNoTemporaryFile() throws Exception {
        assertThat(ok(CodingTools.WRITE, "path", "x/y/z.txt", "content", "hi")).isEqualTo("created x/y/z.txt (2 bytes)");
        assertThat(ok(CodingTools.WRITE, "path", "x/y/z.txt", "content", "hello")).isEqualTo("wrote x/y/z.txt (5 bytes)");
        assertThat(Files.readString(ws.resolve("x/y/z.txt"))).isEqualTo("hello");
        try (Stream<Path> s = Files.list(ws.resolve("x/y"))) {
            assertThat(s.map(p -> p.getFileName().toString())).containsExactly("z.txt");
        }
    }

    @Test
    void editReplacesExactlyOnceAndRefusesAmbiguousOrMissingText() throws Exception {
        Files.writeString(ws.resolve("a.java"), "int a = 1;\nint b = 1;\nint c = 2;\n");
        assertThat(error(CodingTools.EDIT, "path", "a.java", "old_text", "= 1;", "new_text", "= 3;"))
                .isEqualTo("old_text occurs 2 times in 'a.java' (at lines 1, 2); add surrounding lines to make it unique, "
                        + "or set replace_all to replace every one");
        assertThat(Files.readString(ws.resolve("a.java"))).isEqualTo("int a = 1;\nint b = 1;\nint c = 2;\n");
        assertThat(error(CodingTools.EDIT, "path", "a.java", "old_text", "int d", "new_text", "x"))
                .isEqualTo("old_text was not found in 'a.java'; it must match the file exactly, whitespace included "
                        + "(read the file again)");
        assertThat(ok(CodingTools.EDIT, "path", "a.java", "old_text", "int b = 1;", "new_text", "int b = 5;"))
                .isEqualTo("edited a.java: replaced 1 occurrence at line 2");
        assertThat(ok(CodingTools.EDIT, "path", "a.java", "old_text", "int", "new_text", "long", "replace_all", true))
                .isEqualTo("edited a.java: replaced 3 occurrences at line 1");
        assertThat(Files.readString(ws.resolve("a.java"))).isEqualTo("long a = 1;\nlong b = 5;\nlong c = 2;\n");
    }

    @Test
    void appliesAUnifiedDiffAcrossFilesOrNothing() throws Exception {
        Files.writeString(ws.resolve("a.txt"), "one\ntwo\nthree\n");
        Files.writeString(ws.resolve("b.txt"), "alpha\nbeta\n");
        String patch = """
                --- a/a.txt
                +++ b/a.txt
                @@ -1,3 +1,3 @@
                 one
                -two
                +TWO
                 three
                --- /dev/null
                +++ b/new/c.txt
                @@ -0,0 +1,2 @@
                +made
                +here
                """;
        assertThat(ok(CodingTools.PATCH, "patch", patch)).isEqualTo("patched a.txt (1 hunk)\ncreated new/c.txt (1 hunk)");
        assertThat(Files.readString(ws.resolve("a.txt"))).isEqualTo("one\nTWO\nthree\n");
        assertThat(Files.readString(ws.resolve("new/c.txt"))).isEqualTo("made\nhere\n");
        String bad = """
                --- a/b.txt
                +++ b/b.txt
                @@ -1,2 +1,2 @@
                -alpha
                +ALPHA
                 beta
                --- a/a.txt
                +++ b/a.txt
                @@ -1,1 +1,1 @@
                -nothing like this
                +x
                """;
        assertThat(error(CodingTools.PATCH, "patch", bad)).isEqualTo("hunk 1 (@@ -1,1 +1,1 @@) of the patch for 'a.txt' "
                + "does not match the file: its context and removed lines were not found; read the file again and make "
                + "the patch against its current text");
        assertThat(Files.readString(ws.resolve("b.txt"))).as("nothing written when a hunk fails").isEqualTo("alpha\nbeta\n");
    }

    @Test
    void patchFindsAHunkWhoseLinesMoved() throws Exception {
        Files.writeString(ws.resolve("m.txt"), "added\nadded\none\ntwo\nthree\n");
        ok(CodingTools.PATCH, "patch", "--- a/m.txt\n+++ b/m.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n");
        assertThat(Files.readString(ws.resolve("m.txt"))).isEqualTo("added\nadded\none\n2\nthree\n");
    }

    @Test
    void listsGlobsStatsMovesCopiesDeletesAndMakesDirectories() throws Exception {
        ok(CodingTools.MKDIR, "path", "src/main");
        Files.writeString(ws.resolve("src/main/A.java"), "class A {}");
        Files.writeString(ws.resolve("src/B.java"), "class B {}");
        Files.writeString(ws.resolve("README.md"), "r");
        assertThat(ok(CodingTools.LIST)).isEqualTo("README.md (1 bytes)\nsrc/");
        assertThat(ok(CodingTools.LIST, "glob", "**/*.java")).contains("src/B.java (10 bytes)", "src/main/A.java (10 bytes)");
        assertThat(ok(CodingTools.STAT, "path", "src/B.java")).startsWith("path: src/B.java\ntype: file\nsize: 10 bytes");
        assertThat(ok(CodingTools.COPY, "from", "src/B.java", "to", "src/C.java")).isEqualTo("copied src/B.java to src/C.java");
        assertThat(error(CodingTools.COPY, "from", "src/B.java", "to", "src/C.java"))
                .isEqualTo("'src/C.java' exists; set overwrite to replace it");
        assertThat(ok(CodingTools.MOVE, "from", "src/C.java", "to", "lib/C.java")).isEqualTo("moved src/C.java to lib/C.java");
        assertThat(error(CodingTools.DELETE, "path", "src"))
                .isEqualTo("directory 'src' is not empty; set recursive to delete it with everything in it");
        assertThat(ok(CodingTools.DELETE, "path", "src", "recursive", true))
                .isEqualTo("deleted directory src and the 2 files in it");
        assertThat(ws.resolve("src")).doesNotExist();
        assertThat(ws.resolve("lib/C.java")).hasContent("class B {}");
    }

    @Test
    void twoWritesOfOneFileInATurnAreSerialisedAndNothingIsHalfWritten() throws Exception {
        // A long file makes each read-change-write take a while, so unserialised calls would overlap.
        Files.writeString(ws.resolve("counter.txt"), "base\n".repeat(100_000));
        int n = 40;
        ExecutorService pool = Executors.newFixedThreadPool(8);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<ToolResult>> results = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) {
                String line = "line " + i + "\n";
                Callable<ToolResult> edit = () -> {
                    start.await();
                    // Each call appends its line by editing the file's end: lost updates would drop lines.
                    return call(CodingTools.PATCH, "patch", "--- a/counter.txt\n+++ b/counter.txt\n@@ -0,0 +1 @@\n+"
                            + line);
                };
                results.add(pool.submit(edit));
            }
            start.countDown();
            for (Future<ToolResult> f : results) {
                assertThat(f.get().isError()).as(f.get().text()).isFalse();
            }
        } finally {
            pool.shutdownNow();
        }
        List<String> lines = Files.readAllLines(ws.resolve("counter.txt"));
        assertThat(lines).hasSize(n + 100_000);
        assertThat(lines.subList(0, n)).allMatch(l -> l.startsWith("line ")).doesNotHaveDuplicates();
    }

    @Test
    void aReaderNeverSeesAHalfWrittenFile() throws Exception {
        String a = "A".repeat(200_000);
        String b = "B".repeat(200_000);
        Files.writeString(ws.resolve("f.txt"), a);
        Thread writer = Thread.ofPlatform().start(() -> {
            for (int i = 0; i < 30; i++) {
                call(CodingTools.WRITE, "path", "f.txt", "content", i % 2 == 0 ? b : a);
            }
        });
        while (writer.isAlive()) {
            String s = Files.readString(ws.resolve("f.txt"));
            assertThat(s.equals(a) || s.equals(b)).as("a whole file, never a mix or a part").isTrue();
        }
        writer.join();
    }
}
