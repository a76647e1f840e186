package dev.shelly.redis;

import dev.shelly.modeladapter.RateLimit;
import dev.shelly.modeladapter.RateLimiter;
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
 *   <li><b>Requests: even spacing.</b> The key {@code next} holds the earliest start of the next
 *       request. {@link #acquire()} takes {@code start = max(now, next)}, sets
 *       {@code next = start + 60 s / requestsPerMinute}, and waits until {@code start}. Starts of
 *       all limiters are therefore at least one interval apart, which keeps any minute at or
 *       under the limit (a sliding window, not a fixed one: no double burst at a minute's edge).</li>
 *   <li><b>Tokens: a token schedule (GCRA).</b> The key {@code tokens} holds the time at which
 *       the tokens charged so far are paid off at {@code tokensPerMinute}. {@link #charge} moves
 *       it on by {@code tokens × 60 s / tokensPerMinute} (from now, if it lies in the past). A
 *       request may start only when that time is at most one minute ahead: one minute's tokens
 *       may come as a burst, then the steady rate holds. Tokens are known only after a reply, so
 *       one request may overshoot; the next ones wait for it.</li>
 * </ul>
 * Both keys expire a minute after they stop mattering, so an idle limiter leaves nothing behind.
 * A slot taken by a caller that is then interrupted is lost, never given twice.
 */
public final class RedisRateLimiter implements RateLimiter {
    private static final long MINUTE_MICROS = 60_000_000L;

    private static final LuaScript RESERVE = LuaScript.of("""
            local t = redis.call('TIME')
            local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
            local start = math.max(now, tonumber(redis.call('GET', KEYS[1]) or '0'))
            if tonumber(ARGV[2]) > 0 then
              start = math.max(start, tonumber(redis.call('GET', KEYS[2]) or '0') - tonumber(ARGV[3]))
            end
            local nxt = start + tonumber(ARGV[1])
            redis.call('SET', KEYS[1], string.format('%.0f', nxt), 'PX', math.floor((nxt - now) / 1000) + 60000)
            return {string.format('%.0f', start), string.format('%.0f', now)}
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
    private final String[] keys;

    RedisRateLimiter(RedisConnection redis, String base, RateLimit limit) {
        this.redis = redis;
        this.base = base;
        this.limit = limit;
        this.keys = new String[] {base + "next", base + "tokens"};
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
        List<Object> answer = redis.script(RESERVE, "taking a rate-limit slot of " + base, ScriptOutputType.MULTI, keys,
                Long.toString(limit.intervalNanos() / 1000), Long.toString(limit.tokensPerMinute()),
                Long.toString(MINUTE_MICROS));
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
        if (!limit.limitsTokens() || tokens == 0) {
            return;
        }
        String micros = String.format(java.util.Locale.ROOT, "%.3f", (double) tokens * MINUTE_MICROS / limit.tokensPerMinute());
        redis.script(CHARGE, "charging " + tokens + " tokens to " + base, ScriptOutputType.VALUE,
                new String[] {keys[1]}, micros);
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
