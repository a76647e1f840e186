package dev.shelly.benchmarks.http;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedDeque;

/**
 * The floor: the least an HTTP/1.1 client can do for the same call. It writes one ready-made
 * request (the bytes a provider would send) on a plain socket, reads the status line, the
 * headers and the body (by length or chunked), and keeps the connection for the next call, as a
 * pooling client does. It parses no JSON and makes no response object.
 */
final class RawClient implements AutoCloseable {
    private final int port;
    private final byte[] jsonRequest;
    private final byte[] streamRequest;
    private final ConcurrentLinkedDeque<Connection> idle = new ConcurrentLinkedDeque<>();

    /**
     * A client of one server.
     *
     * @param port the server's loopback port
     * @param path the request path, such as {@code /v1/chat/completions}
     * @param jsonBody the body of a plain call
     * @param streamBody the body of a streamed call
     */
    RawClient(int port, String path, byte[] jsonBody, byte[] streamBody) {
        this.port = port;
        this.jsonRequest = request(port, path, jsonBody, "application/json");
        this.streamRequest = request(port, path, streamBody, "text/event-stream");
    }

    private static byte[] request(int port, String path, byte[] body, String accept) {
        byte[] head = ("POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n"
                + "Authorization: Bearer sk-benchmark-key-0123456789\r\nAccept: " + accept + "\r\n"
                + "Content-Type: application/json; charset=utf-8\r\nContent-Length: " + body.length + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
        byte[] all = new byte[head.length + body.length];
        System.arraycopy(head, 0, all, 0, head.length);
        System.arraycopy(body, 0, all, head.length, body.length);
        return all;
    }

    /**
     * One call.
     *
     * @param stream whether to send the streamed request
     * @return the response body
     * @throws IOException on a network failure or a status other than 200
     */
    byte[] call(boolean stream) throws IOException {
        Connection c = idle.pollFirst();
        if (c == null) {
            c = new Connection(new Socket(InetAddress.getLoopbackAddress(), port));
        }
        try {
            byte[] body = c.exchange(stream ? streamRequest : jsonRequest);
            idle.addFirst(c);
            return body;
        } catch (IOException | RuntimeException e) {
            c.socket.close();
            throw e;
        }
    }

    /**
     * One call on a connection of its own, opened for it and closed after it, as a client
     * without a pool makes it.
     *
     * @param stream whether to send the streamed request
     * @return the response body
     * @throws IOException on a network failure or a status other than 200
     */
    byte[] callOnNewConnection(boolean stream) throws IOException {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            return new Connection(socket).exchange(stream ? streamRequest : jsonRequest);
        }
    }

    @Override
    public void close() throws IOException {
        Connection c;
        while ((c = idle.poll()) != null) {
            c.socket.close();
        }
    }

    /** One kept-alive connection. */
    private static final class Connection {
        final Socket socket;
        final InputStream in;
        final OutputStream out;

        Connection(Socket socket) throws IOException {
            this.socket = socket;
            socket.setTcpNoDelay(true);
            this.in = new BufferedInputStream(socket.getInputStream(), 8192);
            this.out = socket.getOutputStream();
        }

        byte[] exchange(byte[] request) throws IOException {
            out.write(request);
            out.flush();
            String status = line();
            if (!status.startsWith("HTTP/1.1 200")) {
                throw new IOException("unexpected status: " + status);
            }
            long length = -1;
            boolean chunked = false;
            String header;
            while (!(header = line()).isEmpty()) {
                String lower = header.toLowerCase(Locale.ROOT);
                if (lower.startsWith("content-length:")) {
                    length = Long.parseLong(header.substring(15).strip());
                } else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
                    chunked = true;
                }
            }
            if (!chunked) {
                return in.readNBytes((int) length);
            }
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            while (true) {
                int size = Integer.parseInt(line().strip(), 16);
                if (size == 0) {
                    line();
                    return body.toByteArray();
                }
                body.write(in.readNBytes(size));
                line();
            }
        }

        private String line() throws IOException {
            StringBuilder sb = new StringBuilder();
            int b;
            while ((b = in.read()) != '\n') {
                if (b < 0) {
                    throw new IOException("connection closed");
                }
                if (b != '\r') {
                    sb.append((char) b);
                }
            }
            return sb.toString();
        }
    }
}
