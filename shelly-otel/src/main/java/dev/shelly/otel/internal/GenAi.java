package dev.shelly.otel.internal;

import io.opentelemetry.api.common.AttributeKey;
import java.util.List;

/**
 * Internal, not API. The attribute names and values of the OpenTelemetry GenAI and MCP semantic
 * conventions (development status, as of the conventions' 1.41 release) that Shelly emits, and
 * Shelly's own. Written out here rather than taken from the incubating semconv artifact, whose
 * names move between its alpha releases; the tests assert these exact strings.
 */
public final class GenAi {
    private GenAi() {}

    public static final AttributeKey<String> OPERATION_NAME = AttributeKey.stringKey("gen_ai.operation.name");
    public static final AttributeKey<String> PROVIDER_NAME = AttributeKey.stringKey("gen_ai.provider.name");
    public static final AttributeKey<String> AGENT_NAME = AttributeKey.stringKey("gen_ai.agent.name");
    public static final AttributeKey<String> AGENT_DESCRIPTION = AttributeKey.stringKey("gen_ai.agent.description");
    public static final AttributeKey<String> CONVERSATION_ID = AttributeKey.stringKey("gen_ai.conversation.id");
    public static final AttributeKey<String> WORKFLOW_NAME = AttributeKey.stringKey("gen_ai.workflow.name");
    public static final AttributeKey<String> REQUEST_MODEL = AttributeKey.stringKey("gen_ai.request.model");
    public static final AttributeKey<Long> REQUEST_MAX_TOKENS = AttributeKey.longKey("gen_ai.request.max_tokens");
    public static final AttributeKey<Double> REQUEST_TEMPERATURE = AttributeKey.doubleKey("gen_ai.request.temperature");
    public static final AttributeKey<Double> REQUEST_TOP_P = AttributeKey.doubleKey("gen_ai.request.top_p");
    public static final AttributeKey<List<String>> REQUEST_STOP_SEQUENCES =
            AttributeKey.stringArrayKey("gen_ai.request.stop_sequences");
    public static final AttributeKey<String> OUTPUT_TYPE = AttributeKey.stringKey("gen_ai.output.type");
    public static final AttributeKey<String> RESPONSE_MODEL = AttributeKey.stringKey("gen_ai.response.model");
    public static final AttributeKey<String> RESPONSE_ID = AttributeKey.stringKey("gen_ai.response.id");
    public static final AttributeKey<List<String>> RESPONSE_FINISH_REASONS =
            AttributeKey.stringArrayKey("gen_ai.response.finish_reasons");
    public static final AttributeKey<Long> USAGE_INPUT_TOKENS = AttributeKey.longKey("gen_ai.usage.input_tokens");
    public static final AttributeKey<Long> USAGE_OUTPUT_TOKENS = AttributeKey.longKey("gen_ai.usage.output_tokens");
    public static final AttributeKey<Long> USAGE_CACHE_READ_INPUT_TOKENS =
            AttributeKey.longKey("gen_ai.usage.cache_read.input_tokens");
    public static final AttributeKey<Long> USAGE_CACHE_CREATION_INPUT_TOKENS =
            AttributeKey.longKey("gen_ai.usage.cache_creation.input_tokens");
    public static final AttributeKey<Long> USAGE_REASONING_OUTPUT_TOKENS =
            AttributeKey.longKey("gen_ai.usage.reasoning.output_tokens");
    public static final AttributeKey<String> TOOL_NAME = AttributeKey.stringKey("gen_ai.tool.name");
    public static final AttributeKey<String> TOOL_CALL_ID = AttributeKey.stringKey("gen_ai.tool.call.id");
    public static final AttributeKey<String> TOOL_TYPE = AttributeKey.stringKey("gen_ai.tool.type");
    public static final AttributeKey<String> TOOL_CALL_ARGUMENTS = AttributeKey.stringKey("gen_ai.tool.call.arguments");
    public static final AttributeKey<String> TOOL_CALL_RESULT = AttributeKey.stringKey("gen_ai.tool.call.result");
    public static final AttributeKey<String> INPUT_MESSAGES = AttributeKey.stringKey("gen_ai.input.messages");
    public static final AttributeKey<String> OUTPUT_MESSAGES = AttributeKey.stringKey("gen_ai.output.messages");
    public static final AttributeKey<String> SYSTEM_INSTRUCTIONS = AttributeKey.stringKey("gen_ai.system_instructions");
    public static final AttributeKey<String> TOKEN_TYPE = AttributeKey.stringKey("gen_ai.token.type");
    public static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");
    public static final AttributeKey<String> MCP_METHOD_NAME = AttributeKey.stringKey("mcp.method.name");

    public static final AttributeKey<String> SHELLY_RUN_ID = AttributeKey.stringKey("shelly.run.id");
    public static final AttributeKey<String> SHELLY_PARENT_RUN_ID = AttributeKey.stringKey("shelly.parent_run.id");
    public static final AttributeKey<Long> SHELLY_DEPTH = AttributeKey.longKey("shelly.delegation.depth");

    public static final String CHAT = "chat";
    public static final String INVOKE_AGENT = "invoke_agent";
    public static final String INVOKE_WORKFLOW = "invoke_workflow";
    public static final String EXECUTE_TOOL = "execute_tool";
    public static final String TOOL_ERROR = "tool_error";

    public static final String TOKEN_USAGE = "gen_ai.client.token.usage";
    public static final String OPERATION_DURATION = "gen_ai.client.operation.duration";
    public static final String RETRIES = "shelly.model.retries";
    public static final String TOOL_ERRORS = "shelly.tool.errors";
    public static final String COST = "shelly.cost";

    /** The token-usage histogram's buckets, as the conventions advise. */
    public static final List<Long> TOKEN_BUCKETS = List.of(1L, 4L, 16L, 64L, 256L, 1024L, 4096L, 16384L, 65536L,
            262144L, 1048576L, 4194304L, 16777216L, 67108864L);

    /** The duration histogram's buckets in seconds, as the conventions advise. */
    public static final List<Double> DURATION_BUCKETS = List.of(0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56,
            5.12, 10.24, 20.48, 40.96, 81.92);

    /**
     * The conventions' name for a provider Shelly names its own way.
     *
     * @param provider Shelly's provider name, or null
     * @return the well-known value where there is one, else the name itself
     */
    public static String provider(String provider) {
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
