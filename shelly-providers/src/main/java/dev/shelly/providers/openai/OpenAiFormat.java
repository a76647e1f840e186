package dev.shelly.providers.openai;

import dev.shelly.chats.Image;
import dev.shelly.chats.Message;
import dev.shelly.chats.Part;
import dev.shelly.chats.Role;
import dev.shelly.chats.Text;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolDefinition;
import dev.shelly.chats.ToolResult;
import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.ModelOptions;
import dev.shelly.modeladapter.ModelOptions.Reasoning;
import dev.shelly.modeladapter.ModelOptions.ToolChoice;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.ResponseFormat;
import dev.shelly.provider.spi.ErrorResponse;
import dev.shelly.providers.internal.JsonWireFormat;
import dev.shelly.providers.internal.WireSupport;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JsonGenerator;
import tools.jackson.databind.JsonNode;

/**
 * The one translation of a request for both of OpenAI's APIs, Chat Completions and Responses:
 * the body's order, the checks both make, the tools and the tool choice, the JSON schema, max
 * tokens and sampling, which parts a user or tool message carries and where the images of tool
 * results go, the user message's content, the ids and arguments of calls as the server takes them
 * back, and the errors. Where the two APIs only name a thing differently, {@link #api} says
 * which name; each API writes its own messages (Chat Completions' {@code messages}, the
 * Responses API's {@code instructions} and {@code input} items), its tool outputs, its last fields
 * and reads its own replies.
 */
abstract class OpenAiFormat extends JsonWireFormat {
    private static final Logger LOG = LoggerFactory.getLogger(OpenAiFormat.class);

    /** The API whose names this format writes. */
    final OpenAiCompleter.Api api;
    private final String maxTokensField;
    private final boolean checkRanges;

    OpenAiFormat(OpenAiCompleter.Api api, String provider, String model, ModelOptions defaults, String maxTokensField,
            boolean checkRanges) {
        super(provider, model, defaults);
        this.api = api;
        this.maxTokensField = maxTokensField;
        this.checkRanges = checkRanges;
    }

    private boolean responses() {
        return api == OpenAiCompleter.Api.RESPONSES;
    }

    // ---- what each API writes itself ---------------------------------------------------------

    /**
     * Writes the conversation: Chat Completions' {@code messages}, or the Responses API's
     * {@code instructions} and {@code input}, each through {@link #writeConversation}.
     */
    abstract void writeMessages(JsonGenerator gen, List<Message> messages);

    /** Writes a system message where the API takes it among the others (the Responses API does not). */
    abstract void writeSystem(JsonGenerator gen, Message system);

    /** Writes an assistant message: one message with its calls, or the Responses API's items. */
    abstract void writeAssistant(JsonGenerator gen, Message assistant);

    /** Writes the fields that follow sampling: stop sequences, reasoning, storage and streaming. */
    abstract void writeLast(JsonGenerator gen, ModelOptions options, boolean stream);

    /** Refuses stop sequences the API cannot take. */
    abstract void checkStop(List<String> stop);

    // ---- the request -------------------------------------------------------------------------

    @Override
    public final byte[] request(ModelRequest request, boolean stream) {
        ModelOptions options = request.options().orElse(defaults);
        check(options);
        return body(gen -> {
            gen.writeStartObject();
            gen.writeStringProperty("model", model);
            writeMessages(gen, request.messages());
            writeTools(gen, request.tools(), options.toolChoice());
            if (options.responseFormat() instanceof ResponseFormat.JsonSchema f) {
                writeSchema(gen, f);
            }
            if (options.maxTokens() != null) {
                gen.writeNumberProperty(maxTokensField, options.maxTokens());
            }
            WireSupport.writeSampling(gen, options, "top_p");
            writeLast(gen, options, stream);
            gen.writeEndObject();
        });
    }

    /** Refuses, before any HTTP, what the API cannot take (one rule each, exact messages). */
    private void check(ModelOptions options) {
        if (options.reasoning() instanceof Reasoning.Budget b) {
            throw WireSupport.refusal(provider, "Reasoning.budget(" + b.tokens() + ") is not supported: "
                    + (responses() ? "the Responses API" : "this provider")
                    + " takes a reasoning effort, Reasoning.effort(\"low\"|\"medium\"|\"high\")");
        }
        checkStop(options.stop());
        WireSupport.checkOpenAiOptions(provider, options, checkRanges, memo);
    }

    private void writeTools(JsonGenerator gen, List<ToolDefinition> tools, ToolChoice choice) {
        if (tools.isEmpty()) {
            return;
        }
        gen.writeName("tools");
        gen.writeStartArray();
        for (ToolDefinition t : tools) {
            gen.writeStartObject();
            gen.writeStringProperty("type", "function");
            if (responses()) {
                WireSupport.writeToolFields(gen, t, "parameters", memo);
                // Function tools are strict unless told otherwise; tool schemas need not follow the strict rules.
                gen.writeBooleanProperty("strict", false);
            } else {
                gen.writeName("function");
                gen.writeStartObject();
                WireSupport.writeToolFields(gen, t, "parameters", memo);
                gen.writeEndObject();
            }
            gen.writeEndObject();
        }
        gen.writeEndArray();
        switch (choice) {
            case null -> { }
            case ToolChoice.Auto a -> gen.writeStringProperty("tool_choice", "auto");
            case ToolChoice.None n -> gen.writeStringProperty("tool_choice", "none");
            case ToolChoice.Required r -> gen.writeStringProperty("tool_choice", "required");
            case ToolChoice.Named n -> {
                gen.writeName("tool_choice");
                gen.writeStartObject();
                gen.writeStringProperty("type", "function");
                if (responses()) {
                    gen.writeStringProperty("name", n.name());
                } else {
                    gen.writeName("function");
                    gen.writeStartObject();
                    gen.writeStringProperty("name", n.name());
                    gen.writeEndObject();
                }
                gen.writeEndObject();
            }
        }
    }

