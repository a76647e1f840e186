package dev.shelly.redis;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A real Redis Cluster for tests: 3 masters with one replica each, six {@code redis-server}
 * processes in cluster mode on free ports of localhost, joined by {@code redis-cli --cluster
 * create}. A node that stops answering counts as failed after {@value #NODE_TIMEOUT_MILLIS} ms,
 * so that a replica takes over within a few seconds of {@link #killMasterOf}. Needs the Debian
 * {@code redis-server} package (it brings {@code redis-cli}).
 */
public final class RedisCluster implements AutoCloseable {
    /** How long the nodes wait for a silent node before they fail it over. */
    static final int NODE_TIMEOUT_MILLIS = 1000;

    private final Path dir;
    private final Map<Integer, Process> nodes = new LinkedHashMap<>();

    private RedisCluster(Path dir) {
        this.dir = dir;
    }

    /**
     * Starts six nodes and joins them into a cluster whose every slot is served.
     *
     * @return the running cluster
     */
    public static RedisCluster start() {
        Path dir;
        try {
            dir = Files.createTempDirectory("shelly-redis-cluster");
        } catch (IOException e) {
            throw new IllegalStateException("cannot make a folder for the cluster's node files: " + e.getMessage(), e);
        }
        RedisCluster cluster = new RedisCluster(dir);
        try {
            for (int port : freePorts(6)) {
                cluster.startNode(port);
            }
            List<String> create = new ArrayList<>(List.of("redis-cli", "--cluster", "create"));
            cluster.nodes.keySet().forEach(p -> create.add("127.0.0.1:" + p));
            create.addAll(List.of("--cluster-replicas", "1", "--cluster-yes"));
            String out = run(create);
            if (!out.contains("All 16384 slots covered")) {
                throw new IllegalStateException("redis-cli --cluster create failed: " + out);
            }
            cluster.awaitHealthy(6);
            return cluster;
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    private void startNode(int port) {
        List<String> command = List.of("redis-server", "--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--daemonize", "no", "--protected-mode", "no", "--loglevel", "warning", "--save", "",
                "--appendonly", "no", "--cluster-enabled", "yes", "--cluster-config-file",
                dir.resolve("nodes-" + port + ".conf").toString(), "--cluster-node-timeout",
                Integer.toString(NODE_TIMEOUT_MILLIS), "--cluster-replica-validity-factor", "0",
                "--dbfilename", "dump-" + port + ".rdb", "--dir", dir.toString(), "--logfile",
                dir.resolve(port + ".log").toString());
        try {
            nodes.put(port, new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start());
        } catch (IOException e) {
            throw new IllegalStateException("cannot start redis-server (is the redis-server package installed? "
                    + ".ci/run installs it): " + e.getMessage(), e);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!run(List.of("redis-cli", "-p", Integer.toString(port), "ping")).strip().equals("PONG")) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("redis-server on port " + port + " did not answer PING within 20 s");
            }
            pause(20);
        }
    }

    /** The URL of the cluster, e.g. {@code redis-cluster://127.0.0.1:7000,127.0.0.1:7001,...}. */
    public String url() {
        return "redis-cluster://" + String.join(",", nodes.keySet().stream().map(p -> "127.0.0.1:" + p).toList());
    }

    /** The nodes, each {@code host:port}. */
    public List<String> nodes() {
        return nodes.keySet().stream().map(p -> "127.0.0.1:" + p).toList();
    }

    /**
     * Kills the master that serves a key's slot with SIGKILL (no goodbye to the cluster).
     *
     * @param key the key, hash tag and all
     * @return the port of the killed master
     */
    public int killMasterOf(String key) {
        int any = alivePort();
        String slot = run(List.of("redis-cli", "-p", Integer.toString(any), "cluster", "keyslot", key)).strip();
        for (String line : run(List.of("redis-cli", "-p", Integer.toString(any), "cluster", "nodes")).split("\n")) {
            String[] f = line.strip().split(" ");
            if (f.length > 8 && f[2].contains("master") && !f[2].contains("fail") && serves(f, Integer.parseInt(slot))) {
                int port = Integer.parseInt(f[1].substring(f[1].indexOf(':') + 1, f[1].indexOf('@')));
                Process p = nodes.get(port);
                p.destroyForcibly();
                try {
                    p.waitFor(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                nodes.put(port, p);
                return port;
            }
        }
        throw new IllegalStateException("no live master serves slot " + slot);
    }

    /**
     * Kills (SIGKILL) the node a client listens on for a channel: the one whose
     * {@code PUBSUB CHANNELS} lists it (in a cluster a node lists only its own subscribers).
     *
     * @param channel the channel
     * @return the killed node's port
     */
    public int killNodeListeningOn(String channel) {
        for (Map.Entry<Integer, Process> node : nodes.entrySet()) {
            if (node.getValue().isAlive() && run(List.of("redis-cli", "-p", Integer.toString(node.getKey()), "pubsub",
                    "channels", channel)).strip().equals(channel)) {
                node.getValue().destroyForcibly();
                try {
                    node.getValue().waitFor(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return node.getKey();
            }
        }
        throw new IllegalStateException("no live node has a subscriber of " + channel);
    }

    /** Waits until every live node says the cluster is ok and agrees that the killed node failed. */
    public void awaitFailed(int killed) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        String address = "127.0.0.1:" + killed + "@";
        while (run(List.of("redis-cli", "-p", Integer.toString(alivePort()), "cluster", "nodes")).lines()
                .noneMatch(l -> l.contains(address) && l.contains("fail") && !l.contains("fail?"))) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the cluster did not mark the node on port " + killed + " failed in 30 s");
            }
            pause(50);
        }
        awaitHealthy(0);
    }

    /**
     * Waits until another node serves a key's slot (a replica took over from the killed master)
     * and every live node says the cluster is ok.
     *
     * @param key the key whose master was killed
     * @param killed the killed master's port
     */
    public void awaitFailover(String key, int killed) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            Integer port = masterPortOf(key);
            if (port != null && port != killed) {
                break;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no replica took over from the master on port " + killed + " within 30 s");
            }
            pause(50);
        }
        awaitHealthy(0);
    }

    /** The port of the live master serving a key's slot, as a live node sees it, or null. */
    private Integer masterPortOf(String key) {
        String any = Integer.toString(alivePort());
        int slot = Integer.parseInt(run(List.of("redis-cli", "-p", any, "cluster", "keyslot", key)).strip());
        for (String line : run(List.of("redis-cli", "-p", any, "cluster", "nodes")).split("\n")) {
            String[] f = line.strip().split(" ");
            if (f.length > 8 && f[2].contains("master") && !f[2].contains("fail") && serves(f, slot)) {
                return Integer.parseInt(f[1].substring(f[1].indexOf(':') + 1, f[1].indexOf('@')));
            }
        }
        return null;
    }

    /**
     * Gives the master that now serves a key's slot a replica again, as an operator replaces a
     * dead node: a fresh node (new port, no data) joins as its replica and syncs. Until then the
     * master has no replica to confirm writes. (The dead node itself is not restarted: with its
     * old node file it would claim its slots, empty, for a moment before the cluster corrects it.)
     *
     * @param key the key, hash tag and all
     */
    public void addReplicaFor(String key) {
        int any = alivePort();
        int slot = Integer.parseInt(run(List.of("redis-cli", "-p", Integer.toString(any), "cluster", "keyslot", key)).strip());
        String master = null;
        for (String line : run(List.of("redis-cli", "-p", Integer.toString(any), "cluster", "nodes")).split("\n")) {
            String[] f = line.strip().split(" ");
            if (f.length > 8 && f[2].contains("master") && !f[2].contains("fail") && serves(f, slot)) {
                master = f[0];
            }
        }
        if (master == null) {
            throw new IllegalStateException("no live master serves slot " + slot);
        }
        int port = freePorts(1).getFirst();
        startNode(port);
        String self = Integer.toString(port);
        run(List.of("redis-cli", "-p", self, "cluster", "meet", "127.0.0.1", Integer.toString(any)));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!run(List.of("redis-cli", "-p", self, "cluster", "replicate", master)).strip().equals("OK")) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the new node on port " + port + " did not learn of master " + master);
            }
            pause(50);
        }
        while (!run(List.of("redis-cli", "-p", self, "info", "replication")).contains("master_link_status:up")
                || !run(List.of("redis-cli", "-p", self, "cluster", "info")).contains("cluster_state:ok")) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the new node on port " + port + " did not sync with master " + master
                        + ": " + tail(port));
            }
            pause(50);
        }
    }

    private String tail(int port) {
        try {
            List<String> lines = Files.readAllLines(dir.resolve(port + ".log"));
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    private static boolean serves(String[] fields, int slot) {
        for (int i = 8; i < fields.length; i++) {
            String range = fields[i];
            if (range.startsWith("[")) {
                continue;
            }
            int dash = range.indexOf('-');
            int from = Integer.parseInt(dash < 0 ? range : range.substring(0, dash));
            int to = dash < 0 ? from : Integer.parseInt(range.substring(dash + 1));
            if (slot >= from && slot <= to) {
                return true;
            }
        }
        return false;
    }

    /** Waits until every live node says cluster_state:ok and, when asked, that many nodes are connected. */
    private void awaitHealthy(int connected) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            boolean ok = true;
            for (Map.Entry<Integer, Process> node : nodes.entrySet()) {
                if (!node.getValue().isAlive()) {
                    continue;
                }
                String port = Integer.toString(node.getKey());
                String info = run(List.of("redis-cli", "-p", port, "cluster", "info"));
                if (!info.contains("cluster_state:ok")) {
                    ok = false;
                    break;
                }
                if (connected > 0) {
                    String links = run(List.of("redis-cli", "-p", port, "cluster", "nodes"));
                    long up = links.lines().filter(l -> l.contains(" connected")).count();
                    String repl = run(List.of("redis-cli", "-p", port, "info", "replication"));
                    if (up < connected || (repl.contains("role:slave") && !repl.contains("master_link_status:up"))) {
                        ok = false;
                        break;
                    }
                }
            }
            if (ok) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the cluster did not become healthy within 30 s");
            }
            pause(50);
        }
    }

    private int alivePort() {
        return nodes.entrySet().stream().filter(e -> e.getValue().isAlive()).findFirst().orElseThrow().getKey();
    }

    @Override
    public void close() {
        for (Process p : nodes.values()) {
            p.destroyForcibly();
        }
        for (Process p : nodes.values()) {
            try {
                p.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        RedisServer.deleteQuietly(dir);
    }

    private static String run(List<String> command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            p.waitFor(30, TimeUnit.SECONDS);
            return out;
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + command.getFirst() + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + command.getFirst(), e);
        }
    }

    private static List<Integer> freePorts(int n) {
        // Cluster nodes also listen on port + 10000 (the cluster bus): keep both below 65536.
        List<ServerSocket> held = new ArrayList<>();
        List<Integer> ports = new ArrayList<>();
        try {
            while (ports.size() < n) {
                ServerSocket s = new ServerSocket(0);
                held.add(s);
                if (s.getLocalPort() < 55_000 && free(s.getLocalPort() + 10_000)) {
                    ports.add(s.getLocalPort());
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("no free port: " + e.getMessage(), e);
        } finally {
            for (ServerSocket s : held) {
                try {
                    s.close();
                } catch (IOException e) {
                    // closing a probe socket
                }
            }
        }
        return ports;
    }

    private static boolean free(int port) {
        try (ServerSocket s = new ServerSocket(port)) {
            return s.getLocalPort() == port;
        } catch (IOException e) {
            return false;
        }
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the cluster", e);
        }
    }
}
