package dev.shelly.agent.context;

import dev.shelly.chats.Message;
import dev.shelly.chats.Part;
import dev.shelly.chats.Role;
import dev.shelly.chats.Text;
import dev.shelly.chats.ToolResult;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/** Rewrites the old tool results of a view, one result at a time, and reports what it changed. */
final class ToolResults {
    private ToolResults() {}

    /**
     * What a strategy rewrote in this run, by the identity of the chat's message (a chat never
     * changes a message), so each old result is rewritten once; the results reported; and where
     * the previous call's old tool messages ended.
     */
    private static final class Memo {
        final Map<Message, Message> rewritten = new IdentityHashMap<>();
        final Set<String> reported = new HashSet<>();
        /** The view index after the last old tool message of the previous call's view. */
        int through;
        int[] tools = new int[16];
    }

    /**
     * Applies {@code rewrite} to the results of every tool message but the newest
     * {@code keepRecent} (all of them when {@code keepRecent} is negative); a rewrite returns
     * null to leave a result as it is. Reports a trim event when a result changed for the first
     * time in the run.
     *
     * <p>When the view carries over the previous call's (see {@link ContextView#carriedOver()}),
     * the tool messages that were old then are as this strategy left them, so the walk starts
     * after them: each call reads only what became old since and what the chat gained.
     */
    static void rewriteOld(ContextView view, ContextStrategy owner, int keepRecent, Function<ToolResult, ToolResult> rewrite) {
        Memo memo = view.state(owner, Memo::new);
        int carried = view.carriedOver();
        int from = carried > 0 && memo.through <= carried ? Math.max(memo.through, view.firstMessage()) : view.firstMessage();
        int count = 0;
        int[] tools = memo.tools;
        for (int i = from; i < view.size(); i++) {
            if (view.message(i).role() == Role.TOOL) {
                if (count == tools.length) {
                    tools = memo.tools = Arrays.copyOf(tools, count * 2);
                }
                tools[count++] = i;
            }
        }
        int old = keepRecent < 0 ? count : count - keepRecent;
        if (old <= 0) {
            memo.through = from;
            return;
        }
        long before = -1;
        int fresh = 0;
        for (int t = 0; t < old; t++) {
            int index = tools[t];
            Message m = view.message(index);
            Message known = memo.rewritten.get(m);
            if (known != null) {
                if (known != m) {
                    if (before < 0) {
                        before = view.tokens();
                    }
                    view.replace(index, known);
                }
                continue;
            }
            List<Part> parts = new ArrayList<>(m.parts().size());
            boolean changed = false;
            for (Part p : m.parts()) {
                if (p instanceof ToolResult r) {
                    ToolResult changedResult = rewrite.apply(r);
                    if (changedResult != null) {
                        parts.add(changedResult);
                        changed = true;
                        if (memo.reported.add(r.toolCallId())) {
                            fresh++;
                        }
                        continue;
                    }
                }
                parts.add(p);
            }
            Message rewritten = changed ? new Message(m.sender(), m.role(), parts, m.metadata()) : m;
            memo.rewritten.put(m, rewritten);
            if (changed) {
                // The next call's view may hold the rewrite itself: it is final.
                memo.rewritten.put(rewritten, rewritten);
                if (before < 0) {
                    before = view.tokens();
                }
                view.replace(index, rewritten);
            }
        }
        memo.through = tools[old - 1] + 1;
        if (fresh > 0) {
            view.trimmed(owner.name(), before, fresh);
        }
    }

    /** The result with its text replaced by {@code text}, its other parts (images) kept. */
    static ToolResult withText(ToolResult r, String text) {
        List<Part> content = new ArrayList<>();
        content.add(new Text(text));
        for (Part p : r.content()) {
            if (!(p instanceof Text)) {
                content.add(p);
            }
        }
        return new ToolResult(r.toolCallId(), content, r.isError());
    }
}
