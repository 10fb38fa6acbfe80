// biome-ignore-all lint/suspicious/noTemplateCurlyInString: suite text with ${VAR} placeholders
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadBuiltins } from '../../../src/cli/common.js';
import { lenientEnv } from '../../../src/scale/env.js';
import { resultProblem } from '../../../src/scale/queue/coordinator.js';
import { jobIdFor, queueNameFor } from '../../../src/scale/queue/protocol.js';
import { checkRedisUrl, redactRedisUrl } from '../../../src/scale/queue/redis.js';
import { loadSuite } from '../../../src/suites/loader.js';

describe('queue protocol', () => {
  it('job ids are stable per case x repeat key, distinct, and valid BullMQ custom ids (no ":")', () => {
    expect(jobIdFor('ns:case-1#0')).toBe(jobIdFor('ns:case-1#0'));
    expect(jobIdFor('ns:case-1#0')).not.toBe(jobIdFor('ns:case-1#1'));
    expect(jobIdFor('ns:case-1#0')).toMatch(/^k[0-9a-f]{32}$/);
    expect(queueNameFor('abc123')).not.toBe(queueNameFor('abc124'));
  });

  it('Redis URLs: passwords never printed; other schemes refused with the flag name', () => {
    expect(redactRedisUrl('redis://:hunter22@10.0.0.5:6379/2')).toBe('redis://:***@10.0.0.5:6379/2');
    expect(redactRedisUrl('redis://127.0.0.1:6379')).toBe('redis://127.0.0.1:6379');
    expect(redactRedisUrl('redis://127.0.0.1:6379/0?password=hunter22')).toBe('redis://127.0.0.1:6379/0?password=***');
    // An unparseable URL (port out of range) is refused without echoing its password.
    expect(() => checkRedisUrl('redis://:hunter22@10.0.0.5:99999')).toThrow(/expects a Redis URL/);
    expect(() => checkRedisUrl('redis://:hunter22@10.0.0.5:99999')).not.toThrow(/hunter22/);
    expect(() => checkRedisUrl('http://127.0.0.1:6379')).toThrow(/--queue expects a redis:\/\/ or rediss:\/\/ URL/);
    expect(() => checkRedisUrl('127.0.0.1:6379')).toThrow(/--queue expects a redis/i);
    expect(checkRedisUrl('rediss://cache.internal:6380')).toBe('rediss://cache.internal:6380');
  });

  it("a worker's result is shape-checked before it is journaled", () => {
    const good = {
      test_id: 'a',
      repeat: 0,
      status: 'passed',
      tags: [],
      output: { output: 'x', tool_calls: [] },
      evaluations: [],
      score: 1,
      duration: 0.1,
      metadata: {},
    };
    expect(resultProblem(good)).toBeNull();
    expect(resultProblem({ ...good, status: 'great' })).toMatch(/status/);
    expect(resultProblem({ ...good, output: 'x' })).toMatch(/output/);
    expect(resultProblem('nope')).toMatch(/not an object/);
  });
});

describe('lenientEnv (queue coordinators and merges load suites without the agent secrets)', () => {
  beforeAll(loadBuiltins);

  it('keeps set variables and leaves unset ones as their literal ${NAME}, so the suite still loads', async () => {
    const d = mkdtempSync(join(tmpdir(), 'aeh-lenient-'));
    const file = join(d, 'suite.yaml');
    writeFileSync(
      file,
      [
        'version: "1.0"',
        'name: lenient',
        'agent: { adapter: mock, options: { default_output: "${GREETING}" } }',
        'tests: [{ id: a, input: "${API_TOKEN}" }]',
      ].join('\n'),
    );
    await expect(loadSuite(file, { env: { GREETING: 'hi' } })).rejects.toThrow(/API_TOKEN is not set/);
    const suite = await loadSuite(file, { env: lenientEnv({ GREETING: 'hi' }) });
    expect(suite.agent.options).toEqual({ default_output: 'hi' });
    const cases = [];
    for await (const c of suite.cases()) cases.push(c);
    expect(cases[0]?.input).toBe('${API_TOKEN}');
  });
});
