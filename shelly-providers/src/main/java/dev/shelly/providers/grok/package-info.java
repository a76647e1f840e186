/**
 * API: xAI's Grok as a {@link dev.shelly.modeladapter.Completer}, over its OpenAI-compatible chat
 * completions. Start at {@link dev.shelly.providers.grok.GrokCompleter}.
 */
package dev.shelly.providers.grok;
