package dev.shelly.provider.spi;

/**
 * Fetches a fresh bearer token, such as Microsoft Entra ID's for Azure OpenAI (with
 * azure-identity: {@code () -> { var t = credential.getTokenSync(context); return new
 * AccessToken(t.getToken(), t.getExpiresAt().toInstant()); }}). {@link Auth#bearer(TokenSource)}
 * calls it for the first request and again shortly before the token it holds expires, one call
 * at a time, on the thread of the request that needs the token.
 */
@FunctionalInterface
public interface TokenSource {

    /**
     * Fetches a token.
     *
     * @return a token that is valid now
     * @throws RuntimeException when no token can be had; the request fails with it
     */
    AccessToken fetch();
}
