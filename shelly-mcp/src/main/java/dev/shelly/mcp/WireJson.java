package dev.shelly.mcp;

import com.fasterxml.jackson.annotation.JsonTypeInfo;
import io.modelcontextprotocol.spec.McpSchema;
import tools.jackson.databind.json.JsonMapper;

/** The Jackson mapper for MCP messages, with the fixes the SDK's wire types need under Jackson 3. */
final class WireJson {
    private WireJson() {}

    /**
     * A mapper for the SDK's wire types. The SDK's {@code ElicitFormRequest} takes its type id
     * {@code mode} from a property of the same name, which Jackson 3 refuses to write ("Conflict
     * between type id property 'mode' and bean property"): its own {@code mode} property is
     * enough, so the type id is left off when writing it.
     */
    static JsonMapper mapper() {
        return JsonMapper.builder().addMixIn(McpSchema.ElicitFormRequest.class, NoTypeId.class).build();
    }

    @JsonTypeInfo(use = JsonTypeInfo.Id.NONE)
    private interface NoTypeId {}
}
