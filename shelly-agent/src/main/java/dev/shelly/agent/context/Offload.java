package dev.shelly.agent.context;

import dev.shelly.chats.ToolDefinition;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolOutput;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

/**
 * {@code offload}: moves large tool results out of the model's view into files, and offers the
 * {@code recall} tool to read them back a page at a time (see
 * {@link ContextStrategy#offload(int, int, int, Path)}).
 */
final class Offload implements ContextStrategy {
    /** The strategy's name. */
    static final String NAME = "offload";
    /** The name of the tool that reads offloaded results back. */
    static final String RECALL = "recall";
    /** The preview an offloaded result keeps unless set. */
    static final int DEFAULT_PREVIEW_CHARS = 500;
    /** The characters of one {@code recall} page unless set. */
    static final int DEFAULT_PAGE_CHARS = 2_000;

    private static final Logger LOG = LoggerFactory.getLogger(Offload.class);
    private static final Pattern KEY = Pattern.compile("[A-Za-z0-9_.-]{1,200}");
    private static final Pattern UNSAFE = Pattern.compile("[^A-Za-z0-9_-]");
    private static final String SCHEMA = """
            {"type":"object","properties":{"key":{"type":"string","description":"The key of the stored result"},\
            "page":{"type":"integer","minimum":1,"description":"The page to read, from 1"}},\
            "required":["key","page"],"additionalProperties":false}""";

    private final int minChars;
    private final int previewChars;
    private final int pageChars;
    private final Path dir;
    private final ReentrantLock lock = new ReentrantLock();
    private Path tempDir;

    /** Offloads results over {@code minChars} into a temporary folder made on first use. */
    Offload(int minChars) {
        this(minChars, Math.min(DEFAULT_PREVIEW_CHARS, minChars / 2), Math.min(DEFAULT_PAGE_CHARS, minChars / 2), null);
    }

    /** Offloads results over {@code minChars}; {@code dir} null for a temporary folder. */
    Offload(int minChars, int previewChars, int pageChars, Path dir) {
        if (minChars < 2) {
            throw new IllegalArgumentException("Offload min_chars must be at least 2, was " + minChars);
        }
        if (previewChars < 0 || previewChars >= minChars) {
            throw new IllegalArgumentException("Offload preview_chars must be at least 0 and below min_chars (" + minChars
                    + "), was " + previewChars);
        }
        if (pageChars < 1 || pageChars >= minChars) {
            throw new IllegalArgumentException("Offload page_chars must be at least 1 and below min_chars (" + minChars
                    + "), was " + pageChars);
        }
        this.minChars = minChars;
        this.previewChars = previewChars;
        this.pageChars = pageChars;
        this.dir = dir;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void apply(ContextView view) {
        Map<String, String> names = Cuts.callNames(view);
        ToolResults.rewriteOld(view, this, -1, r -> {
            String text = r.text();
            if (text.length() <= minChars || RECALL.equals(names.get(r.toolCallId()))) {
                return null;
            }
            String key = key(r.toolCallId(), text);
            try {
                store(key, text);
            } catch (UncheckedIOException e) {
                LOG.warn("agent '{}': cannot offload the result of tool call {}; the model sees it whole", view.agent(),
                        r.toolCallId(), e);
                return null;
            }
            return ToolResults.withText(r, preview(text, key));
        });
    }

    /** The view's text of an offloaded result. */
    String preview(String text, String key) {
        int pages = pages(text.length());
        return text.substring(0, previewChars) + "\n[" + text.length() + " characters in all; the whole result is stored as '"
                + key + "': read it with " + RECALL + "(key=\"" + key + "\", page=1" + (pages > 1 ? ".." + pages : "")
                + "), " + pageChars + " characters a page]";
    }

    private int pages(int length) {
        return Math.max(1, (length + pageChars - 1) / pageChars);
    }

    /** A key naming the call and its content, stable across resumes. */
    static String key(String callId, String text) {
        String safe = UNSAFE.matcher(callId).replaceAll("_");
        if (safe.length() > 100) {
            safe = safe.substring(0, 100);
        }
        return safe + "-" + Integer.toHexString(text.hashCode());
    }

    private void store(String key, String text) {
        Path file = folder().resolve(key + ".txt");
        if (Files.exists(file)) {
            return;
        }
        try {
            Path tmp = Files.createTempFile(file.getParent(), key, ".tmp");
            Files.writeString(tmp, text, StandardCharsets.UTF_8);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    private Path folder() {
        lock.lock();
        try {
            if (dir != null) {
                Files.createDirectories(dir);
                return dir;
            }
            if (tempDir == null) {
                tempDir = Files.createTempDirectory("shelly-offload-");
            }
            return tempDir;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot make the offload folder " + (dir == null ? "(temporary)" : dir), e);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public Optional<ToolBox> tools() {
        ToolDefinition definition = new ToolDefinition(RECALL, "Read back a tool result that was too long to show "
                + "whole, one page at a time, by the key its preview names.", SCHEMA);
        return Optional.of(ToolBox.of(new Tool(definition, (input, ctx) -> recall(input), null)));
    }

    private ToolOutput recall(JsonNode input) {
        JsonNode keyNode = input.get("key");
        JsonNode pageNode = input.get("page");
        if (keyNode == null || !keyNode.isString() || !KEY.matcher(keyNode.stringValue()).matches()) {
            return ToolOutput.error("recall needs 'key': the key a preview names, like 'call_1-5f3a2b'");
        }
        if (pageNode == null || !pageNode.canConvertToInt() || pageNode.asInt() < 1) {
            return ToolOutput.error("recall needs 'page': a whole number from 1");
        }
        String key = keyNode.stringValue();
        Path file = folder().resolve(key + ".txt");
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (java.nio.file.NoSuchFileException e) {
            return ToolOutput.error("recall: no stored result has the key '" + key + "'");
        } catch (IOException e) {
            return ToolOutput.error("recall: cannot read the stored result '" + key + "': " + e.getMessage());
        }
        int pages = pages(text.length());
        int page = pageNode.asInt();
        if (page > pages) {
            return ToolOutput.error("recall: '" + key + "' has " + pages + " page" + (pages == 1 ? "" : "s") + ", not " + page);
        }
        int start = (page - 1) * pageChars;
        return ToolOutput.text("[page " + page + " of " + pages + " of '" + key + "']\n"
                + text.substring(start, Math.min(text.length(), start + pageChars)));
    }

    @Override
    public String toString() {
        return "Offload[minChars=" + minChars + ", previewChars=" + previewChars + ", pageChars=" + pageChars + "]";
    }
}
