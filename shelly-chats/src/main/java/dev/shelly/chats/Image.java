package dev.shelly.chats;

import java.util.Arrays;
import java.util.Base64;
import java.util.Objects;

/**
 * An image, either by URL or as bytes with their media type.
 *
 * <p>Exactly one of {@code url} and {@code data} is set. The bytes are copied in and out, so an
 * Image is immutable.
 *
 * @param url where the image can be fetched (https or data URL), or null when bytes are given
 * @param data the encoded image bytes, or null when a URL is given
 * @param mediaType the media type such as {@code image/png}; required with bytes, optional with a
 *     URL
 */
public record Image(String url, byte[] data, String mediaType) implements Part {
    /** Validates that exactly one source is given and that bytes carry a media type. */
    public Image {
        if (url == null && data == null) {
            throw new IllegalArgumentException("Image needs either url or data; both are null");
        }
        if (url != null && data != null) {
            throw new IllegalArgumentException("Image takes either url or data, not both");
        }
        if (url != null) {
            Checks.requireText(url, "Image.url");
        } else {
            if (data.length == 0) {
                throw new IllegalArgumentException("Image.data must not be empty");
            }
            Checks.requireText(mediaType, "Image.mediaType");
            data = data.clone();
        }
        if (mediaType != null && mediaType.isBlank()) {
            throw new IllegalArgumentException("Image.mediaType must not be blank");
        }
    }

    /**
     * An image by URL.
     *
     * @param url an https or data URL
     * @return the image
     */
    public static Image ofUrl(String url) {
        return new Image(url, null, null);
    }

    /**
     * An image from its encoded bytes.
     *
     * @param data the bytes of a PNG, JPEG, GIF or WebP file
     * @param mediaType for example {@code image/png}
     * @return the image
     */
    public static Image ofBytes(byte[] data, String mediaType) {
        return new Image(null, data, mediaType);
    }

    /**
     * An image from base64 text, as providers and MCP servers send it.
     *
     * @param base64 the bytes in standard base64
     * @param mediaType for example {@code image/png}
     * @return the image
     * @throws IllegalArgumentException if the text is not valid base64
     */
    public static Image ofBase64(String base64, String mediaType) {
        Checks.requireText(base64, "Image.ofBase64 base64");
        byte[] bytes;
        try {
            bytes = Base64.getDecoder().decode(base64.strip());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("Image.data is not valid base64: " + e.getMessage(), e);
        }
        return new Image(null, bytes, mediaType);
    }

    /**
     * A copy of the image bytes, or null for a URL image.
     *
     * @return the bytes
     */
    @Override
    public byte[] data() {
        return data == null ? null : data.clone();
    }

    /**
     * Whether this image is given by URL rather than by bytes.
     *
     * @return true for a URL image
     */
    public boolean isUrl() {
        return url != null;
    }

    /**
     * The bytes in standard base64, or null for a URL image.
     *
     * @return base64 text
     */
    public String base64() {
        return data == null ? null : Base64.getEncoder().encodeToString(data);
    }

    @Override
    public String kind() {
        return "image";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Image other
                && Objects.equals(url, other.url)
                && Arrays.equals(data, other.data)
                && Objects.equals(mediaType, other.mediaType);
    }

    @Override
    public int hashCode() {
        return Objects.hash(url, Arrays.hashCode(data), mediaType);
    }

    @Override
    public String toString() {
        return url != null
                ? "Image[url=" + url + (mediaType == null ? "" : ", mediaType=" + mediaType) + "]"
                : "Image[" + data.length + " bytes, mediaType=" + mediaType + "]";
    }
}
