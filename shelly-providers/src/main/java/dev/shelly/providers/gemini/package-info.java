/**
 * API: Google's Gemini API as a {@link dev.shelly.modeladapter.Completer}
 * ({@link dev.shelly.providers.gemini.GeminiCompleter}) and the {@code gemini} kind of
 * configuration ({@link dev.shelly.providers.gemini.GeminiFactory}).
 */
package dev.shelly.providers.gemini;
