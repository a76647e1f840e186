package dev.shelly.providers.openai;

import dev.shelly.modeladapter.ModelException;
import dev.shelly.modeladapter.ModelException.Kind;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.StreamListener;
import dev.shelly.provider.spi.ErrorResponse;
import dev.shelly.provider.spi.StreamDecoder;
import dev.shelly.provider.spi.WireFormat;
import dev.shelly.providers.internal.WireSupport;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * OpenAI's Chat Completions or Responses format at Azure OpenAI's paths, with Azure's
 * content-filter refusal read as {@link Kind#CONTENT_FILTER}: the bodies are OpenAI's, only where
 * they go and one error differ.
 */
final class AzureFormat implements WireFormat {
    private final WireFormat openAi;
    private final String path;

    AzureFormat(WireFormat openAi, String path) {
        this.openAi = openAi;
        this.path = path;
    }

    @Override
    public String provider() {
        return openAi.provider();
    }

    @Override
    public String model() {
        return openAi.model();
    }

    @Override
    public String path() {
        return path;
    }

    @Override
    public byte[] request(ModelRequest request, boolean stream) {
        return openAi.request(request, stream);
    }

    @Override
    public ModelResponse reply(byte[] body, ModelRequest request) {
        return openAi.reply(body, request);
    }

    @Override
    public StreamDecoder decoder(ModelRequest request, StreamListener listener) {
        return openAi.decoder(request, listener);
    }

    /**
     * Azure refuses a prompt its content filter flags with HTTP 400 and {@code "code":
     * "content_filter"}, the flagged categories under {@code innererror.content_filter_result};
     * the message names them. Every other error is OpenAI's.
     */
    @Override
    public ModelException error(ErrorResponse response) {
        JsonNode error = WireSupport.tryParse(response.body()).path("error");
        JsonNode inner = error.path("innererror");
        boolean filtered = "content_filter".equals(WireSupport.text(error, "code"))
                || "ResponsibleAIPolicyViolation".equals(WireSupport.text(inner, "code"));
        if (!filtered) {
            return openAi.error(response);
        }
        List<String> categories = new ArrayList<>();
        for (Map.Entry<String, JsonNode> category : inner.path("content_filter_result").properties()) {
            JsonNode result = category.getValue();
            if (result.path("filtered").asBoolean(false)) {
                String severity = WireSupport.text(result, "severity");
                boolean detected = result.path("detected").asBoolean(false);
                categories.add(category.getKey() + (severity != null ? " (" + severity + ")" : detected ? " (detected)" : ""));
            }
        }
        String message = WireSupport.text(error, "message");
        String said = (message != null ? message : "the content filter refused the request")
                + (categories.isEmpty() ? "" : "; filtered: " + String.join(", ", categories));
        String requestId = response.header("x-request-id").or(() -> response.header("apim-request-id")).orElse(null);
        return response.toException(Kind.CONTENT_FILTER, said, requestId).build();
    }
}
