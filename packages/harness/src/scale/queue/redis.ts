import type { ConnectionOptions } from 'bullmq';
import type { Redis } from 'ioredis';

/** A Redis URL with any password replaced, safe to print. */
export function redactRedisUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString().replace(/\/$/, '');
  } catch {
    return '(invalid Redis URL)';
  }
}

/** Check the URL names Redis (redis:// or rediss://); throws a usage-style message otherwise. */
export function checkRedisUrl(url: string, flag = '--queue'): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new Error(`${flag} expects a Redis URL such as redis://127.0.0.1:6379 (got '${url}')`);
  }
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:') {
    throw new Error(`${flag} expects a redis:// or rediss:// URL (got '${u.protocol}//...')`);
  }
  return url;
}

/** BullMQ connection options for a URL. Workers need `maxRetriesPerRequest: null` (blocking commands). */
export function bullConnection(url: string, blocking: boolean): ConnectionOptions {
  return blocking ? { url, maxRetriesPerRequest: null } : { url };
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
    retryStrategy: (times) => Math.min(times * 200, 2000),
  });
  let lastError: Error | null = null;
  client.on('error', (err: Error) => {
    // Reconnection is automatic; a failing command reports the error where it matters.
    lastError = err;
  });
  try {
    await client.connect();
    await client.ping();
  } catch (err) {
    client.disconnect();
    const why = (lastError as Error | null)?.message ?? (err instanceof Error ? err.message : String(err));
    throw new Error(`cannot reach Redis at ${redactRedisUrl(url)}: ${why}`);
  }
  return client;
}
