package dev.shelly.engine.config;

import dev.shelly.modeladapter.ModelTable.ContextWindow;
import dev.shelly.modeladapter.ModelTable.Price;
import dev.shelly.modeladapter.ModelTable;
import dev.shelly.modeladapter.spi.InvalidSettingException;
import dev.shelly.storage.spi.RedisConfig;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.annotation.JsonDeserialize;
import tools.jackson.databind.util.StdConverter;

/**
 * The top-level sections of {@code config.yaml}, as Jackson binds them; {@link EngineConfig}
 * wraps them with the file they came from. A new top-level section is a component here, its
 * accessor on {@link EngineConfig} and its method on {@link EngineConfig.Builder}.
 *
 * @param providers the {@code providers:} list
 * @param mcpServers the {@code mcp_servers:} list
 * @param agents the {@code agents:} list
 * @param entryAgent {@code entry_agent:}, or null
 * @param redis the {@code redis:} section, or null
 * @param prices the {@code prices:} section: model id to price
 * @param contextWindows the {@code context_windows:} section: model id to window in tokens
 * @param approvals the {@code approvals:} section, or null
 * @param telemetry the {@code telemetry:} section, or null
 * @param console the {@code console:} section, or null
 */
record Sections(List<ProviderConfig> providers, List<McpServerConfig> mcpServers, List<AgentConfig> agents,
        String entryAgent, RedisConfig redis, @JsonDeserialize(converter = Prices.class) ModelTable prices,
        @JsonDeserialize(converter = Windows.class) ModelTable contextWindows,
        EngineConfig.ApprovalSettings approvals, EngineConfig.Telemetry telemetry, EngineConfig.Console console) {

    Sections {
        providers = providers == null ? List.of() : List.copyOf(providers);
        mcpServers = mcpServers == null ? List.of() : List.copyOf(mcpServers);
        agents = agents == null ? List.of() : List.copyOf(agents);
        Fields.notBlank(entryAgent, "entry_agent");
        prices = prices == null ? ModelTable.empty() : prices;
        contextWindows = contextWindows == null ? ModelTable.empty() : contextWindows;
    }

    /** {@code context_windows:} as a {@link ModelTable} table, in file order. */
    static final class Windows extends StdConverter<Map<String, Integer>, ModelTable> {
        @Override
        public ModelTable convert(Map<String, Integer> entries) {
            ModelTable table = ModelTable.empty();
            for (Map.Entry<String, Integer> e : entries.entrySet()) {
                if (e.getValue() == null || e.getValue() < 1) {
                    throw new InvalidSettingException(e.getKey(), "expected a window of at least 1 token, got " + e.getValue());
                }
                table = table.withWindow(e.getKey(), ContextWindow.of(e.getValue()));
            }
            return table;
        }
    }

    /**
     * One model's price in {@code prices:}, US dollars per million tokens; the cache rates
     * default to the input rate.
     */
    record PriceEntry(BigDecimal input, BigDecimal output, BigDecimal cacheRead, BigDecimal cacheWrite) {
        PriceEntry {
            Fields.price(input, "input");
            Fields.price(output, "output");
            cacheRead = cacheRead == null ? input : Fields.price(cacheRead, "cache_read");
            cacheWrite = cacheWrite == null ? input : Fields.price(cacheWrite, "cache_write");
        }
    }

    /** {@code prices:} as a {@link ModelTable}, in file order. */
    static final class Prices extends StdConverter<Map<String, PriceEntry>, ModelTable> {
        @Override
        public ModelTable convert(Map<String, PriceEntry> entries) {
            ModelTable table = ModelTable.empty();
            for (Map.Entry<String, PriceEntry> e : entries.entrySet()) {
                PriceEntry p = e.getValue();
                table = table.withPrice(e.getKey(), new Price(p.input(), p.output(), p.cacheRead(), p.cacheWrite()));
            }
            return table;
        }
    }
}
