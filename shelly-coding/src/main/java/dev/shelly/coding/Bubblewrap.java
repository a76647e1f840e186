package dev.shelly.coding;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The bubblewrap sandbox: every command gets new namespaces (mount, PID with its own
 * {@code /proc}, network unless allowed, IPC, UTS, user where possible), no capabilities, the
 * whole file system read-only, a private {@code /tmp}, the hidden paths covered by empty ones,
 * the workspace bound writable on top, and its sensitive entries masked. {@code --die-with-parent}
 * and the PID namespace mean that killing the {@code bwrap} process ends everything inside.
 */
final class Bubblewrap implements Sandbox {
    /** Where Debian's package puts the program. */
    static final List<Path> PLACES = List.of(Path.of("/usr/bin/bwrap"), Path.of("/bin/bwrap"));

    private static final Path TMP = Path.of("/tmp");

    private final Path executable;
    private volatile boolean verified;

    Bubblewrap(Path executable) {
        this.executable = executable;
    }

    static Bubblewrap installed() {
        for (Path p : PLACES) {
            if (Files.isExecutable(p)) {
                return new Bubblewrap(p);
            }
        }
        return new Bubblewrap(PLACES.getFirst());
    }

    @Override
    public String name() {
        return "bubblewrap";
    }

    @Override
    public void verify() {
        if (verified) {
            return;
        }
        if (!Files.isRegularFile(executable) || !Files.isExecutable(executable)) {
            throw new IllegalStateException("the command sandbox bubblewrap is not installed (no executable '" + executable
                    + "'); install the package 'bubblewrap' (Debian, Ubuntu: apt-get install bubblewrap; Fedora: dnf "
                    + "install bubblewrap)");
        }
        Path truth = Files.isExecutable(Path.of("/usr/bin/true")) ? Path.of("/usr/bin/true") : Path.of("/bin/true");
        Path root = Path.of("/");
        List<String> probe = command(new Launch(root, List.of(truth.toString()), Map.of(), false, List.of(), List.of(),
                List.of()));
        String why;
        try {
            ProcessBuilder pb = new ProcessBuilder(probe).redirectErrorStream(true);
            pb.environment().clear();
            Process p = pb.start();
            p.getOutputStream().close();
            boolean done = p.waitFor(10, TimeUnit.SECONDS);
            String out = new String(p.getInputStream().readNBytes(2000), StandardCharsets.UTF_8).strip();
            if (!done) {
                p.destroyForcibly();
                why = "it did not finish within 10 s";
            } else if (p.exitValue() == 0) {
                verified = true;
                return;
            } else {
                why = "it exited with " + p.exitValue() + (out.isEmpty() ? "" : ": " + out);
            }
        } catch (IOException e) {
            why = e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while checking the command sandbox bubblewrap", e);
        }
        throw new IllegalStateException("the command sandbox bubblewrap ('" + executable + "') cannot start a sandbox "
                + "here: " + why + "; it needs unprivileged user namespaces (kernel.unprivileged_userns_clone=1) or root");
    }

    @Override
    public List<String> command(Launch launch) {
        Path ws = launch.workspace();
        List<String> a = new ArrayList<>(48 + launch.command().size() + 4 * launch.masked().size());
        a.add(executable.toString());
        a.add("--die-with-parent");
        a.add("--new-session");
        a.add("--unshare-all");
        if (launch.network()) {
            a.add("--share-net");
        }
        add(a, "--cap-drop", "ALL");
        add(a, "--ro-bind", "/", "/");
        add(a, "--dev", "/dev");
        add(a, "--proc", "/proc");
        add(a, "--tmpfs", TMP.toString());
        for (Path h : launch.hidden()) {
            // A hidden path that holds the workspace is covered first; the workspace's bind below
            // puts the workspace back inside it.
            if (h.getNameCount() == 0 || h.equals(TMP) || h.startsWith(ws) || !Files.exists(h, LinkOption.NOFOLLOW_LINKS)
                    || Files.isSymbolicLink(h)) {
                continue;
            }
            // Left writable: it is an empty private tmpfs, and the workspace may need a mount point in it.
            cover(a, h, false);
        }
        if (!ws.equals(Path.of("/"))) {
            add(a, "--bind", ws.toString(), ws.toString());
        }
        for (Path r : launch.readOnly()) {
            if (Files.exists(r, LinkOption.NOFOLLOW_LINKS) && !Files.isSymbolicLink(r)) {
                add(a, "--ro-bind", r.toString(), r.toString());
            }
        }
        for (Path m : launch.masked()) {
            if (Files.exists(m, LinkOption.NOFOLLOW_LINKS) && !Files.isSymbolicLink(m)) {
                cover(a, m, true);
            }
        }
        add(a, "--chdir", ws.toString());
        a.add("--clearenv");
        launch.environment().forEach((k, v) -> add(a, "--setenv", k, v));
        a.add("--");
        a.addAll(launch.command());
        return a;
    }

    /** Covers a directory with an empty one, anything else with an unreadable empty node. */
    private static void cover(List<String> a, Path p, boolean readOnly) {
        if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
            add(a, "--tmpfs", p.toString());
            if (readOnly) {
                add(a, "--remount-ro", p.toString());
            }
        } else {
            add(a, "--ro-bind", "/dev/null", p.toString());
        }
    }

    private static void add(List<String> a, String... parts) {
        a.addAll(List.of(parts));
    }

    @Override
    public String toString() {
        return "Sandbox[bubblewrap " + executable + "]";
    }
}
