/**
 * API: context management. A {@link dev.shelly.agent.context.ContextPolicy} on an agent keeps
 * each model call inside the model's window: it measures how full the context is (the tokens the
 * provider reported for the last call plus an estimate of what was appended since) and runs its
 * {@link dev.shelly.agent.context.ContextStrategy strategies}, in order, on the model's view of
 * the chat before every call. The strategies change only that view: the chat keeps every message,
 * plus the summaries and notes the strategies add, so a saved session loses nothing and resumes
 * from the compacted view.
 */
package dev.shelly.agent.context;
