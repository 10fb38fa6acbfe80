import type { Redis } from 'ioredis';

/**
 * What the coordinator and workers need to know about the Redis they share: its identity (`run_id` changes
 * on every restart, so a restart is detectable even when Redis comes back within one poll) and the two
 * settings BullMQ's guarantees rest on: the eviction policy and persistence.
 */
export interface RedisSetup {
  /** `run_id` from `INFO server`: a new value means Redis restarted (and lost whatever it did not persist). */
  runId: string;
  version: string;
  /** `maxmemory-policy`; null when Redis does not report it. */
  maxmemoryPolicy: string | null;
  /** `appendonly` (AOF) on; null when unknown. */
  appendonly: boolean | null;
  /** RDB snapshot rule (`save`, '' = off); null when `CONFIG GET` is not allowed (managed Redis). */
  save: string | null;
}

/** Parse `INFO` text into its `field:value` lines. */
export function parseInfo(text: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0 && !line.startsWith('#')) fields.set(line.slice(0, colon), line.slice(colon + 1).trim());
  }
  return fields;
}

/** The `run_id` of the Redis behind `redis` (throws when unreachable). */
export async function readRedisRunId(redis: Redis): Promise<string> {
  return parseInfo(await redis.info('server')).get('run_id') ?? '';
}

/** Read the setup; INFO is always allowed, CONFIG GET may be disabled (then `save` stays unknown). */
export async function readRedisSetup(redis: Redis): Promise<RedisSetup> {
  const info = parseInfo(
    [await redis.info('server'), await redis.info('memory'), await redis.info('persistence')].join('\n'),
  );
  let save: string | null = null;
  try {
    const reply = (await redis.call('CONFIG', 'GET', 'save')) as string[];
    save = reply.length >= 2 ? String(reply[1]) : null;
  } catch {
    save = null;
  }
  const aof = info.get('aof_enabled');
  return {
    runId: info.get('run_id') ?? '',
    version: info.get('redis_version') ?? '?',
    maxmemoryPolicy: info.get('maxmemory_policy') ?? null,
    appendonly: aof === undefined ? null : aof === '1',
    save,
  };
}

/**
 * Warnings about a setup that can lose queued work, each naming the setting to change. Eviction is the
 * serious one (Redis silently drops job keys under memory pressure); no persistence only matters when Redis
 * restarts, and the coordinator recovers from that by re-enqueuing, at the cost of running cases again.
 */
export function redisSetupWarnings(setup: RedisSetup): string[] {
  const warnings: string[] = [];
  if (setup.maxmemoryPolicy !== null && setup.maxmemoryPolicy !== 'noeviction') {
    warnings.push(
      `Redis has maxmemory-policy ${setup.maxmemoryPolicy}: under memory pressure it evicts queued jobs; BullMQ needs 'maxmemory-policy noeviction' (redis.conf, or CONFIG SET maxmemory-policy noeviction)`,
    );
  }
  if (setup.appendonly === false && setup.save === '') {
    warnings.push(
      `Redis persistence is off (appendonly no, save ''): a Redis restart loses the queue; the coordinator then re-enqueues the missing case runs, which run again. For long runs set 'appendonly yes'`,
    );
  }
  return warnings;
}
