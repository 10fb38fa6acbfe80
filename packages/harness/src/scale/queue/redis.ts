import type { ConnectionOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { errorMessage } from '../../core/errors.js';
import { redactUrl } from '../../secrets/scrubber.js';

/** A Redis URL with any password replaced, safe to print. */
export function redactRedisUrl(url: string): string {
  return URL.canParse(url) ? redactUrl(url).replace(/\/$/, '') : '(invalid Redis URL)';
}

/** Check the URL names Redis (redis:// or rediss://); throws a usage-style message otherwise. */
export function checkRedisUrl(url: string, flag = '--queue'): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new Error(`${flag} expects a Redis URL such as redis://127.0.0.1:6379 (got ${redactUrl(url)})`);
  }
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:') {
    throw new Error(`${flag} expects a redis:// or rediss:// URL (got '${u.protocol}//...')`);
  }
  return url;
}

/**
 * Reconnection delay after the n-th failed attempt: exponential from 100 ms, capped at 2 s, with jitter so a
 * pool of workers does not reconnect in lockstep when Redis comes back. (BullMQ's own default grows to 20 s,
 * which would leave workers idle long after a short Redis restart.)
 */
export function reconnectDelay(attempt: number): number {
  const base = Math.min(100 * 2 ** Math.max(0, attempt - 1), 2000);
  return Math.round(base / 2 + (Math.random() * base) / 2);
}

/**
 * BullMQ connection options for a URL. Workers need `maxRetriesPerRequest: null` (blocking commands); other
 * connections fail a command after one reconnection attempt, so a coordinator notices an outage within
 * seconds instead of waiting on ioredis' default 20 retries.
 */
export function bullConnection(url: string, blocking: boolean): ConnectionOptions {
  return blocking
    ? { url, maxRetriesPerRequest: null, retryStrategy: reconnectDelay }
    : { url, maxRetriesPerRequest: 1, retryStrategy: reconnectDelay };
}

/** Redis could not be reached when a command started: a setup problem the user fixes (commands exit 2). */
export class RedisUnreachableError extends Error {
  readonly code = 'AEH_ERR_REDIS_UNREACHABLE';
  override name = 'RedisUnreachableError';
}

/**
 * Connect a plain client for the run registry and fail fast (within `timeoutMs`) when Redis is not
 * reachable, instead of retrying forever in the background.
 */
export async function connectRedis(url: string, timeoutMs = 5000): Promise<Redis> {
  const { Redis } = await import('ioredis');
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 2,
    retryStrategy: reconnectDelay,
  });
  // Held in an object: a plain `let` would be narrowed to its initial value, the listener's writes unseen.
  const seen: { lastError?: Error } = {};
  client.on('error', (err: Error) => {
    // Reconnection is automatic; a failing command reports the error where it matters.
    seen.lastError = err;
  });
  try {
    await client.connect();
    await client.ping();
  } catch (err) {
    client.disconnect();
    const why = seen.lastError?.message ?? errorMessage(err);
    throw new RedisUnreachableError(
      `cannot reach Redis at ${redactRedisUrl(url)}: ${why}. Start Redis there, or pass the right URL (--queue redis://host:port)`,
    );
  }
  return client;
}

/**
 * Remember the last socket error of a client, and describe a failed command by it: ioredis' own message
 * ("Reached the max retries per request limit") says nothing about why Redis is unreachable.
 */
export function failureDescriber(client: Redis): (err: unknown) => string {
  let last: string | null = null;
  client.on('error', (err: Error) => {
    last = err.message;
  });
  client.on('ready', () => {
    last = null;
  });
  return (err) => {
    const message = errorMessage(err);
    if (!/max retries per request|Connection is closed/i.test(message)) return message;
    return last ?? 'the connection closed and reconnecting fails';
  };
}
