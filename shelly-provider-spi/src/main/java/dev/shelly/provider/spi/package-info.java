/**
 * SPI: the HTTP base that providers share: one pooled OkHttp client, authentication that never shows
 * its key, cancellable JSON and server-sent-event calls, error responses with their
 * {@code retry-after}, and {@link dev.shelly.provider.spi.HttpCompleter}, which turns a
 * provider's {@link dev.shelly.provider.spi.WireFormat} into a
 * {@link dev.shelly.modeladapter.Completer}.
 */
package dev.shelly.provider.spi;
