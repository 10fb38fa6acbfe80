import { describe, expect, it } from 'vitest';
import { reconnectDelay } from '../../../src/scale/queue/redis.js';
import { parseInfo, type RedisSetup, redisSetupWarnings } from '../../../src/scale/queue/redis-setup.js';

const safe: RedisSetup = { runId: 'a', version: '7.0.15', maxmemoryPolicy: 'noeviction', appendonly: true, save: '' };

describe('Redis set-up check', () => {
  it('an evicting Redis is named with the setting to change; a safe one gets no warning', () => {
    expect(redisSetupWarnings(safe)).toEqual([]);
    const [warning, ...rest] = redisSetupWarnings({ ...safe, maxmemoryPolicy: 'allkeys-lru' });
    expect(rest).toEqual([]);
    expect(warning).toContain('maxmemory-policy allkeys-lru');
    expect(warning).toContain("'maxmemory-policy noeviction'");
  });

  it('persistence off (no AOF, no RDB rule) is named; AOF on, RDB snapshots on, or unknown settings are not', () => {
    const [warning] = redisSetupWarnings({ ...safe, appendonly: false, save: '' });
    expect(warning).toContain("appendonly no, save ''");
    expect(warning).toContain("'appendonly yes'");
    expect(redisSetupWarnings({ ...safe, appendonly: false, save: '3600 1 300 100' })).toEqual([]);
    // CONFIG GET refused (managed Redis) or fields missing: no claim the check cannot back.
    expect(redisSetupWarnings({ ...safe, appendonly: false, save: null })).toEqual([]);
    expect(redisSetupWarnings({ ...safe, appendonly: null, maxmemoryPolicy: null })).toEqual([]);
  });

  it('both problems give two warnings', () => {
    expect(redisSetupWarnings({ ...safe, maxmemoryPolicy: 'volatile-lru', appendonly: false, save: '' })).toHaveLength(
      2,
    );
  });

  it('reads INFO sections: fields by name, section headers and blank lines ignored', () => {
    const info = parseInfo(
      '# Server\r\nredis_version:7.0.15\r\nrun_id:abc123\r\n\r\n# Memory\r\nmaxmemory_policy:noeviction\r\n',
    );
    expect(info.get('run_id')).toBe('abc123');
    expect(info.get('maxmemory_policy')).toBe('noeviction');
    expect(info.has('# Server')).toBe(false);
    expect(parseInfo('').size).toBe(0);
  });

  it('reconnection backs off from ~100 ms to at most 2 s, with jitter', () => {
    for (let attempt = 1; attempt <= 20; attempt++) {
      const d = reconnectDelay(attempt);
      const cap = Math.min(100 * 2 ** (attempt - 1), 2000);
      expect(d).toBeGreaterThanOrEqual(cap / 2);
      expect(d).toBeLessThanOrEqual(cap);
    }
    expect(reconnectDelay(30)).toBeLessThanOrEqual(2000);
  });
});
