package dev.shelly.provider.spi;

import java.time.Instant;

/**
 * A bearer token that expires, such as a Microsoft Entra ID access token for Azure OpenAI.
 * {@link #toString()} never shows the token.
 *
 * @param token the token sent after {@code Bearer}
 * @param expiresAt when the token stops being accepted
 */
public record AccessToken(String token, Instant expiresAt) {

    /** Checks the token the way {@link Auth} checks a key, and the expiry. */
    public AccessToken {
        if (token == null || token.isBlank()) {
            throw new IllegalArgumentException("AccessToken.token must not be null or blank");
        }
        if (!token.strip().chars().allMatch(c -> c > 32 && c < 127)) {
            throw new IllegalArgumentException("AccessToken.token contains a space, a control or a non-ASCII character; "
                    + "the token is not shown");
        }
        if (expiresAt == null) {
            throw new IllegalArgumentException("AccessToken.expiresAt must not be null");
        }
        token = token.strip();
    }

    @Override
    public String toString() {
        return "AccessToken[****, expiresAt=" + expiresAt + "]";
    }
}
