/**
 * API: the unified Agent, which reasons with a model, acts with tools, follows skills and
 * delegates to other agents in a Registry, with its run context, its one interception chain,
 * events and errors. Start at {@link dev.shelly.agent.Agent}.
 *
 * <h2>The loop</h2>
 * Inside the innermost link of its {@linkplain RunInterceptor interception chain}, a run works on
 * its {@link Conversation}:
 * <ol>
 *   <li>On an empty chat the agent first writes its system prompt (see {@link Agent#systemPrompt()}),
 *       unless it keeps its prompt {@linkplain Agent.Builder#systemPromptInChat out of the chat}. The
 *       system prompt is always what the model sees first: on a chat that holds messages but
 *       does not open with a system message (say, a user message appended to {@link Agent#chat()}
 *       before the run), the agent puts its prompt in front of the chat on every model call, as
 *       an agent that keeps its prompt out of the chat does. A chat that opens with a system
 *       message keeps that message as the prompt.
 *   <li>It asks the completer for a reply, offering the tools of its toolboxes, then
 *       {@code load_skill} when it has skills, then {@code list_agents} and {@code delegate} when
 *       it {@linkplain Agent#canDelegate() can delegate} (a tool name is looked up in that order; the
 *       first toolbox holding it wins; no toolbox may hold a tool named like a built-in). With a
 *       {@linkplain Agent.Builder#contextPolicy context policy} the request holds the model's view of
 *       the chat as its strategies shaped it (see {@link dev.shelly.agent.context}). The
 *       request passes down the run's {@linkplain RunInterceptor interception chain} and carries the agent's {@linkplain Agent.Builder#options options}, prompt
 *       caching included; the response passes back up the chain in reverse. The reply gets the
 *       agent's name as sender and is appended to the chat; its usage and cost are added to the
 *       run's context.
 *   <li>A reply without tool calls is the final answer and is returned (in a structured run,
 *       {@link Agent#run(String, Class)}, once it binds to the record). Otherwise the chain's decision links, then the context's {@link Approvals}, decide about every call, then a lone call runs
 *       on the run's own thread and two or more concurrently, each on its own virtual thread;
 *       their results are appended as one
 *       {@link dev.shelly.chats.Role#TOOL} message (sender: the agent's name) holding one result per call, in
 *       the order of the calls; then the loop asks again, unless the reply called one of the
 *       {@linkplain Agent.Builder#stopAtTools stop tools}: then that tool message ends the run.
 *   <li>After {@code maxIterations} replies ({@value Agent#DEFAULT_MAX_ITERATIONS} unless set;
 *       {@link Agent#UNLIMITED} for no limit) without a final answer the run fails with a
 *       {@link AgentException.MaxIterationsException}.
 * </ol>
 *
 * <h2>Delegation</h2>
 * An agent with a registry delegates by default: a top-level agent may delegate
 * ({@link Agent#DEFAULT_MAX_DELEGATION_DEPTH} level deep unless set), and the children it spawns work
 * alone. A child runs in its parent run's delegation scope, one level deeper; a child built
 * without a registry delegates through its parent's. An agent that cannot delegate (its depth has reached the limit, its limit is 0, or its
 * registry holds no other agent) is neither offered {@code list_agents} and {@code delegate} nor
 * told about other agents in its system prompt. A limit is an absolute depth, and every agent's
 * own limit counts: for two levels, both the top agent and the agents it delegates to need a
 * limit of 2.
 *
 * <h2>Cancellation</h2>
 * Interrupting the thread that runs the agent (or its {@linkplain Agent.Builder#timeout time limit}) stops the run
 * promptly: the model call is abandoned, running tool calls and delegated children are
 * interrupted, and the run throws a {@link java.util.concurrent.CancellationException} with the interrupt flag set.
 * Every tool call already in the chat still gets exactly one result: a cancelled one where the
 * call did not finish. Tools (two or more in a turn) and children that ignore their interrupt are
 * abandoned after the {@linkplain Agent.Builder#cancelGrace grace}; a lone tool call runs on the run's
 * own thread and holds the run until it returns (give such a tool
 * {@link dev.shelly.tools.Tool#withTimeout}).
 */
package dev.shelly.agent;