    /** The JSON schema: {@code response_format.json_schema}, or the Responses API's {@code text.format}. */
    private void writeSchema(JsonGenerator gen, ResponseFormat.JsonSchema f) {
        gen.writeName(responses() ? "text" : "response_format");
        gen.writeStartObject();
        if (responses()) {
            gen.writeName("format");
            gen.writeStartObject();
            gen.writeStringProperty("type", "json_schema");
        } else {
            gen.writeStringProperty("type", "json_schema");
            gen.writeName("json_schema");
            gen.writeStartObject();
        }
        gen.writeStringProperty("name", f.name());
        gen.writeName("schema");
        gen.writeRawValue(f.schema().strip());
        gen.writeBooleanProperty("strict", f.strict());
        gen.writeEndObject();
        gen.writeEndObject();
    }

    // ---- the conversation --------------------------------------------------------------------

    /** Writes every message, in order, as an array: the system's, the assistant's and the user's side. */
    final void writeConversation(JsonGenerator gen, List<Message> messages) {
        gen.writeStartArray();
        for (Message m : messages) {
            switch (m.role()) {
                case SYSTEM -> writeSystem(gen, m);
                case ASSISTANT -> writeAssistant(gen, m);
                case USER, TOOL -> writeUserSide(gen, m);
            }
        }
        gen.writeEndArray();
    }

    /**
     * A user or tool message: each tool result as the API's tool output first, then one user
     * message with the user's text and images and, after them, the images of the tool results,
     * since a tool output carries text only.
     */
    private void writeUserSide(JsonGenerator gen, Message m) {
        List<Part> resultImages = new ArrayList<>();
        for (Part p : m.parts()) {
            if (p instanceof ToolResult r) {
                writeToolOutput(gen, r);
                for (Part inner : r.content()) {
                    if (inner instanceof Image i) {
                        resultImages.add(i);
                    }
                }
            }
        }
        List<Part> content = new ArrayList<>(m.parts().size() + resultImages.size());
        for (Part p : m.parts()) {
            if ((p instanceof Text t && !t.text().isEmpty()) || (p instanceof Image && m.role() == Role.USER)) {
                content.add(p);
            } else if (!(p instanceof ToolResult)) {
                LOG.debug("{}: not sending a {} part in a {} message", provider, p.kind(), m.role());
            }
        }
        content.addAll(resultImages);
        if (content.isEmpty()) {
            return;
        }
        gen.writeStartObject();
        gen.writeStringProperty("role", "user");
        if (content.size() == 1 && content.getFirst() instanceof Text t) {
            gen.writeStringProperty("content", t.text());
        } else {
            gen.writeName("content");
            gen.writeStartArray();
            for (Part p : content) {
                gen.writeStartObject();
                if (p instanceof Text t) {
                    gen.writeStringProperty("type", responses() ? "input_text" : "text");
                    gen.writeStringProperty("text", t.text());
                } else if (p instanceof Image i && responses()) {
                    gen.writeStringProperty("type", "input_image");
                    gen.writeStringProperty("image_url", WireSupport.imageUrl(i));
                } else if (p instanceof Image i) {
                    gen.writeStringProperty("type", "image_url");
                    gen.writeName("image_url");
                    gen.writeStartObject();
                    gen.writeStringProperty("url", WireSupport.imageUrl(i));
                    gen.writeEndObject();
                }
                gen.writeEndObject();
            }
            gen.writeEndArray();
        }
        gen.writeEndObject();
    }

    /** One tool result as the API's tool output: a {@code tool} message, or a {@code function_call_output} item. */
    private void writeToolOutput(JsonGenerator gen, ToolResult r) {
        gen.writeStartObject();
        if (responses()) {
            gen.writeStringProperty("type", "function_call_output");
            gen.writeStringProperty("call_id", wireId(r.toolCallId()));
            gen.writeStringProperty("output", r.text());
        } else {
            gen.writeStringProperty("role", "tool");
            gen.writeStringProperty("tool_call_id", wireId(r.toolCallId()));
            gen.writeStringProperty("content", r.text());
        }
        gen.writeEndObject();
    }

    // ---- calls -------------------------------------------------------------------------------

    /**
     * A call's id as the API takes it: Chat Completions refuses one longer than 40 characters;
     * the Responses API's are sent up to 64.
     */
    final String wireId(String id) {
        return WireSupport.wireId(id, responses() ? 64 : 40);
    }

    /**
     * The call's arguments as the server accepts them back: the model's text when it is one JSON
     * object, else {@code {}}. Strict servers (llama.cpp's server, vLLM) parse the arguments of
     * every assistant message and refuse the whole request when they cannot, which would leave the
     * conversation stuck for good; the model still sees what it wrote in the error result the tool
     * box gives the call.
     */
    final String sendableArguments(ToolCall call) {
        if (memo.isJsonObject(call.arguments())) {
            return call.arguments();
        }
        LOG.debug("{}: tool call {} has arguments that are not a JSON object; sending {{}}", provider, call.id());
        return "{}";
    }

    // ---- errors ------------------------------------------------------------------------------

    @Override
    public final ModelException error(ErrorResponse response) {
        return OpenAiErrors.of(response);
    }

    /** An error object in a stream or in a body that came with HTTP 200. */
    final ModelException inStreamError(JsonNode root) {
        return OpenAiErrors.inStreamError(provider, root);
    }
}
