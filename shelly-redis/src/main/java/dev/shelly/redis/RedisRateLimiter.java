package dev.shelly.redis;

import dev.shelly.modeladapter.RateLimit;
import dev.shelly.modeladapter.RateLimitedCompleter.RateLimiter;
import io.lettuce.core.ScriptOutputType;
import java.time.Duration;
import java.util.List;

/**
 * A {@link RateLimiter} that every process sharing a Redis server counts together: limiters of
 * the same name keep one limit between them. Made by {@link RedisBackends#rateLimiter}.
 *
 * <p>The algorithm, one Lua script per step, on the server's clock ({@code TIME}, so the hosts'
 * clocks need not agree):
 * <ul>
 *   <li><b>Requests: an exact sliding window.</b> The sorted set {@code starts} holds the start
 *       times granted last, at most {@code N = requestsPerMinute} of them. {@link #acquire()}
 *       takes the earliest start that is one interval ({@code 60 s / N}) after the last one
 *       granted, and at least one window plus a guard (200 ms) after the
 *       {@code N}-th last one; then it waits until that start. A request starts once the waiting
 *       caller wakes, a little after its slot (the reply's way back from Redis, the sleep's
 *       lateness); the guard covers that, so at no moment do more than {@code N} requests start
 *       within any window of one minute, whichever JVM starts them. Spacing starts exactly one
 *       interval apart was not enough: the N+1-th slot then lies exactly one window after the
 *       first, and any delay of the first put both in one window.</li>
 *   <li><b>Tokens: a token schedule (GCRA).</b> The key {@code tokens} holds the time at which
 *       the tokens charged so far are paid off at {@code tokensPerMinute}. {@link #charge} moves
 *       it on by {@code tokens × 60 s / tokensPerMinute} (from now, if it lies in the past). A
 *       request may start only when that time is at most one minute ahead: one minute's tokens
 *       may come as a burst, then the steady rate holds. Tokens are known only after a reply, so
 *       one request may overshoot; the next ones wait for it.</li>
 * </ul>
 * Both keys expire a window after they stop mattering, so an idle limiter leaves nothing behind.
 * A slot taken by a caller that is then interrupted is lost, never given twice.
 */
final class RedisRateLimiter implements RateLimiter {
    private static final long MINUTE_MICROS = 60_000_000L;
    /** How late after its slot a request may start and still count in the slot's place. */
    static final long GUARD_MILLIS = 200;

    private static final LuaScript RESERVE = LuaScript.of("""
            local t = redis.call('TIME')
            local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
            local n = tonumber(ARGV[4])
            local start = now
            local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
            if last[2] then
              start = math.max(start, tonumber(last[2]) + tonumber(ARGV[1]))
            end
            if redis.call('ZCARD', KEYS[1]) >= n then
              local nth = redis.call('ZRANGE', KEYS[1], -n, -n, 'WITHSCORES')
              start = math.max(start, tonumber(nth[2]) + tonumber(ARGV[5]))
            end
            if tonumber(ARGV[2]) > 0 then
              start = math.max(start, tonumber(redis.call('GET', KEYS[2]) or '0') - tonumber(ARGV[3]))
            end
            local s = string.format('%.0f', start)
            redis.call('ZADD', KEYS[1], s, s)
            redis.call('ZREMRANGEBYRANK', KEYS[1], 0, -(n + 1))
            redis.call('PEXPIRE', KEYS[1], math.floor((start - now + tonumber(ARGV[5])) / 1000) + 1000)
            return {s, string.format('%.0f', now)}
            """);
    private static final LuaScript CHARGE = LuaScript.of("""
            local t = redis.call('TIME')
            local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
            local due = math.max(now, tonumber(redis.call('GET', KEYS[1]) or '0')) + tonumber(ARGV[1])
            redis.call('SET', KEYS[1], string.format('%.0f', due), 'PX', math.floor((due - now) / 1000) + 60000)
            return string.format('%.0f', due)
            """);

    private final RedisConnection redis;
    private final String base;
    private final RateLimit limit;
    private final long windowMicros;
    private final String[] keys;

    RedisRateLimiter(RedisConnection redis, String base, RateLimit limit) {
        this(redis, base, limit, MINUTE_MICROS);
    }

    /**
     * A limiter whose request window is shorter than a minute, for tests: {@code requestsPerMinute}
     * requests per {@code windowMicros}.
     */
    RedisRateLimiter(RedisConnection redis, String base, RateLimit limit, long windowMicros) {
        this.redis = redis;
        this.base = base;
        this.limit = limit;
        this.windowMicros = windowMicros;
        this.keys = new String[] {base + "starts", base + "tokens"};
    }

    /**
     * One request slot, as the server granted it.
     *
     * @param startMicros when the request may start, in microseconds of the server's clock
     * @param nowMicros the server's time when the slot was granted
     */
    record Slot(long startMicros, long nowMicros) {
        Duration delay() {
            return Duration.ofNanos(Math.max(0, startMicros - nowMicros) * 1000);
        }
    }

    /** Takes the next slot, without waiting for it. */
    Slot reserve() {
        List<Object> answer = redis.writeScript(RESERVE, "taking a rate-limit slot of " + base, ScriptOutputType.MULTI, keys,
                Long.toString(windowMicros / limit.requestsPerMinute()), Long.toString(limit.tokensPerMinute()),
                Long.toString(MINUTE_MICROS), Integer.toString(limit.requestsPerMinute()),
                Long.toString(windowMicros + GUARD_MILLIS * 1000));
        return new Slot(Long.parseLong(answer.get(0).toString()), Long.parseLong(answer.get(1).toString()));
    }

    @Override
    public void acquire() throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted before taking a rate-limit slot");
        }
        Duration wait = reserve().delay();
        if (!wait.isZero()) {
            Thread.sleep(wait);
        }
    }

    @Override
    public void charge(long tokens) {
        if (tokens < 0) {
            throw new IllegalArgumentException("RateLimiter.charge tokens must not be negative, was " + tokens);
        }
        if (tokens > 0 && limit.limitsTokens()) {
            String micros = String.format(java.util.Locale.ROOT, "%.3f",
                    (double) tokens * MINUTE_MICROS / limit.tokensPerMinute());
            redis.writeScript(CHARGE, "charging " + tokens + " tokens to " + base, ScriptOutputType.VALUE,
                    new String[] {keys[1]}, micros);
        }
    }

    @Override
    public RateLimit limit() {
        return limit;
    }

    @Override
    public String toString() {
        return "RedisRateLimiter[" + base + ", " + limit.requestsPerMinute() + " requests/min"
                + (limit.limitsTokens() ? ", " + limit.tokensPerMinute() + " tokens/min" : "") + "]";
    }
}
