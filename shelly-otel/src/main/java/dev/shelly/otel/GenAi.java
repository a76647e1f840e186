package dev.shelly.otel;

import io.opentelemetry.api.common.AttributeKey;
import java.util.List;

/**
 * The attribute names and values of the OpenTelemetry GenAI and MCP semantic
 * conventions (development status, as of the conventions' 1.41 release) that Shelly emits, and
 * Shelly's own. Written out here rather than taken from the incubating semconv artifact, whose
 * names move between its alpha releases; the tests assert these exact strings.
 */
final class GenAi {
    private GenAi() {}

    static final AttributeKey<String> OPERATION_NAME = AttributeKey.stringKey("gen_ai.operation.name");
    static final AttributeKey<String> PROVIDER_NAME = AttributeKey.stringKey("gen_ai.provider.name");
    static final AttributeKey<String> AGENT_NAME = AttributeKey.stringKey("gen_ai.agent.name");
    static final AttributeKey<String> AGENT_DESCRIPTION = AttributeKey.stringKey("gen_ai.agent.description");
    static final AttributeKey<String> CONVERSATION_ID = AttributeKey.stringKey("gen_ai.conversation.id");
    static final AttributeKey<String> WORKFLOW_NAME = AttributeKey.stringKey("gen_ai.workflow.name");
    static final AttributeKey<String> REQUEST_MODEL = AttributeKey.stringKey("gen_ai.request.model");
    static final AttributeKey<Long> REQUEST_MAX_TOKENS = AttributeKey.longKey("gen_ai.request.max_tokens");
    static final AttributeKey<Double> REQUEST_TEMPERATURE = AttributeKey.doubleKey("gen_ai.request.temperature");
    static final AttributeKey<Double> REQUEST_TOP_P = AttributeKey.doubleKey("gen_ai.request.top_p");
    static final AttributeKey<List<String>> REQUEST_STOP_SEQUENCES =
            AttributeKey.stringArrayKey("gen_ai.request.stop_sequences");
    static final AttributeKey<String> OUTPUT_TYPE = AttributeKey.stringKey("gen_ai.output.type");
    static final AttributeKey<String> RESPONSE_MODEL = AttributeKey.stringKey("gen_ai.response.model");
    static final AttributeKey<String> RESPONSE_ID = AttributeKey.stringKey("gen_ai.response.id");
    static final AttributeKey<List<String>> RESPONSE_FINISH_REASONS =
            AttributeKey.stringArrayKey("gen_ai.response.finish_reasons");
    static final AttributeKey<Long> USAGE_INPUT_TOKENS = AttributeKey.longKey("gen_ai.usage.input_tokens");
    static final AttributeKey<Long> USAGE_OUTPUT_TOKENS = AttributeKey.longKey("gen_ai.usage.output_tokens");
    static final AttributeKey<Long> USAGE_CACHE_READ_INPUT_TOKENS =
            AttributeKey.longKey("gen_ai.usage.cache_read.input_tokens");
    static final AttributeKey<Long> USAGE_CACHE_CREATION_INPUT_TOKENS =
            AttributeKey.longKey("gen_ai.usage.cache_creation.input_tokens");
    static final AttributeKey<Long> USAGE_REASONING_OUTPUT_TOKENS =
            AttributeKey.longKey("gen_ai.usage.reasoning.output_tokens");
    static final AttributeKey<String> TOOL_NAME = AttributeKey.stringKey("gen_ai.tool.name");
    static final AttributeKey<String> TOOL_CALL_ID = AttributeKey.stringKey("gen_ai.tool.call.id");
    static final AttributeKey<String> TOOL_TYPE = AttributeKey.stringKey("gen_ai.tool.type");
    static final AttributeKey<String> TOOL_CALL_ARGUMENTS = AttributeKey.stringKey("gen_ai.tool.call.arguments");
    static final AttributeKey<String> TOOL_CALL_RESULT = AttributeKey.stringKey("gen_ai.tool.call.result");
    static final AttributeKey<String> INPUT_MESSAGES = AttributeKey.stringKey("gen_ai.input.messages");
    static final AttributeKey<String> OUTPUT_MESSAGES = AttributeKey.stringKey("gen_ai.output.messages");
    static final AttributeKey<String> SYSTEM_INSTRUCTIONS = AttributeKey.stringKey("gen_ai.system_instructions");
    static final AttributeKey<String> TOKEN_TYPE = AttributeKey.stringKey("gen_ai.token.type");
    static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");
    static final AttributeKey<String> FALLBACK_FROM = AttributeKey.stringKey("shelly.fallback.from");
    static final AttributeKey<String> FALLBACK_TO = AttributeKey.stringKey("shelly.fallback.to");
    static final AttributeKey<String> FALLBACK_PROVIDER = AttributeKey.stringKey("shelly.fallback.provider");
    static final AttributeKey<String> MCP_METHOD_NAME = AttributeKey.stringKey("mcp.method.name");

    static final AttributeKey<String> SHELLY_RUN_ID = AttributeKey.stringKey("shelly.run.id");
    static final AttributeKey<String> SHELLY_PARENT_RUN_ID = AttributeKey.stringKey("shelly.parent_run.id");
    static final AttributeKey<Long> SHELLY_DEPTH = AttributeKey.longKey("shelly.delegation.depth");
    static final AttributeKey<Boolean> SHELLY_PAUSED = AttributeKey.booleanKey("shelly.run.paused");

    static final String CHAT = "chat";
    static final String INVOKE_AGENT = "invoke_agent";
    static final String INVOKE_WORKFLOW = "invoke_workflow";
    static final String EXECUTE_TOOL = "execute_tool";
    static final String TOOL_ERROR = "tool_error";

    static final String TOKEN_USAGE = "gen_ai.client.token.usage";
    static final String OPERATION_DURATION = "gen_ai.client.operation.duration";
    static final String RETRIES = "shelly.model.retries";
    static final String FALLBACKS = "shelly.model.fallbacks";
    static final String TOOL_ERRORS = "shelly.tool.errors";
    static final String COST = "shelly.cost";

    /** The token-usage histogram's buckets, as the conventions advise. */
    static final List<Long> TOKEN_BUCKETS = List.of(1L, 4L, 16L, 64L, 256L, 1024L, 4096L, 16384L, 65536L,
            262144L, 1048576L, 4194304L, 16777216L, 67108864L);

    /** The duration histogram's buckets in seconds, as the conventions advise. */
    static final List<Double> DURATION_BUCKETS = List.of(0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56,
            5.12, 10.24, 20.48, 40.96, 81.92);

    /**
     * The conventions' name for a provider Shelly names its own way.
     *
     * @param provider Shelly's provider name, or null
     * @return the well-known value where there is one, else the name itself
     */
    static String provider(String provider) {
        if (provider == null) {
            return null;
        }
        return switch (provider) {
            case "grok", "xai", "x-ai" -> "x_ai";
            case "gemini", "google" -> "gcp.gemini";
            case "vertex", "vertex-ai" -> "gcp.vertex_ai";
            case "bedrock" -> "aws.bedrock";
            case "mistral" -> "mistral_ai";
            default -> provider;
        };
    }
}
