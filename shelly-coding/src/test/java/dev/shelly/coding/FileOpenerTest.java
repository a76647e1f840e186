package dev.shelly.coding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Opens that wait in a FIFO: opening a FIFO for reading waits in the kernel for a writer, and
 * such a wait must hold up neither the call (it is given up) nor any other thread of the JVM.
 */
class FileOpenerTest {
    @TempDir
    Path dir;

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void opensLeftWaitingInFifosStopNoVirtualThread() throws Exception {
        // More waiting opens than the virtual threads have carriers: on virtual threads these
        // opens held every carrier, and no virtual thread of the JVM ran again.
        int waiting = Runtime.getRuntime().availableProcessors() + 2;
        Files.writeString(dir.resolve("plain.txt"), "plain");
        PosixFileAttributes regular = Files.readAttributes(dir.resolve("plain.txt"), PosixFileAttributes.class);
        Path away = Files.createDirectory(dir.resolve("away"));
        FileOpener opener = new FileOpener(Duration.ofSeconds(5));
        List<Path> moved = new ArrayList<>();
        for (int i = 0; i < waiting; i++) {
            String name = "f" + i;
            FileKindTest.mkfifo(dir.resolve(name));
            int before = i;
            boolean[] gone = {false};
            // The name looks regular while the open waits, as when something swapped the FIFO in
            // and out; once the open waits in the FIFO, the FIFO is moved away, so nothing finds
            // it to let the open go, and the name is gone: the open is given up at once.
            assertThatThrownBy(() -> opener.open(handle(), Path.of(name), () -> {
                if (!gone[0] && waitingInOpen(opener) > before) {
                    Files.move(dir.resolve(name), away.resolve(name));
                    gone[0] = true;
                }
                return gone[0] ? null : regular;
            })).isInstanceOf(TimeoutException.class);
            moved.add(away.resolve(name));
        }
        Thread virtual = Thread.ofVirtual().start(() -> { });
        assertThat(virtual.join(Duration.ofSeconds(10))).as("a virtual thread runs").isTrue();
        assertThat(waitingInOpen(opener)).as("opens waiting in a FIFO that was moved away").isEqualTo(waiting);
        try (SeekableByteChannel ch = opener.open(handle(), Path.of("plain.txt"), () -> regular)) {
            assertThat(FileOpener.seekable(ch)).isTrue();
            assertThat(ch.size()).isEqualTo(5);
        }

        // A writer lets the waiting opens go; what they opened is closed, nothing waits any more.
        for (Path fifo : moved) {
            try (FileChannel writer = FileChannel.open(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                assertThat(writer.isOpen()).isTrue();
            }
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (waitingInOpen(opener) > 0 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(waitingInOpen(opener)).isZero();
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void anOpenGivenUpWhileTheNameIsAFifoIsLetGo() throws Exception {
        FileKindTest.mkfifo(dir.resolve("fifo"));
        FileOpener opener = new FileOpener(Duration.ofSeconds(5));
        boolean[] waited = {false};
        long start = System.nanoTime();
        assertThatThrownBy(() -> opener.open(handle(), Path.of("fifo"), () -> {
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(4);
            while (waitingInOpen(opener) == 0 && System.nanoTime() - until < 0) {
                LockSupport.parkNanos(5_000_000);
            }
            waited[0] = waitingInOpen(opener) > 0;
            return Files.readAttributes(dir.resolve("fifo"), PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        })).isInstanceOf(TimeoutException.class);
        assertThat(System.nanoTime() - start).as("given up at the first look").isLessThan(TimeUnit.SECONDS.toNanos(5));
        assertThat(waited[0]).as("the open waited in the FIFO").isTrue();
        // The FIFO is still at the name: the release opens it for writing, and the open returns.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (waitingInOpen(opener) > 0 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(waitingInOpen(opener)).isZero();
    }

    @Test
    void aChannelOnAFifoDoesNotSeekAndOneOnAFileDoes() throws Exception {
        FileKindTest.mkfifo(dir.resolve("fifo"));
        Files.writeString(dir.resolve("file.txt"), "x");
        try (FileChannel fifo = FileChannel.open(dir.resolve("fifo"), StandardOpenOption.READ, StandardOpenOption.WRITE);
                FileChannel file = FileChannel.open(dir.resolve("file.txt"))) {
            assertThat(FileOpener.seekable(fifo)).isFalse();
            assertThat(FileOpener.seekable(file)).isTrue();
        }
    }

    private SecureDirectoryStream<Path> handle() throws IOException {
        DirectoryStream<Path> s = Files.newDirectoryStream(dir);
        return (SecureDirectoryStream<Path>) s;
    }

    /** How many of the opener's threads wait in the kernel's open. */
    private static long waitingInOpen(FileOpener opener) {
        long n = 0;
        for (Map.Entry<Thread, StackTraceElement[]> t : Thread.getAllStackTraces().entrySet()) {
            if (opener.owns(t.getKey())
                    && Arrays.stream(t.getValue()).anyMatch(f -> f.getMethodName().startsWith("openat"))) {
                n++;
            }
        }
        return n;
    }
}
