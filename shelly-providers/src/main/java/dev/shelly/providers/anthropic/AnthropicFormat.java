package dev.shelly.providers.anthropic;

import dev.shelly.chats.Thinking;
import dev.shelly.chats.ToolDefinition;
import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.ModelOptions;
import dev.shelly.modeladapter.ModelOptions.CacheHints;
import dev.shelly.modeladapter.ModelOptions.Reasoning;
import dev.shelly.modeladapter.ModelOptions.ToolChoice;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.ResponseFormat;
import dev.shelly.modeladapter.StreamListener;
import dev.shelly.provider.spi.ErrorResponse;
import dev.shelly.provider.spi.StreamDecoder;
import dev.shelly.providers.internal.JsonWireFormat;
import dev.shelly.providers.internal.Turns;
import dev.shelly.providers.internal.Turns.Turn;
import dev.shelly.providers.internal.WireSupport;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JsonGenerator;

/** The Anthropic Messages API on the wire. */
final class AnthropicFormat extends JsonWireFormat {
    private static final Logger LOG = LoggerFactory.getLogger(AnthropicFormat.class);

    /** The name of the forced tool that carries a JSON answer in tool mode. */
    static final String FINAL_ANSWER = "final_answer";
    private static final String FINAL_ANSWER_DESCRIPTION =
            "Give your final answer by calling this tool once, with the answer as its input.";
    /** Models without native structured outputs (GA on Claude 4.5 and later only). */
    private static final Pattern NO_NATIVE_JSON = Pattern.compile("^claude-3|^claude-(opus|sonnet)-4(-[01])?(-\\d{8})?$");
    private static final Duration FIVE_MINUTES = Duration.ofMinutes(5);
    static final Duration ONE_HOUR = Duration.ofHours(1);
    /** The origin of the thinking this API signs: {@link Thinking#origin()} of its replies. */
    static final String ORIGIN = "anthropic";

    private final AnthropicCompleter.StructuredOutputs structuredOutputs;
    private final AnthropicMessages messages;
    private final AnthropicReply replies;

    AnthropicFormat(String provider, String model, ModelOptions defaults,
            AnthropicCompleter.StructuredOutputs structuredOutputs) {
        super(provider, model, defaults);
        this.structuredOutputs = structuredOutputs;
        this.messages = new AnthropicMessages(provider, memo);
        this.replies = new AnthropicReply(provider);
    }

    @Override
    public String path() {
        return "v1/messages";
    }

    // ---- request ------------------------------------------------------------------------

    /** How a JSON response format is sent on one request. */
    private enum JsonMode { NONE, NATIVE, TOOL }

    /** Whether a request asks for JSON through the forced tool, so the reply's tool call becomes its text. */
    boolean toolMode(ModelRequest request) {
        return jsonMode(request.options().orElse(defaults)) == JsonMode.TOOL;
    }

    private JsonMode jsonMode(ModelOptions options) {
        if (!(options.responseFormat() instanceof ResponseFormat.JsonSchema f)) {
            return JsonMode.NONE;
        }
        return switch (structuredOutputs) {
            case TOOL -> JsonMode.TOOL;
            case NATIVE -> f.strict() ? JsonMode.NATIVE : JsonMode.TOOL;
            case AUTO -> f.strict() && !NO_NATIVE_JSON.matcher(model).find() ? JsonMode.NATIVE : JsonMode.TOOL;
        };
    }

