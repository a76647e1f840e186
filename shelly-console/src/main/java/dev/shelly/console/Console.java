package dev.shelly.console;

import dev.shelly.console.internal.Server;
import dev.shelly.engine.Engine;
import dev.shelly.engine.config.EngineConfig;
import dev.shelly.modeladapter.spi.InvalidSettingException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.security.SecureRandom;
import java.util.HexFormat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A browser console on an engine: its sessions, a session's conversation, the run tree of its
 * current turn (delegated children, model calls with latency and tokens, tool calls with their
 * arguments, results and durations, compactions), tokens and cost per turn, and the decisions
 * the turn waits for, which a person answers in the page (approve, deny with a reason, edit the
 * arguments, reply to {@code ask_user}); a run or the turn can be cancelled there too. The page
 * follows the engine live over server-sent events.
 *
 * <pre>{@code
 * try (Engine engine = Engine.open(Path.of("."));
 *         Console console = Console.start(engine, Console.Options.defaults())) {
 *     System.out.println(console.link());   // http://127.0.0.1:7070/#token=...
 *     ...
 * }
 * }</pre>
 *
 * <p>Or from the configuration, with {@code shelly-console} on the class path:
 * {@code console: {port: 7070}} in {@code .shelly/config.yaml} starts it with the engine and
 * stops it when the engine closes.
 *
 * <p><b>Security.</b> It listens on the loopback address unless told otherwise; on another
 * address it needs a token of yours (a made-up one would be printed where logs collect it) and
 * logs a warning, since it speaks plain HTTP. Every request
 * for data or an action needs the token in an {@code Authorization: Bearer} header (the page
 * reads it from the link's fragment, {@code #token=...}, which browsers never send to a server,
 * and keeps it out of cookies and query strings); actions are POSTs; the page puts every text it
 * shows into the document as text, never as HTML; it shows no configuration, key or header.
 *
 * <p><b>Cost.</b> Events reach each browser through a bounded buffer: a browser that falls too
 * far behind is dropped (it reconnects and catches up from the recent history, or reloads),
 * and never slows a run. An engine without a console pays nothing.
 */
