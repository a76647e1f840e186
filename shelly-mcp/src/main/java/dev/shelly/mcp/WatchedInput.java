package dev.shelly.mcp;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/** A stream that tells when it ends: how a stdio server learns that its client closed stdin. */
final class WatchedInput extends FilterInputStream {
    private final Runnable ended;

    WatchedInput(InputStream in, Runnable ended) {
        super(in);
        this.ended = ended;
    }

    @Override
    public int read() throws IOException {
        return seen(super.read());
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        return seen(super.read(b, off, len));
    }

    private int seen(int n) {
        if (n < 0) {
            ended.run();
        }
        return n;
    }
}
