package dev.shelly.providers.internal;

import dev.shelly.modeladapter.ModelOptions;
import dev.shelly.provider.spi.WireFormat;

/**
 * What every wire format of this module holds: the provider's name, the model, the default
 * options merged under each request's own, a memo of the texts known to be JSON objects, and the
 * size of the last body written, so the next is written into a buffer of about the right size.
 * Internal: not part of Shelly's API.
 */
public abstract class JsonWireFormat implements WireFormat {
    /** The provider's name, in errors and replies. */
    protected final String provider;
    /** The model the requests ask for. */
    protected final String model;
    /** The provider's default options. */
    protected final ModelOptions defaults;
    /** Remembers the schemas and arguments already checked. */
    protected final JsonObjectMemo memo = new JsonObjectMemo();
    private volatile int lastSize = 4096;

    /**
     * Starts a format.
     *
     * @param provider the provider's name
     * @param model the model
     * @param defaults the default options
     */
    protected JsonWireFormat(String provider, String model, ModelOptions defaults) {
        this.provider = provider;
        this.model = model;
        this.defaults = defaults;
    }

    @Override
    public final String provider() {
        return provider;
    }

    @Override
    public final String model() {
        return model;
    }

    /**
     * Writes a request body.
     *
     * @param writer writes the JSON document
     * @return its UTF-8 bytes
     */
    protected final byte[] body(WireSupport.GeneratorWriter writer) {
        byte[] body = WireSupport.write(lastSize, writer);
        lastSize = body.length;
        return body;
    }
}
