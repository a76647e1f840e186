/**
 * SPI: how a kind of model provider plugs into whatever reads configuration (the engine's
 * {@code config.yaml}). A {@link dev.shelly.modeladapter.spi.CompleterFactory}, found with
 * {@link java.util.ServiceLoader}, builds a {@link dev.shelly.modeladapter.Completer} from
 * {@link dev.shelly.modeladapter.spi.ProviderSettings}; a missing or wrong setting is an
 * {@link dev.shelly.modeladapter.spi.InvalidSettingException} naming its field.
 */
package dev.shelly.modeladapter.spi;
