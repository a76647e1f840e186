package dev.shelly.coding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * FIFOs, sockets and devices in the workspace: every tool that would open one refuses it without
 * opening it, so no call hangs, and nothing outside changes.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class FileKindTest {
    @TempDir
    static Path base;

    static Hostile h;
    static ServerSocketChannel socket;
    static boolean devices;

    @BeforeAll
    static void setUp() throws Exception {
        h = new Hostile(base);
        Files.createDirectories(h.ws.resolve("d"));
        mkfifo(h.ws.resolve("fifo"));
        mkfifo(h.ws.resolve("d/fifo2"));
        Files.createSymbolicLink(h.ws.resolve("fifo-link"), h.ws.resolve("fifo"));
        socket = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        socket.bind(UnixDomainSocketAddress.of(h.ws.resolve("sock")));
        // Devices need the right to make them (root, outside a user namespace): left out where it is missing.
        devices = run("mknod", h.ws.resolve("null-dev").toString(), "c", "1", "3") == 0
                && run("mknod", h.ws.resolve("zero-dev").toString(), "c", "1", "5") == 0;
    }

    @AfterAll
    static void tearDown() throws Exception {
        socket.close();
    }

    static void mkfifo(Path p) throws Exception {
        assertThat(run("mkfifo", p.toString())).isZero();
    }

    static int run(String... cmd) throws Exception {
        return new ProcessBuilder(cmd).redirectErrorStream(true).start().waitFor();
    }

    static List<String> specials() {
        List<String> out = new ArrayList<>(List.of("fifo", "d/fifo2", "fifo-link", "sock"));
        if (devices) {
            out.addAll(List.of("null-dev", "zero-dev"));
        }
        return out;
    }

    static Stream<Arguments> attempts() {
        List<Arguments> out = new ArrayList<>();
        for (String p : specials()) {
            out.add(Arguments.of(CodingTools.READ, new Object[] {"path", p}));
            out.add(Arguments.of(CodingTools.EDIT, new Object[] {"path", p, "old_text", "a", "new_text", "b"}));
            out.add(Arguments.of(CodingTools.PATCH, new Object[] {"patch", "--- a/" + p + "\n+++ b/" + p
                + "\n@@ -1 +1 @@\n-a\n+b\n"}));
            out.add(Arguments.of(CodingTools.COPY, new Object[] {"from", p, "to", "copy.txt", "overwrite", true}));
            out.add(Arguments.of(CodingTools.WRITE, new Object[] {"path", p, "content", "x"}));
            out.add(Arguments.of(CodingTools.SEARCH, new Object[] {"pattern", "a", "path", p}));
        }
        return out.stream();
    }

    @ParameterizedTest(name = "[{index}] {0} {1}")
    @MethodSource("attempts")
    void aSpecialFileIsRefusedWithoutOpeningIt(String tool, Object[] args) throws Exception {
        assertThat(h.refused(tool, args)).contains("is a special file (a FIFO, socket or device)");
        h.assertNothingOutsideChanged();
        assertThat(h.ws.resolve("copy.txt")).doesNotExist();
    }

    @Test
    void refusalsNameTheKindAndTheRule() {
        assertThat(h.refused(CodingTools.READ, "path", "fifo")).isEqualTo("'fifo' is a special file (a FIFO, socket or "
                + "device); the file tools read and write only regular files and directories");
        assertThat(h.refused(CodingTools.READ, "path", "fifo-link")).isEqualTo("'fifo' is a special file (a FIFO, "
                + "socket or device); the file tools read and write only regular files and directories");
        assertThat(h.refused(CodingTools.WRITE, "path", "sock", "content", "x"))
                .isEqualTo("'sock' is a special file (a FIFO, socket or device); fs_write writes regular files only");
    }

    @Test
    void walksPassSpecialFilesByAndStatTellsTheirType() {
        assertThat(h.call(CodingTools.SEARCH, "pattern", "OPENAI|CANARY").text()).isEqualTo("no match for /OPENAI|CANARY/");
        assertThat(h.call(CodingTools.LIST, "glob", "**").text()).isEqualTo("(no file matches '**')");
        assertThat(h.call(CodingTools.STAT, "path", "fifo").text()).startsWith("path: fifo\ntype: other\nmodified: ");
        assertThat(h.call(CodingTools.READ, "path", "/dev/zero").text()).isEqualTo("path '/dev/zero' is outside the workspace");
    }

    @Test
    void aFifoSwappedInAfterTheLookDoesNotHangTheOpen() throws Exception {
        Path file = h.ws.resolve("swapped.txt");
        Files.writeString(file, "regular");
        try (Handles handles = Handles.open(Workspace.of(h.ws, List.of()), new ReentrantLock(), new FileOpener())) {
            Handles.Entry e = handles.entry("swapped.txt");
            PosixFileAttributes looked = handles.stat(e);
            Path fifo = h.ws.resolve("swap.fifo");
            mkfifo(fifo);
            Files.move(fifo, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            long start = System.nanoTime();
            assertThatThrownBy(() -> handles.openRead(e, looked)).isInstanceOf(RefusedException.class)
                    .hasMessage("'swapped.txt' did not open: it turned into a special file (a FIFO or device) while the "
                            + "tool ran, or stayed unopened for 3 s; the file tools read only regular files");
            // Given up as soon as the name is seen to be a FIFO, not after the whole 3 s.
            assertThat(System.nanoTime() - start).isLessThan(TimeUnit.MILLISECONDS.toNanos(2_000));
        }
        // The stuck open was let go: the FIFO can be deleted and the tools go on.
        assertThat(h.call(CodingTools.DELETE, "path", "swapped.txt").text()).isEqualTo("deleted swapped.txt");
    }
}
