package dev.shelly.examples;

import dev.shelly.chats.Message;

/**
 * One runnable example: {@code java -jar shelly-examples.jar <name> [prompt]} runs it.
 *
 * <p>An example builds its agents with {@link ExampleRun#model} (a real provider, or the
 * example's script when none is configured) and {@link ExampleRun#listener()}, runs them on
 * {@link ExampleRun#prompt()}, and returns the final answer; it closes whatever it opened. It
 * must end cleanly whatever the model does: answer without tools, call unknown tools, or fail.
 */
public interface Example {

    /**
     * The name the example is run by, such as {@code tools}.
     *
     * @return a short lower-case name
     */
    String name();

    /**
     * What the example shows, in one line.
     *
     * @return the description
     */
    String description();

    /**
     * The task the example runs when the command line gives none.
     *
     * @return the prompt
     */
    String defaultPrompt();

    /**
     * Runs the example. Output goes through the run's view; the top agent's answer streams there.
     *
     * @param run the prompt, the model and the view
     * @return the final answer
     * @throws Exception when the run fails; the program reports it in one line
     */
    Message run(ExampleRun run) throws Exception;

    /**
     * Whether the example reads its input itself (an interactive chat), so that the program does
     * not echo the default task as if it were the input.
     *
     * @return true for an example that reads {@link ExampleRun#input()}
     */
    default boolean readsInput() {
        return false;
    }
}
