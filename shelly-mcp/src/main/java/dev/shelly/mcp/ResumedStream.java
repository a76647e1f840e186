package dev.shelly.mcp;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The event stream answering one POSTed request, as its reader (the SDK's body subscriber) sees
 * it: one stream, though it may come over several connections. When a connection ends, or
 * breaks, before the request's response came and after an event with an id, the stream goes
 * on after the server's {@code retry} interval (1 s when it gave none) with a GET carrying
 * {@code Last-Event-ID}, the request's session and authorization headers; the reader gets the
 * events of that connection as if they had come on the first. Only whole events are passed on.
 * A resumed connection is let go once the response has come. After {@value #ATTEMPTS}
 * connections in a row that brought no event, the reader gets an error.
 *
 * @param <T> what the reader makes of the body
 */
final class ResumedStream<T> implements HttpResponse.BodySubscriber<T> {
    private static final Logger log = LoggerFactory.getLogger(ResumedStream.class);
    static final int ATTEMPTS = 5;
    private static final long DEFAULT_RETRY_MILLIS = 1000;
    private static final long MAX_RETRY_MILLIS = 60_000;
    /** Headers of the POST that a GET must not carry, or that the HTTP client sets itself. */
    private static final Set<String> NOT_COPIED = Set.of("content-type", "content-length", "accept", "last-event-id",
            "connection", "host", "expect", "upgrade");

    private final HttpResponse.BodySubscriber<T> reader;
    private final HttpClient http;
    private final HttpRequest request;
    private final String label;
    private final SseScanner scanner = new SseScanner();
    private final ReentrantLock lock = new ReentrantLock();
    private Flow.Subscription connection;
    private boolean started;
    private boolean resumed;
    private boolean cancelled;
    private boolean over;
    private long requested;
    private long delivered;
    private int eventsBefore;
    private int idle;

    ResumedStream(HttpResponse.BodySubscriber<T> reader, HttpClient http, HttpRequest request, String label) {
        this.reader = reader;
        this.http = http;
        this.request = request;
        this.label = label;
    }

    @Override
    public CompletionStage<T> getBody() {
        return reader.getBody();
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
        attach(subscription);
    }

    @Override
    public void onNext(List<ByteBuffer> item) {
        take(item);
    }

    @Override
    public void onError(Throwable throwable) {
        ended(throwable);
    }

    @Override
    public void onComplete() {
        ended(null);
    }

    /** A connection starts: the first one is offered to the reader, later ones get the demand not yet met. */
    private void attach(Flow.Subscription next) {
        boolean first;
        long owed;
        lock.lock();
        try {
            if (cancelled || over) {
                next.cancel();
                return;
            }
            connection = next;
            first = !started;
            started = true;
            owed = requested - delivered;
            eventsBefore = scanner.events();
        } finally {
            lock.unlock();
        }
        if (!first) {
            scanner.reconnected();
        }
        if (first) {
            reader.onSubscribe(new Demand());
        } else if (owed > 0) {
            next.request(owed);
        }
    }

    private void take(List<ByteBuffer> item) {
        byte[] events = scanner.feed(item);
        Flow.Subscription current;
        lock.lock();
        try {
            current = connection;
            if (events.length > 0) {
                delivered++;
            }
        } finally {
            lock.unlock();
        }
        if (events.length == 0) {
            current.request(1);   // nothing whole yet: the demand this item used is asked for again
            return;
        }
        reader.onNext(List.of(ByteBuffer.wrap(events)));
        if (scanner.answered() && isResumed()) {
            // the response came on a resumed connection, which the server may keep open: let it go
            lock.lock();
            try {
                over = true;
            } finally {
                lock.unlock();
            }
            current.cancel();
            reader.onComplete();
        }
    }

    private boolean isResumed() {
        lock.lock();
        try {
            return resumed;
        } finally {
            lock.unlock();
        }
    }

    /** A connection ended, with a failure or without. */
    private void ended(Throwable failure) {
        long endedAt = System.nanoTime();
        String lastId = scanner.lastId();
        lock.lock();
        try {
            if (cancelled || over) {
                return;
            }
            idle = scanner.events() > eventsBefore ? 0 : idle + 1;
            if (scanner.answered() || lastId == null || idle >= ATTEMPTS) {
                over = true;
            }
        } finally {
            lock.unlock();
        }
        if (!isOver()) {
            resume(lastId, endedAt);
        } else if (scanner.answered() || lastId == null) {
            if (failure == null) {
                reader.onComplete();
            } else {
                reader.onError(failure);
            }
        } else {
            log.warn("MCP server '{}' ended the event stream of a request {} times without an event; the request is given up",
                    label, ATTEMPTS);
            reader.onError(new IOException("MCP server '" + label + "' ended the event stream of a request " + ATTEMPTS
                    + " times in a row without an event"));
        }
    }

    private boolean isOver() {
        lock.lock();
        try {
            return over;
        } finally {
            lock.unlock();
        }
    }

    /** Reconnects the server's retry interval after the end with a GET that names the last event. */
    private void resume(String lastId, long endedAt) {
        long retry = scanner.retryMillis() < 0 ? DEFAULT_RETRY_MILLIS : Math.min(scanner.retryMillis(), MAX_RETRY_MILLIS);
        log.debug("MCP server '{}' ended the event stream of a request before its response; resuming after {} in {} ms",
                label, lastId, retry);
        HttpRequest.Builder get = HttpRequest.newBuilder(request.uri()).GET()
                .header("Accept", "text/event-stream").header("Last-Event-ID", lastId);
        request.headers().map().forEach((name, values) -> {
            if (!NOT_COPIED.contains(name.toLowerCase(Locale.ROOT))) {
                values.forEach(value -> get.header(name, value));
            }
        });
        lock.lock();
        try {
            resumed = true;
        } finally {
            lock.unlock();
        }
        AtomicBoolean answered = new AtomicBoolean();
        HttpRequest again = get.build();
        long wait = Math.max(0, TimeUnit.MILLISECONDS.toNanos(retry) - (System.nanoTime() - endedAt));
        CompletableFuture.runAsync(() -> http.sendAsync(again, info -> reconnected(info, answered))
                .whenComplete((response, failure) -> {
                    if (failure != null && answered.compareAndSet(false, true)) {
                        ended(failure);   // no connection: the GET itself failed
                    }
                }), CompletableFuture.delayedExecutor(wait, TimeUnit.NANOSECONDS));
    }

    /** The answer to the GET: its events continue the stream; any other answer ends it. */
    private HttpResponse.BodySubscriber<Void> reconnected(HttpResponse.ResponseInfo info, AtomicBoolean answered) {
        answered.set(true);
        boolean events = info.statusCode() / 100 == 2 && info.headers().firstValue("Content-Type")
                .map(type -> type.toLowerCase(Locale.ROOT).startsWith("text/event-stream")).orElse(false);
        if (events) {
            return new Connection();
        }
        boolean report;
        lock.lock();
        try {
            report = !cancelled && !over;
            over = true;
        } finally {
            lock.unlock();
        }
        if (!report) {
            return HttpResponse.BodySubscribers.discarding();
        }
        log.warn("MCP server '{}' answered the resumption of a request's event stream with HTTP {}; the request is given up",
                label, info.statusCode());
        reader.onError(new IOException("MCP server '" + label + "' answered the resumption of a request's event stream with HTTP "
                + info.statusCode()));
        return HttpResponse.BodySubscribers.discarding();
    }

    /** A resumed connection's body, fed into the stream. */
    private final class Connection implements HttpResponse.BodySubscriber<Void> {
        private final CompletableFuture<Void> done = new CompletableFuture<>();

        @Override
        public CompletionStage<Void> getBody() {
            return done;
        }

        @Override
        public void onSubscribe(Flow.Subscription subscription) {
            attach(subscription);
        }

        @Override
        public void onNext(List<ByteBuffer> item) {
            take(item);
        }

        @Override
        public void onError(Throwable throwable) {
            done.complete(null);
            ended(throwable);
        }

        @Override
        public void onComplete() {
            done.complete(null);
            ended(null);
        }
    }

    /** The reader's demand and cancellation, passed to whichever connection is current. */
    private final class Demand implements Flow.Subscription {
        @Override
        public void request(long n) {
            Flow.Subscription current;
            lock.lock();
            try {
                requested = n <= 0 || Long.MAX_VALUE - requested < n ? Long.MAX_VALUE : requested + n;
                current = connection;
            } finally {
                lock.unlock();
            }
            current.request(n);
        }

        @Override
        public void cancel() {
            Flow.Subscription current;
            lock.lock();
            try {
                cancelled = true;
                current = connection;
            } finally {
                lock.unlock();
            }
            current.cancel();
        }
    }
}
