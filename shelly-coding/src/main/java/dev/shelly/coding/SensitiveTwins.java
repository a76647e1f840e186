package dev.shelly.coding;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Finds the sensitive other name of a hard-linked file: a file whose identity is also that of a
 * sensitive file is sensitive too, whatever name it is reached by. The workspace is searched once,
 * and only for a file with more than one link.
 */
final class SensitiveTwins {
    private final Handles handles;
    private final Workspace ws;
    private Map<Object, String> sensitiveIdentities;

    SensitiveTwins(Handles handles, Workspace ws) {
        this.handles = handles;
        this.ws = ws;
    }

    /** Another name of the same regular file that is sensitive, or null. */
    String of(Handles.Entry e, PosixFileAttributes attrs) throws IOException {
        Object key = attrs.fileKey();
        if (!attrs.isRegularFile() || key == null || links(e.rel(), key) <= 1) {
            return null;
        }
        if (sensitiveIdentities == null) {
            sensitiveIdentities = new HashMap<>();
            collect(handles.root());
        }
        return sensitiveIdentities.get(key);
    }

    /**
     * The link count of a file: the handles' view has none, so it is read by path; a path that
     * reaches another file (a link swapped in) counts as many links, so the search is made.
     */
    private int links(String rel, Object key) {
        try {
            Map<String, Object> a = Files.readAttributes(ws.root().resolve(rel), "unix:nlink,fileKey",
                    LinkOption.NOFOLLOW_LINKS);
            return key.equals(a.get("fileKey")) ? (Integer) a.get("nlink") : Integer.MAX_VALUE;
        } catch (IOException | RuntimeException e) {
            return Integer.MAX_VALUE;
        }
    }

    private void collect(Handles.Dir dir) throws IOException {
        List<String> names;
        try {
            names = handles.names(dir);
        } catch (RefusedException e) {
            // Gone, or not readable: skipped, as the walks of list and search skip it.
            return;
        }
        for (String name : names) {
            String rel = dir.child(name);
            PosixFileAttributes a;
            try {
                a = handles.stat(dir, name);
            } catch (RefusedException e) {
                continue;
            }
            if (a == null) {
                continue;
            }
            if (a.isDirectory()) {
                try (Handles.Dir d = handles.child(dir, name)) {
                    if (d != null) {
                        collect(d);
                    }
                }
            } else if (a.isRegularFile() && a.fileKey() != null && ws.isSensitive(rel)) {
                sensitiveIdentities.putIfAbsent(a.fileKey(), rel);
            }
        }
    }
}
