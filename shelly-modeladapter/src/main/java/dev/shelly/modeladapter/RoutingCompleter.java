package dev.shelly.modeladapter;

import java.util.function.Function;

/**
 * Picks the completer of each request by a function of the request: summaries and structured
 * extraction to a cheaper model, everything else to the main one.
 *
 * <pre>{@code
 * Completer model = RoutingCompleter.of(sonnet, request ->
 *         request.options().responseFormat() != null ? haiku : null);   // null: the default
 * }</pre>
 *
 * <p>The chosen completer answers as if called directly (streaming included), and the response
 * names the provider and model that answered. The route function runs on the calling thread
 * and must not block.
 */
public final class RoutingCompleter implements Completer {
    private final Completer defaultRoute;
    private final Function<ModelRequest, Completer> route;

    private RoutingCompleter(Completer defaultRoute, Function<ModelRequest, Completer> route) {
        this.defaultRoute = defaultRoute;
        this.route = route;
    }

    /**
     * Routes each request.
     *
     * @param defaultRoute answers when the function gives null
     * @param route the completer of a request, or null for the default
     * @return the routing completer
     */
    public static RoutingCompleter of(Completer defaultRoute, Function<ModelRequest, Completer> route) {
        if (defaultRoute == null) {
            throw new IllegalArgumentException("RoutingCompleter defaultRoute must not be null");
        }
        if (route == null) {
            throw new IllegalArgumentException("RoutingCompleter route must not be null");
        }
        return new RoutingCompleter(defaultRoute, route);
    }

    /**
     * The completer that answers a request.
     *
     * @param request the request
     * @return the function's choice, or the default when it gave null
     */
    public Completer routeOf(ModelRequest request) {
        Completer chosen = route.apply(request);
        return chosen == null ? defaultRoute : chosen;
    }

    /** The default route's target: which completer answers is known only per request. */
    @Override
    public ModelTarget target() {
        return defaultRoute.target();
    }

    @Override
    public ModelResponse complete(ModelRequest request) {
        return routeOf(request).complete(request);
    }

    @Override
    public ModelResponse complete(ModelRequest request, StreamListener listener) {
        return routeOf(request).complete(request, listener);
    }

    @Override
    public String toString() {
        return "RoutingCompleter[default=" + defaultRoute + "]";
    }
}