    @Override
    public byte[] request(ModelRequest request, boolean stream) {
        List<ToolDefinition> tools = request.tools();
        ModelOptions options = request.options().orElse(defaults);
        int maxTokens = options.maxTokens() != null ? options.maxTokens() : AnthropicCompleter.DEFAULT_MAX_TOKENS;
        JsonMode json = jsonMode(options);
        check(options, maxTokens, json, tools);
        CacheHints cache = options.cache() == null ? CacheHints.OFF : options.cache();
        Turns turns = Turns.of(request.messages(), AnthropicMessages::sendable, provider, LOG);
        List<Turn> wire = turns.turns();
        String system = turns.system();
        boolean thinkingKept = !(options.reasoning() instanceof Reasoning.Budget)
                || !AnthropicMessages.toolTurnWithoutThinking(wire);
        if (!thinkingKept) {
            LOG.debug("{}: not asking for thinking in this request: the tool calls it answers were made without "
                    + "Anthropic's thinking (another provider's), and thinking requires them to follow a thinking block",
                    provider);
        }
        boolean cacheSystem = cache.prefix() && !system.isEmpty();
        boolean cacheLastTool = cache.prefix() && system.isEmpty();
        Duration ttl = cache.ttl();
        return body(gen -> {
            gen.writeStartObject();
            gen.writeStringProperty("model", model);
            gen.writeNumberProperty("max_tokens", maxTokens);
            WireSupport.writeSampling(gen, options, "top_p");
            WireSupport.writeStrings(gen, "stop_sequences", options.stop());
            if (options.reasoning() instanceof Reasoning.Budget b && thinkingKept) {
                gen.writeName("thinking");
                gen.writeStartObject();
                gen.writeStringProperty("type", "enabled");
                gen.writeNumberProperty("budget_tokens", b.tokens());
                gen.writeEndObject();
            }
            if (cacheSystem) {
                gen.writeName("system");
                gen.writeStartArray();
                gen.writeStartObject();
                gen.writeStringProperty("type", "text");
                gen.writeStringProperty("text", system);
                AnthropicMessages.writeCacheControl(gen, ttl);
                gen.writeEndObject();
                gen.writeEndArray();
            } else if (!system.isEmpty()) {
                gen.writeStringProperty("system", system);
            }
            gen.writeName("messages");
            gen.writeStartArray();
            for (int i = 0; i < wire.size(); i++) {
                messages.writeMessage(gen, wire.get(i), cache.conversation() && i == wire.size() - 1, ttl);
            }
            gen.writeEndArray();
            boolean finalAnswer = json == JsonMode.TOOL;
            if (!tools.isEmpty() || finalAnswer) {
                gen.writeName("tools");
                gen.writeStartArray();
                for (int i = 0; i < tools.size(); i++) {
                    gen.writeStartObject();
                    WireSupport.writeToolFields(gen, tools.get(i), "input_schema", memo);
                    if (cacheLastTool && !finalAnswer && i == tools.size() - 1) {
                        AnthropicMessages.writeCacheControl(gen, ttl);
                    }
                    gen.writeEndObject();
                }
                if (finalAnswer) {
                    ResponseFormat.JsonSchema f = (ResponseFormat.JsonSchema) options.responseFormat();
                    gen.writeStartObject();
                    gen.writeStringProperty("name", FINAL_ANSWER);
                    gen.writeStringProperty("description", FINAL_ANSWER_DESCRIPTION);
                    gen.writeName("input_schema");
                    gen.writeRawValue(f.schema().strip());
                    if (cacheLastTool) {
                        AnthropicMessages.writeCacheControl(gen, ttl);
                    }
                    gen.writeEndObject();
                }
                gen.writeEndArray();
                writeToolChoice(gen, options.toolChoice(), finalAnswer, !tools.isEmpty());
            }
            if (json == JsonMode.NATIVE) {
                ResponseFormat.JsonSchema f = (ResponseFormat.JsonSchema) options.responseFormat();
                gen.writeName("output_config");
                gen.writeStartObject();
                gen.writeName("format");
                gen.writeStartObject();
                gen.writeStringProperty("type", "json_schema");
                gen.writeName("schema");
                gen.writeRawValue(f.schema().strip());
                gen.writeEndObject();
                gen.writeEndObject();
            }
            if (stream) {
                gen.writeBooleanProperty("stream", true);
            }
            gen.writeEndObject();
        });
    }

