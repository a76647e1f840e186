/**
 * API: OpenAI and any OpenAI-compatible server (Ollama, vLLM, llama.cpp, LM Studio) as a {@link
 * dev.shelly.modeladapter.Completer}. Start at {@link
 * dev.shelly.providers.openai.OpenAiCompleter}.
 */
package dev.shelly.providers.openai;
