package dev.shelly.coding;

import java.io.IOException;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Opens a file for reading where it may turn into a FIFO between the caller's look and the open.
 *
 * <p>Opening a FIFO for reading waits, inside the kernel, until a writer opens it. The JDK does
 * not let a virtual thread go while it waits in an open: the thread keeps its carrier, and once
 * every carrier is held so (two on a two-core machine) no virtual thread of the JVM runs again.
 * So the open runs on a platform thread of this opener's own, which holds nothing else; the caller
 * waits a bounded time, looking every {@value #LOOK_MILLIS} ms at the name it opens, and gives up
 * at once when the name is no regular file any more, or after the timeout. An open given up is
 * abandoned: what it opens later is closed, and while it waits, a FIFO seen at the name is opened
 * for reading and writing (which never waits, and counts as the writer), letting it go. A FIFO
 * moved away meanwhile leaves its open waiting for a writer on a parked daemon thread, which
 * stops no call and no other thread.
 */
final class FileOpener {
    /** How long opening a regular file may take before it is given up as turned into a FIFO. */
    static final Duration OPEN_TIMEOUT = Duration.ofSeconds(3);
    /** How often a pending open looks at what it opens. */
    static final long LOOK_MILLIS = 50;
    /** How long an abandoned open is helped out of a FIFO. */
    private static final long RELEASE_LOOKS = 10 * OPEN_TIMEOUT.toMillis() / LOOK_MILLIS;
    private static final LinkOption NOFOLLOW = LinkOption.NOFOLLOW_LINKS;

    /** What the name being opened is now: its attributes, links not followed, or null when it is gone. */
    @FunctionalInterface
    interface Look {
        PosixFileAttributes now() throws IOException;
    }

    private final Duration timeout;
    /** The names of this opener's threads start with it. */
    private final String threadName = "shelly-open-" + Integer.toHexString(System.identityHashCode(this)) + "-";
    private final ExecutorService threads = Executors.newCachedThreadPool(
            Thread.ofPlatform().daemon().name(threadName, 1).factory());

    FileOpener() {
        this(OPEN_TIMEOUT);
    }

    FileOpener(Duration timeout) {
        this.timeout = timeout;
    }

    /**
     * Opens a name for reading, links not followed.
     *
     * @param dir a directory handle for this open alone, which the opener closes: a directory
     *     stream's close waits for the operations on it, so an open that waits must not hold a
     *     handle the caller closes
     * @param name the name in it
     * @param look what the name is now, asked while the open is pending
     * @return the channel; it may be on something other than a regular file, when a writer let a
     *     FIFO's open go (see {@link #seekable})
     * @throws TimeoutException when the open was given up (and abandoned)
     * @throws InterruptedException when the caller was interrupted (the open is abandoned)
     * @throws IOException when the open failed
     */
    SeekableByteChannel open(SecureDirectoryStream<Path> dir, Path name, Look look)
            throws IOException, TimeoutException, InterruptedException {
        Pending pending = new Pending(dir, name);
        threads.execute(pending::open);
        try {
            return awaited(pending.result, look);
        } catch (TimeoutException | InterruptedException e) {
            if (pending.result.cancel(false)) {
                threads.execute(pending::release);
            } else if (!pending.result.isCompletedExceptionally()) {
                pending.result.join().close();
            }
            throw e;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            throw new IllegalStateException("opening '" + name + "' failed", e.getCause());
        }
    }

    private SeekableByteChannel awaited(CompletableFuture<SeekableByteChannel> result, Look look)
            throws TimeoutException, ExecutionException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            try {
                return result.get(LOOK_MILLIS, TimeUnit.MILLISECONDS);
            } catch (TimeoutException x) {
                PosixFileAttributes now;
                try {
                    now = look.now();
                } catch (IOException | RuntimeException gone) {
                    now = null;
                }
                if (now == null || !now.isRegularFile() || System.nanoTime() - deadline >= 0) {
                    throw x;
                }
            }
        }
    }

    /** Whether a thread is one of this opener's. */
    boolean owns(Thread thread) {
        return thread.getName().startsWith(threadName);
    }

    /**
     * Whether a channel can seek: one on a regular file can, one on a FIFO cannot. Tells what an
     * open reached when the name was looked at before or after it, but not during it.
     */
    static boolean seekable(SeekableByteChannel ch) {
        try {
            ch.position();
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** One open on a thread of the opener's, and what it gave. */
    private static final class Pending {
        final SecureDirectoryStream<Path> dir;
        final Path name;
        final CompletableFuture<SeekableByteChannel> result = new CompletableFuture<>();
        /** Whether the open call has returned, with a channel or a failure. */
        private volatile boolean returned;

        Pending(SecureDirectoryStream<Path> dir, Path name) {
            this.dir = dir;
            this.name = name;
        }

        void open() {
            try {
                SeekableByteChannel ch = dir.newByteChannel(name, Set.of(StandardOpenOption.READ, NOFOLLOW));
                if (!result.complete(ch)) {
                    ch.close(); // abandoned: nobody takes it
                }
            } catch (IOException | RuntimeException e) {
                result.completeExceptionally(e);
            } finally {
                returned = true;
                try {
                    dir.close();
                } catch (IOException e) {
                    // A directory handle holds nothing to flush.
                }
            }
        }

        /**
         * Lets an abandoned open that waits in a FIFO go: opened for reading and writing, a FIFO
         * never waits and counts as the writer. The name may hold the FIFO only now and then
         * (something swaps it), so it is looked at for a while.
         */
        void release() {
            for (long i = 0; i < RELEASE_LOOKS && !returned; i++) {
                try {
                    PosixFileAttributes now = dir.getFileAttributeView(name, PosixFileAttributeView.class, NOFOLLOW)
                            .readAttributes();
                    // Other is a FIFO here: a socket does not open, and a device cannot be made in a workspace.
                    if (now.isOther()) {
                        dir.newByteChannel(name, Set.of(StandardOpenOption.READ, StandardOpenOption.WRITE, NOFOLLOW))
                                .close();
                    }
                } catch (IOException | RuntimeException e) {
                    // Not there at this look (something moves the name), or the open returned and closed the handle.
                }
                try {
                    Thread.sleep(LOOK_MILLIS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }
}