public final class Console implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Console.class);

    private final Server server;
    private final Options options;
    private final String token;
    private final String host;

    private Console(Server server, Options options, String token) {
        this.server = server;
        this.options = options;
        this.token = token;
        String bind = options.bind();
        this.host = bind.contains(":") ? "[" + bind + "]" : bind.equals("0.0.0.0") ? "127.0.0.1" : bind;
    }

    /**
     * Starts a console on an engine. When the options give no token, a random one is made and the
     * console's link is printed once, with the token in its fragment, to {@link Options#announce()}.
     *
     * @param engine the engine to show
     * @param options where to listen, the token, the buffers
     * @return the running console; close it to stop it
     * @throws java.io.UncheckedIOException when the address cannot be bound
     */
    public static Console start(Engine engine, Options options) {
        if (engine == null || options == null) {
            throw new IllegalArgumentException("Console.start needs an engine and options");
        }
        String token = options.token() != null ? options.token() : newToken();
        Server server = new Server(engine, options.bind(), options.port(), token, options.clientBuffer(),
                options.history(), 15);
        Console console = new Console(server, options, token);
        if (!loopback(options.bind())) {
            LOG.warn("the console listens on {} port {}, which is not a loopback address: its token and everything "
                    + "it shows travel over plain HTTP; reach it through TLS (a reverse proxy or a tunnel)",
                    options.bind(), console.port());
        }
        if (options.token() == null && options.announce() != null) {
            options.announce().println("Shelly console (the link carries its token; keep it to yourself):");
            options.announce().println(console.link());
            options.announce().flush();
        }
        return console;
    }

    private static boolean loopback(String bind) {
        try {
            return InetAddress.getByName(bind).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }

    private static String newToken() {
        byte[] bytes = new byte[24];
        new SecureRandom().nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }

    /**
     * The console's address, without the token.
     *
     * @return {@code http://host:port/}
     */
    public URI url() {
        return URI.create("http://" + host + ":" + server.port() + "/");
    }

    /**
     * The link to open: the address with the token in its fragment, which the browser keeps to
     * itself.
     *
     * @return {@code http://host:port/#token=...}
     */
    public String link() {
        return url() + "#token=" + token;
    }

    /**
     * The token every request for data or an action must carry.
     *
     * @return the token
     */
    public String token() {
        return token;
    }

    /**
     * The port the console listens on (the one chosen when the options said 0).
     *
     * @return the port
     */
    public int port() {
        return server.port();
    }

    /**
     * How many browsers were dropped for falling behind since the console started.
     *
     * @return the count
     */
    public long droppedClients() {
        return server.droppedClients();
    }

    /**
     * How many browsers follow the events now.
     *
     * @return the count
     */
    public int connectedClients() {
        return server.connectedClients();
    }

    /**
     * The options it was started with.
     *
     * @return the options
     */
    public Options options() {
        return options;
    }

    /** Stops listening and ends every browser's event stream. */
    @Override
    public void close() {
        server.close();
    }

    @Override
    public String toString() {
        return "Console[" + url() + "]";
    }

    /**
     * How a console runs.
     *
     * @param bind the address to listen on; the loopback address unless you mean to reach the
     *     console from other machines
     * @param port the port, 0 for a free one
     * @param token the token requests must carry (at least 16 characters), or null for a random one;
     *     required when {@code bind} is not a loopback address
     * @param clientBuffer the changes a browser may fall behind by before it is dropped
     * @param history the recent changes kept for browsers that reconnect ({@code Last-Event-ID})
     * @param announce where the link is printed when the token is made up, or null for nowhere
     */
    public record Options(String bind, int port, String token, int clientBuffer, int history, PrintStream announce) {
        /** The default number of changes a browser may fall behind by. */
        public static final int DEFAULT_CLIENT_BUFFER = 4096;
        /** The default number of recent changes kept for reconnecting browsers. */
        public static final int DEFAULT_HISTORY = 4096;

        /**
         * Validates the fields: the address, port and token as {@link EngineConfig.Console} does
         * for the configuration.
         *
         * @throws IllegalArgumentException naming the field that is not valid
         */
        public Options {
            if (bind == null || bind.isBlank()) {
                throw new IllegalArgumentException("Console.Options.bind must not be blank");
            }
            if (clientBuffer < 1 || history < 1) {
                throw new IllegalArgumentException("Console.Options.clientBuffer and history must be at least 1");
            }
            EngineConfig.Console checked = settings(bind, port, token);
            bind = checked.bind();
            token = checked.token();
        }

        private static EngineConfig.Console settings(String bind, int port, String token) {
            try {
                return new EngineConfig.Console(port, bind, token);
            } catch (InvalidSettingException e) {
                throw new IllegalArgumentException("Console.Options." + e.field() + " " + e.reason(), e);
            }
        }

        /**
         * Loopback, port {@value EngineConfig.Console#DEFAULT_PORT}, a random token printed to
         * standard output.
         *
         * @return the options
         */
        public static Options defaults() {
            return builder().build();
        }

        /**
         * Starts options at the defaults.
         *
         * @return a builder
         */
        public static Builder builder() {
            return new Builder();
        }

        /** The options as text, the token shown only as {@code set} or {@code generated}. */
        @Override
        public String toString() {
            return "Options[" + settings(bind, port, token) + ", clientBuffer=" + clientBuffer + ", history=" + history
                    + "]";
        }

        /** Builds {@link Options}. */
        public static final class Builder {
            private String bind = EngineConfig.Console.DEFAULT_BIND;
            private int port = EngineConfig.Console.DEFAULT_PORT;
            private String token;
            private int clientBuffer = DEFAULT_CLIENT_BUFFER;
            private int history = DEFAULT_HISTORY;
            private PrintStream announce = System.out;

            private Builder() {}

            /**
             * The address to listen on.
             *
             * @param value an address, such as {@code 127.0.0.1}
             * @return this builder
             */
            public Builder bind(String value) {
                this.bind = value;
                return this;
            }

            /**
             * The port.
             *
             * @param value the port, 0 for a free one
             * @return this builder
             */
            public Builder port(int value) {
                this.port = value;
                return this;
            }

            /**
             * The token requests must carry; without it a random one is made.
             *
             * @param value at least 16 characters
             * @return this builder
             */
            public Builder token(String value) {
                this.token = value;
                return this;
            }

            /**
             * How many changes a browser may fall behind by before it is dropped.
             *
             * @param value at least 1
             * @return this builder
             */
            public Builder clientBuffer(int value) {
                this.clientBuffer = value;
                return this;
            }

            /**
             * How many recent changes are kept for browsers that reconnect.
             *
             * @param value at least 1
             * @return this builder
             */
            public Builder history(int value) {
                this.history = value;
                return this;
            }

            /**
             * Where the link is printed when the token is made up.
             *
             * @param value a stream, or null to print nothing
             * @return this builder
             */
            public Builder announce(PrintStream value) {
                this.announce = value;
                return this;
            }

            /**
             * Builds the options.
             *
             * @return the options
             * @throws IllegalArgumentException naming a field that is not valid
             */
            public Options build() {
                return new Options(bind, port, token, clientBuffer, history, announce);
            }
        }
    }
}
