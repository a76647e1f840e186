/**
 * API: Anthropic's Messages API as a {@link dev.shelly.modeladapter.Completer}. Start at {@link
 * dev.shelly.providers.anthropic.AnthropicCompleter}.
 */
package dev.shelly.providers.anthropic;
