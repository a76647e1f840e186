/**
 * API: the blackboard, the task board, sessions and provider rate limits in Redis, shared by every
 * process of a service. Start at {@link dev.shelly.redis.RedisBackends}.
 */
package dev.shelly.redis;