    /** Refuses, before any HTTP, what the Messages API would refuse or this format cannot map. */
    private void check(ModelOptions options, int maxTokens, JsonMode json, List<ToolDefinition> tools) {
        Reasoning reasoning = options.reasoning();
        if (reasoning instanceof Reasoning.Effort e) {
            throw WireSupport.refusal(provider, "Reasoning.effort(\"" + e.level() + "\") is not supported: Anthropic takes "
                    + "a thinking budget, Reasoning.budget(tokens) of at least 1024 and below maxTokens");
        }
        boolean thinking = reasoning instanceof Reasoning.Budget;
        if (reasoning instanceof Reasoning.Budget b) {
            if (b.tokens() < 1024) {
                throw WireSupport.refusal(provider, "Reasoning.budget(" + b.tokens()
                        + ") is below Anthropic's minimum of 1024 thinking tokens");
            }
            if (b.tokens() >= maxTokens) {
                throw WireSupport.refusal(provider, "Reasoning.budget(" + b.tokens() + ") must be less than maxTokens ("
                        + maxTokens + ")");
            }
            String forced = switch (options.toolChoice()) {
                case ToolChoice.Required r -> "REQUIRED";
                case ToolChoice.Named n -> "named '" + n.name() + "'";
                case null, default -> null;
            };
            if (forced != null) {
                throw WireSupport.refusal(provider, "tool choice " + forced + " cannot be combined with extended "
                        + "thinking: Anthropic allows only AUTO or NONE while thinking");
            }
            if (options.temperature() != null) {
                throw WireSupport.refusal(provider, "temperature cannot be set while extended thinking is on");
            }
            if (options.topP() != null && options.topP() < 0.95) {
                throw WireSupport.refusal(provider, "topP must be between 0.95 and 1 while extended thinking is on, was "
                        + options.topP());
            }
        }
        if (options.temperature() != null && options.temperature() > 1) {
            throw WireSupport.refusal(provider, "temperature must be between 0 and 1, was " + options.temperature());
        }
        Duration ttl = options.cache() == null ? null : options.cache().ttl();
        if (ttl != null && !ttl.equals(FIVE_MINUTES) && !ttl.equals(ONE_HOUR)) {
            throw WireSupport.refusal(provider, "cache ttl must be 5 minutes or 1 hour, was " + ttl);
        }
        if (options.responseFormat() instanceof ResponseFormat.JsonSchema f) {
            WireSupport.checkSchema(provider, f, memo);
        }
        if (json == JsonMode.TOOL) {
            if (thinking) {
                throw WireSupport.refusal(provider, "a JSON response format on model '" + model
                        + "' needs a forced tool, which extended thinking does not allow");
            }
            for (ToolDefinition t : tools) {
                if (t.name().equals(FINAL_ANSWER)) {
                    throw WireSupport.refusal(provider, "a tool is named '" + FINAL_ANSWER
                            + "', the name the JSON response format's forced tool needs");
                }
            }
        }
    }

    /**
     * The tool choice on the wire. In tool mode the answer tool is forced when no other tool is
     * offered or the choice is NONE, and any tool (a real one or the answer) otherwise; a named
     * choice is kept.
     */
    private static void writeToolChoice(JsonGenerator gen, ToolChoice choice, boolean finalAnswer, boolean otherTools) {
        String type;
        String name = null;
        if (finalAnswer && !(choice instanceof ToolChoice.Named)) {
            if (!otherTools || choice instanceof ToolChoice.None) {
                type = "tool";
                name = FINAL_ANSWER;
            } else {
                type = "any";
            }
        } else {
            switch (choice) {
                case null -> {
                    return;
                }
                case ToolChoice.Auto a -> type = "auto";
                case ToolChoice.None n -> type = "none";
                case ToolChoice.Required r -> type = "any";
                case ToolChoice.Named n -> {
                    type = "tool";
                    name = n.name();
                }
            }
        }
        gen.writeName("tool_choice");
        gen.writeStartObject();
        gen.writeStringProperty("type", type);
        if (name != null) {
            gen.writeStringProperty("name", name);
        }
        gen.writeEndObject();
    }

    @Override
    public ModelResponse reply(byte[] body, ModelRequest request) {
        return replies.reply(body, toolMode(request));
    }

    @Override
    public StreamDecoder decoder(ModelRequest request, StreamListener listener) {
        return new AnthropicStreamDecoder(replies, listener, toolMode(request));
    }

    @Override
    public ModelException error(ErrorResponse response) {
        return replies.error(response);
    }
}
