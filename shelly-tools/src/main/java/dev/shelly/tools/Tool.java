package dev.shelly.tools;

import dev.shelly.chats.ToolDefinition;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.regex.Pattern;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * A tool: what the model is told about it, and the handler that runs it.
 *
 * @param definition name, description and input schema, as sent to the model
 * @param handler runs the tool
 * @param timeout how long one call may run before it is stopped, or null for no limit of its own
 * @param maxResultChars the most characters of text a result may keep (see {@link ToolResults}),
 *     or 0 to take the caller's limit (an agent's, else {@link ToolResults#DEFAULT_MAX_CHARS})
 * @param idempotent whether running a call twice does what running it once does (see
 *     {@link #idempotent(boolean)})
 */
public record Tool(ToolDefinition definition, ToolHandler handler, Duration timeout, int maxResultChars,
        boolean idempotent) {

    private static final Pattern NAME = Pattern.compile("[a-zA-Z0-9_-]{1,64}");

    /**
     * The definitions found valid most recently, by identity. A tool made again and again from
     * one definition (a handler bound to each call, as an agent's {@code delegate} tool is) is
     * checked once: the check parses the schema, and such a tool is made on a rare path, where
     * the JVM runs it uncompiled at many times the cost. A definition is immutable, so one found
     * valid stays valid; a slot lost to a race only means a check made again.
     */
    private static final AtomicReferenceArray<ToolDefinition> VALID = new AtomicReferenceArray<>(16);
    private static final AtomicInteger NEXT_VALID = new AtomicInteger();

    /**
     * Validates the name (as providers require it), the input schema (a JSON object, as providers
     * require it: a broken schema is refused here, not by the server at the first model call) and
     * the timeout.
     */
    public Tool {
        if (definition == null) {
            throw new IllegalArgumentException("Tool.definition must not be null");
        }
        if (!foundValid(definition)) {
            if (!NAME.matcher(definition.name()).matches()) {
                throw new IllegalArgumentException("tool name '" + definition.name()
                        + "' is invalid: use 1 to 64 letters, digits, '_' or '-' (what model providers accept)");
            }
            requireObjectSchema(definition);
            VALID.set(NEXT_VALID.getAndIncrement() & (VALID.length() - 1), definition);
        }
        if (handler == null) {
            throw new IllegalArgumentException("Tool.handler of '" + definition.name() + "' must not be null");
        }
        if (timeout != null && (timeout.isNegative() || timeout.isZero())) {
            throw new IllegalArgumentException("Tool.timeout of '" + definition.name() + "' must be positive, was " + timeout);
        }
        if (maxResultChars < 0) {
            throw new IllegalArgumentException("Tool.maxResultChars of '" + definition.name()
                    + "' must be at least 1 (or 0 for the caller's limit), was " + maxResultChars);
        }
    }

    /**
     * A tool that is not declared idempotent.
     *
     * @param definition name, description and input schema, as sent to the model
     * @param handler runs the tool
     * @param timeout how long one call may run before it is stopped, or null for no limit of its own
     * @param maxResultChars the most characters of a result's text, or 0 for the caller's limit
     */
    public Tool(ToolDefinition definition, ToolHandler handler, Duration timeout, int maxResultChars) {
        this(definition, handler, timeout, maxResultChars, false);
    }

    /**
     * A tool that takes the caller's limit on its results' size.
     *
     * @param definition name, description and input schema, as sent to the model
     * @param handler runs the tool
     * @param timeout how long one call may run before it is stopped, or null for no limit of its own
     */
    public Tool(ToolDefinition definition, ToolHandler handler, Duration timeout) {
        this(definition, handler, timeout, 0);
    }

    /** Whether this very definition was found valid lately. */
    private static boolean foundValid(ToolDefinition definition) {
        for (int i = 0; i < VALID.length(); i++) {
            if (VALID.get(i) == definition) {
                return true;
            }
        }
        return false;
    }

    private static void requireObjectSchema(ToolDefinition definition) {
        JsonNode schema;
        try {
            schema = Json.MAPPER.readTree(definition.inputSchema());
        } catch (JacksonException e) {
            throw new IllegalArgumentException("the input schema of tool '" + definition.name() + "' is not valid JSON ("
                    + e.getOriginalMessage() + ")", e);
        }
        if (schema == null || !schema.isObject()) {
            throw new IllegalArgumentException("the input schema of tool '" + definition.name()
                    + "' must be a JSON object, got " + (schema == null || schema.isMissingNode() ? "nothing"
                            : schema.getNodeType().name().toLowerCase(java.util.Locale.ROOT)));
        }
    }

    /**
     * A tool without a time limit of its own.
     *
     * @param name the name the model calls it by
     * @param description what it does and when to use it
     * @param inputSchema the JSON Schema of its input object, as JSON text
     * @param handler runs it
     * @return the tool
     * @throws IllegalArgumentException when the name is invalid or the schema is not a JSON object,
     *     naming the tool
     */
    public static Tool of(String name, String description, String inputSchema, ToolHandler handler) {
        return new Tool(new ToolDefinition(name, description, inputSchema), handler, null);
    }

    /**
     * A tool whose input is a record: the JSON Schema is generated from the record's components
     * (see {@link JsonSchemas}), each call's arguments are checked against it (see
     * {@link #withInputCheck()}), and the handler receives them bound to an instance of it.
     *
     * <pre>{@code
     * record Forecast(@Description("city name") String city, Optional<Integer> days) {}
     * Tool tool = Tool.typed("get_forecast", "Weather forecast for a city", Forecast.class,
     *         (in, ctx) -> ToolOutput.text(in.city() + ": sunny for " + in.days().orElse(1) + " days"));
     * }</pre>
     *
     * @param name the name the model calls it by
     * @param description what it does and when to use it
     * @param inputType the record type of the input
     * @param handler runs it
     * @param <T> the record type
     * @return the tool
     * @throws IllegalArgumentException when the record cannot be described as JSON Schema (naming
     *     the component), or the name is invalid
     */
    public static <T extends Record> Tool typed(String name, String description, Class<T> inputType,
            TypedHandler<T> handler) {
        if (handler == null) {
            throw new IllegalArgumentException("Tool.typed handler of '" + name + "' must not be null");
        }
        if (inputType == null) {
            throw new IllegalArgumentException("Tool.typed inputType of '" + name + "' must not be null");
        }
        String schema = JsonSchemas.forRecord(inputType);
        ToolHandler binding = new TypedToolHandler<>(name, inputType, handler);
        return of(name, description, schema, new CheckedHandler(name, SchemaCheck.parse(schema), binding));
    }

    /**
     * A copy of this tool that checks each call's arguments against its input schema before the
     * handler runs; arguments that do not fit get an error result naming each field, e.g.
     * {@code arguments for tool 'get_weather' do not match its schema: $.city is required}.
     * Typed tools always check. A hand-written tool may prefer its own checks when they say more
     * (or accept what its schema leaves unsaid), so checking is its choice.
     *
     * @return the checking tool
     * @throws IllegalArgumentException when the input schema is not a JSON object
     */
    public Tool withInputCheck() {
        if (handler instanceof CheckedHandler) {
            return this;
        }
        SchemaCheck check;
        try {
            check = SchemaCheck.parse(definition.inputSchema());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("the input schema of tool '" + name() + "' " + e.getMessage(), e);
        }
        return new Tool(definition, new CheckedHandler(name(), check, handler), timeout, maxResultChars, idempotent);
    }

    /**
     * A copy of this tool with a time limit per call.
     *
     * @param limit how long one call may run, or null for no limit of its own
     * @return the new tool
     */
    public Tool withTimeout(Duration limit) {
        return new Tool(definition, handler, limit, maxResultChars, idempotent);
    }

    /**
     * A copy of this tool that says whether running one call twice has the effect of running it
     * once (a read, a lookup, a write of the same value). After a crash, a session resumed from its
     * journal runs again a call that had started without a recorded result only when its tool is
     * idempotent; otherwise the model reads that the outcome is unknown. Tools are not idempotent
     * unless they say so. A handler that calls a payment or ticket API can make any call safe to
     * repeat by passing on {@link ToolContext#idempotencyKey()}.
     *
     * @param value true when a repeated call does no harm
     * @return the new tool
     */
    public Tool idempotent(boolean value) {
        return new Tool(definition, handler, timeout, maxResultChars, value);
    }

    /**
     * A copy of this tool whose results keep at most this many characters of text, whatever the
     * caller's limit; the rest is cut with a note the model reads (see {@link ToolResults}).
     *
     * @param limit the most characters; at least 1
     * @return the new tool
     * @throws IllegalArgumentException when the limit is below 1
     */
    public Tool withMaxResultChars(int limit) {
        return new Tool(definition, handler, timeout,
                ToolResults.checkLimit(limit, "Tool.maxResultChars of '" + definition.name() + "'"), idempotent);
    }

    /**
     * The tool's name.
     *
     * @return the name
     */
    public String name() {
        return definition.name();
    }
}
