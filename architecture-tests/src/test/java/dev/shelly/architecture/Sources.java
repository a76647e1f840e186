package dev.shelly.architecture;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The shape of a source tree read as text: how long each file is, and which file of the same tree
 * each import line names. Rules over them live in {@link SourceShapeTest}.
 */
final class Sources {

    private static final Pattern IMPORT = Pattern.compile("^import\\s+(static\\s+)?([\\w.]+)(\\.\\*)?\\s*;", Pattern.MULTILINE);

    private Sources() {}

    /** Every Java file under a source root (module-info and package-info left out), by its path relative to the root. */
    static Map<String, Path> files(Path sourceRoot) {
        Map<String, Path> files = new TreeMap<>();
        if (!Files.isDirectory(sourceRoot)) {
            return files;
        }
        try (Stream<Path> walk = Files.walk(sourceRoot)) {
            walk.filter(p -> p.toString().endsWith(".java"))
                    .filter(p -> !p.getFileName().toString().equals("module-info.java"))
                    .filter(p -> !p.getFileName().toString().equals("package-info.java"))
                    .forEach(p -> files.put(sourceRoot.relativize(p).toString().replace('\\', '/'), p));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + sourceRoot, e);
        }
        return files;
    }

    /** The files of a source root longer than {@code limit} lines, each as "path: N lines". */
    static List<String> longerThan(Path sourceRoot, int limit, Path shownFrom) {
        List<String> found = new ArrayList<>();
        files(sourceRoot).values().forEach(p -> {
            long lines = lines(p);
            if (lines > limit) {
                found.add(shownFrom.relativize(p).toString().replace('\\', '/') + ": " + lines + " lines");
            }
        });
        return found;
    }

    private static long lines(Path file) {
        try (Stream<String> lines = Files.lines(file)) {
            return lines.count();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }

    /**
     * The import lines of a source root that name another file of the same root: each file and the
     * files it imports. A static import or an import of a member type names the file of its
     * top-level type; a wildcard import names no one file and is left out.
     */
    static Map<String, Set<String>> imports(Path sourceRoot) {
        Map<String, Path> files = files(sourceRoot);
        Map<String, Set<String>> graph = new TreeMap<>();
        files.forEach((name, path) -> {
            Set<String> targets = new TreeSet<>();
            String text;
            try {
                text = Files.readString(path);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + path, e);
            }
            Matcher m = IMPORT.matcher(text);
            while (m.find()) {
                if (m.group(3) != null) {
                    continue;
                }
                String target = fileOf(m.group(2), files);
                if (target != null && !target.equals(name)) {
                    targets.add(target);
                }
            }
            graph.put(name, targets);
        });
        return graph;
    }

    /** The file of the tree that declares a (possibly nested or member-qualified) name, or null. */
    private static String fileOf(String qualified, Map<String, Path> files) {
        String candidate = qualified;
        while (candidate.contains(".")) {
            String file = candidate.replace('.', '/') + ".java";
            if (files.containsKey(file)) {
                return file;
            }
            candidate = candidate.substring(0, candidate.lastIndexOf('.'));
        }
        return null;
    }

    /** The loops of a graph: each strongly connected set of two files or more, sorted. */
    static List<Set<String>> cycles(Map<String, Set<String>> graph) {
        // Tarjan's algorithm, iterative so that deep trees cannot overflow the stack.
        Map<String, Integer> index = new HashMap<>();
        Map<String, Integer> low = new HashMap<>();
        Deque<String> stack = new ArrayDeque<>();
        Set<String> onStack = new HashSet<>();
        List<Set<String>> found = new ArrayList<>();
        int[] counter = {0};
        for (String start : graph.keySet()) {
            if (index.containsKey(start)) {
                continue;
            }
            Deque<Map.Entry<String, Iterator<String>>> work = new ArrayDeque<>();
            visit(start, index, low, stack, onStack, counter, graph, work);
            while (!work.isEmpty()) {
                var top = work.peek();
                String node = top.getKey();
                if (top.getValue().hasNext()) {
                    String next = top.getValue().next();
                    if (!index.containsKey(next)) {
                        visit(next, index, low, stack, onStack, counter, graph, work);
                    } else if (onStack.contains(next)) {
                        low.put(node, Math.min(low.get(node), index.get(next)));
                    }
                    continue;
                }
                work.pop();
                if (!work.isEmpty()) {
                    String parent = work.peek().getKey();
                    low.put(parent, Math.min(low.get(parent), low.get(node)));
                }
                if (low.get(node).equals(index.get(node))) {
                    Set<String> component = new TreeSet<>();
                    String member;
                    do {
                        member = stack.pop();
                        onStack.remove(member);
                        component.add(member);
                    } while (!member.equals(node));
                    if (component.size() > 1) {
                        found.add(component);
                    }
                }
            }
        }
        found.sort((a, b) -> a.toString().compareTo(b.toString()));
        return found;
    }

    private static void visit(String node, Map<String, Integer> index, Map<String, Integer> low, Deque<String> stack,
            Set<String> onStack, int[] counter, Map<String, Set<String>> graph,
            Deque<Map.Entry<String, Iterator<String>>> work) {
        index.put(node, counter[0]);
        low.put(node, counter[0]);
        counter[0]++;
        stack.push(node);
        onStack.add(node);
        work.push(Map.entry(node, graph.getOrDefault(node, Set.of()).iterator()));
    }
}
