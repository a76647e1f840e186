package dev.shelly.skills.internal;

import org.snakeyaml.engine.v2.events.Event;
import org.snakeyaml.engine.v2.parser.Parser;

/**
 * A YAML event stream that refuses collections nested deeper than a limit, so that composing a
 * document (which recurses once per level) cannot overflow the stack: snakeyaml-engine has no
 * nesting limit of its own. The parser beneath is a state machine and does not recurse.
 *
 * <p>Used for SKILL.md frontmatter here and for {@code .shelly/config.yaml} in the engine.
 */
public final class DepthLimitedParser implements Parser {
    /** Thrown at the first collection over the limit. */
    public static final class TooDeep extends RuntimeException {
        /** The 1-based line of the collection over the limit, or 0 when unknown. */
        private final int line;

        TooDeep(int line, int limit) {
            super("collections are nested more than " + limit + " levels deep", null, false, false);
            this.line = line;
        }

        /**
         * The 1-based line of the collection.
         *
         * @return the line, or 0 when unknown
         */
        public int line() {
            return line;
        }
    }

    private final Parser parser;
    private final int limit;
    private int depth;

    /**
     * Wraps a parser.
     *
     * @param parser the parser whose events are passed on
     * @param limit the deepest nesting of collections allowed
     */
    public DepthLimitedParser(Parser parser, int limit) {
        this.parser = parser;
        this.limit = limit;
    }

    @Override
    public boolean checkEvent(Event.ID choice) {
        return parser.checkEvent(choice);
    }

    @Override
    public Event peekEvent() {
        return parser.peekEvent();
    }

    @Override
    public boolean hasNext() {
        return parser.hasNext();
    }

    @Override
    public Event next() {
        Event event = parser.next();
        switch (event.getEventId()) {
            case MappingStart, SequenceStart -> {
                if (++depth > limit) {
                    throw new TooDeep(event.getStartMark().map(m -> m.getLine() + 1).orElse(0), limit);
                }
            }
            case MappingEnd, SequenceEnd -> depth--;
            default -> { }
        }
        return event;
    }
}
