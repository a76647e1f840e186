package dev.shelly.cli;

import dev.shelly.agent.AgentEvent;
import dev.shelly.agent.AgentListener;
import dev.shelly.modeladapter.Delta;
import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Shows a turn while it runs: the answering agent's text as it streams (when asked to), and a
 * faint line for every tool call, result and delegation, of delegated agents too (indented, with
 * their name). Events come from the agents' threads, delegated children's concurrently: every
 * line is written whole.
 */
final class Transcript implements AgentListener {
    private final Terminal terminal;
    private final PrintStream out;
    private final boolean streamText;
    private final ReentrantLock lock = new ReentrantLock();
    /** Whether streamed text left the cursor after the start of a line. */
    private boolean midLine;
    /** Whether the current model call streamed any text. */
    private boolean streamed;

    /**
     * @param terminal for styles
     * @param out where to write
     * @param streamText whether the answering agent's text is shown, or only the tool lines
     */
    Transcript(Terminal terminal, PrintStream out, boolean streamText) {
        this.terminal = terminal;
        this.out = out;
        this.streamText = streamText;
    }

    @Override
    public void onEvent(AgentEvent event) {
        boolean top = event.source().depth() == 0;
        switch (event) {
            case AgentEvent.CompletionStarted e when top -> locked(() -> streamed = false);
            case AgentEvent.StreamDelta e when top && e.delta() instanceof Delta.TextDelta t -> text(t.text(), true);
            case AgentEvent.CompletionFinished e when top -> text(e.reply().text(), false);
            case AgentEvent.ToolCallStarted e -> lines(e.source(), Shown.call(e.call()));
            case AgentEvent.ToolCallFinished e -> lines(e.source(), Shown.result(e.call(), e.result()));
            default -> {
                // Started and finished runs, messages, context measures: the lines above say enough.
            }
        }
    }

    /** Ends a line that streamed text left open. */
    void endLine() {
        locked(() -> {
            if (midLine) {
                out.println();
                midLine = false;
            }
        });
    }

    /** Writes a line of its own, after ending streamed text. */
    void note(String line) {
        locked(() -> {
            if (midLine) {
                out.println();
                midLine = false;
            }
            out.println(line);
        });
    }

    private void text(String text, boolean delta) {
        if (!streamText || text.isEmpty()) {
            return;
        }
        locked(() -> {
            if (!delta && streamed) {
                return; // the deltas showed it already
            }
            streamed |= delta;
            out.print(text);
            out.flush();
            midLine = !text.endsWith("\n");
        });
    }

    private void lines(AgentEvent.Source source, List<String> lines) {
        String indent = "  ".repeat(source.depth() + 1) + (source.depth() == 0 ? "" : "[" + source.agent() + "] ");
        for (String line : lines) {
            note(terminal.dim(indent + Shown.line(line)));
        }
    }

    private void locked(Runnable action) {
        lock.lock();
        try {
            action.run();
        } finally {
            lock.unlock();
        }
    }
}
