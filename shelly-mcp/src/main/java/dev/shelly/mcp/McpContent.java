package dev.shelly.mcp;

import dev.shelly.chats.Image;
import dev.shelly.chats.Part;
import dev.shelly.chats.Text;
import dev.shelly.chats.ToolResult;
import dev.shelly.tools.ToolOutput;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import tools.jackson.databind.json.JsonMapper;

/** Translates tool results between MCP's content blocks and Shelly's parts. */
final class McpContent {
    private McpContent() {}

    /**
     * An MCP result as a Shelly tool output.
     *
     * <p>Text stays text and images stay images (also images inside embedded resources). Embedded
     * text resources become text headed by their URI; resource links, audio and binary resources
     * become a line of text saying what they are, since models are not sent them. Structured
     * content is added as its JSON text only when the content holds no text: servers that send
     * both put the same facts in the text (the spec asks them to), and the model needs them once.
     * A missing {@code isError} means success.
     *
     * @param result what the server answered
     * @param json for structured content
     * @return the output
     */
    static ToolOutput toOutput(McpSchema.CallToolResult result, JsonMapper json) {
        List<Part> parts = new ArrayList<>();
        boolean hasText = false;
        if (result.content() != null) {
            for (McpSchema.Content content : result.content()) {
                Part part = toPart(content);
                hasText |= content instanceof McpSchema.TextContent;
                parts.add(part);
            }
        }
        if (result.structuredContent() != null && !hasText) {
            parts.add(new Text(json.writeValueAsString(result.structuredContent())));
        }
        return new ToolOutput(parts, Boolean.TRUE.equals(result.isError()));
    }

    static Part toPart(McpSchema.Content content) {
        return switch (content) {
            case McpSchema.TextContent t -> new Text(t.text() == null ? "" : t.text());
            case McpSchema.ImageContent i -> image(i.data(), i.mimeType(), "image");
            case McpSchema.AudioContent a -> new Text("[audio (" + a.mimeType() + "), " + decodedSize(a.data())
                    + " bytes, not shown]");
            case McpSchema.EmbeddedResource r -> resource(r.resource());
            case McpSchema.ResourceLink l -> new Text("[resource link: " + l.uri()
                    + (l.name() == null ? "" : " \"" + l.name() + "\"")
                    + (l.mimeType() == null ? "" : " (" + l.mimeType() + ")")
                    + (l.description() == null ? "" : " - " + l.description()) + "]");
            default -> new Text("[" + content.type() + " content, not shown]");
        };
    }

    static Part resource(McpSchema.ResourceContents contents) {
        if (contents instanceof McpSchema.TextResourceContents t) {
            return new Text("[resource " + t.uri() + (t.mimeType() == null ? "" : " (" + t.mimeType() + ")") + "]\n"
                    + (t.text() == null ? "" : t.text()));
        }
        if (contents instanceof McpSchema.BlobResourceContents b) {
            String mime = b.mimeType() == null ? "" : b.mimeType().toLowerCase(Locale.ROOT);
            if (mime.startsWith("image/")) {
                return image(b.blob(), b.mimeType(), "resource " + b.uri());
            }
            return new Text("[resource " + b.uri() + (b.mimeType() == null ? "" : " (" + b.mimeType() + ")") + ", "
                    + decodedSize(b.blob()) + " bytes of binary data, not shown]");
        }
        return new Text("[resource " + contents.uri() + ", not shown]");
    }

    private static Part image(String base64, String mimeType, String what) {
        try {
            return Image.ofBase64(base64, mimeType);
        } catch (IllegalArgumentException e) {
            return new Text("[" + what + " (" + mimeType + ") that could not be decoded: " + e.getMessage() + "]");
        }
    }

    private static long decodedSize(String base64) {
        if (base64 == null) {
            return 0;
        }
        try {
            return Base64.getDecoder().decode(base64.strip()).length;
        } catch (IllegalArgumentException e) {
            return base64.length() * 3L / 4;
        }
    }

    /**
     * A Shelly tool result as an MCP result: text as text, image bytes as images, image URLs as
     * resource links, any other part as its text form.
     *
     * @param result the result
     * @return the MCP result
     */
    static McpSchema.CallToolResult toMcp(ToolResult result) {
        List<McpSchema.Content> content = new ArrayList<>();
        for (Part part : result.content()) {
            if (part instanceof Text t) {
                content.add(McpSchema.TextContent.builder(t.text()).build());
            } else if (part instanceof Image image && !image.isUrl()) {
                content.add(McpSchema.ImageContent.builder(image.base64(), image.mediaType()).build());
            } else if (part instanceof Image image) {
                content.add(McpSchema.ResourceLink.builder().name("image").uri(image.url()).mimeType(image.mediaType()).build());
            } else {
                content.add(McpSchema.TextContent.builder(part.toString()).build());
            }
        }
        return McpSchema.CallToolResult.builder().content(content).isError(result.isError()).build();
    }

    /**
     * A block a served tool, prompt or resource gives, on the wire.
     *
     * @param block the block
     * @return the MCP content
     */
    static McpSchema.Content toMcp(McpBlock block) {
        return switch (block) {
            case McpBlock.Text t -> McpSchema.TextContent.builder(t.text()).build();
            case McpBlock.Image i -> McpSchema.ImageContent.builder(i.base64(), i.mimeType()).build();
            case McpBlock.Audio a -> McpSchema.AudioContent.builder(a.base64(), a.mimeType()).build();
            case McpBlock.Embedded e -> McpSchema.EmbeddedResource.builder(toMcp(e.contents())).build();
            case McpBlock.Link l -> McpSchema.ResourceLink.builder().uri(l.uri()).name(l.name())
                    .description(l.description()).mimeType(l.mimeType()).build();
        };
    }

    /**
     * Resource contents on the wire.
     *
     * @param contents the contents
     * @return text or blob contents
     */
    static McpSchema.ResourceContents toMcp(McpResource.Contents contents) {
        return contents.text() != null
                ? McpSchema.TextResourceContents.builder(contents.uri(), contents.text()).mimeType(contents.mimeType()).build()
                : McpSchema.BlobResourceContents.builder(contents.uri(), contents.blob()).mimeType(contents.mimeType()).build();
    }
}
