package dev.shelly.tools;

/**
 * Runs a tool whose input is a record: the arguments arrive already checked against the record's
 * schema and bound to an instance of it.
 *
 * @param <T> the record type of the input
 * @see Tool#typed(String, String, Class, TypedHandler)
 */
@FunctionalInterface
public interface TypedHandler<T extends Record> {

    /**
     * Runs the tool.
     *
     * @param input the call's arguments as a record
     * @param context who is calling
     * @return the result
     * @throws Exception any failure; it becomes an error result the model can read
     */
    ToolOutput call(T input, ToolContext context) throws Exception;
}
