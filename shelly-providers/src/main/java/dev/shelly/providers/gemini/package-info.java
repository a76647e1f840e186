/**
 * API: Google's Gemini API as a {@link dev.shelly.modeladapter.Completer}. Start at {@link
 * dev.shelly.providers.gemini.GeminiCompleter}.
 */
package dev.shelly.providers.gemini;
