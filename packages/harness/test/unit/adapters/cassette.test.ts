import { appendFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Agent, RunContext } from '../../../src/adapters/base.js';
import { CassetteError, loadCassette, recordingAgent, replayAgent } from '../../../src/adapters/cassette.js';
import { agentOutput } from '../../../src/core/agent.js';
import { TestCase } from '../../../src/core/testcase.js';

function ctx(id: string, input: unknown, repeat = 0, attempt = 1): RunContext {
  return {
    signal: new AbortController().signal,
    testCase: TestCase.parse({ id, name: id, input }),
    repeat,
    attempt,
    vars: { v: 1 },
  };
}

describe('record and replay', () => {
  it('records each exchange as it completes and replays it without calling the agent', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cassette-'));
    let calls = 0;
    const agent: Agent = {
      async run(input) {
        calls++;
        return agentOutput({ output: `answer ${JSON.stringify(input)} #${calls}`, tool_calls: [{ tool_name: 't' }] });
      },
      describe: () => ({ adapter: 'fake', options: { url: 'x' } }),
    };
    const rec = recordingAgent(agent, dir, { scrub: (t) => t.replaceAll('sekret', '[REDACTED]') });
    const a = await rec.run('q1', ctx('a', 'q1'));
    const b0 = await rec.run({ k: 'sekret' }, ctx('b', { k: 'sekret' }, 0));
    const b1 = await rec.run({ k: 'sekret' }, ctx('b', { k: 'sekret' }, 1));
    // A retry of the same key replaces the first attempt.
    const a2 = await rec.run('q1', ctx('a', 'q1', 0, 2));
    await rec.close?.();
    expect(a.latency).not.toBeNull();
    const text = readFileSync(join(dir, 'cassette.jsonl'), 'utf8');
    expect(text).not.toContain('sekret');
    expect(text.split('\n').filter(Boolean)).toHaveLength(5);

    const cassette = loadCassette(dir);
    expect(cassette.header?.agent).toEqual({ adapter: 'fake', options: { url: 'x' } });
    expect([...cassette.exchanges.keys()].sort()).toEqual(['a#0', 'b#0', 'b#1']);

    const replay = replayAgent(dir);
    expect(await replay.run('q1', ctx('a', 'q1'))).toEqual(a2);
    expect((await replay.run('q1', ctx('a', 'q1'))).output).not.toBe(a.output);
    expect((await replay.run('x', ctx('b', { k: 'sekret' }, 1))).error).toMatch(/input of case 'b' changed/);
    expect(b0.output).not.toBe(b1.output);
    expect(replay.describe?.()).toMatchObject({ adapter: 'fake' });
    expect(calls).toBe(4);
  });

  it('treats a missing entry as an error and strips retry hints from replayed outputs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cassette-'));
    const rec = recordingAgent(
      { run: async () => agentOutput({ error: 'HTTP 503', transient: true, retry_after: 3, latency: 0.2 }) },
      dir,
    );
    await rec.run('x', ctx('only', 'x'));
    await rec.close?.();
    const replay = replayAgent(dir);
    const out = await replay.run('x', ctx('only', 'x'));
    expect(out).toMatchObject({ error: 'HTTP 503', latency: 0.2 });
    expect(out.transient).toBeUndefined();
    const missing = await replay.run('x', ctx('other', 'x', 2));
    expect(missing.error).toMatch(/^replay: no recorded exchange for case 'other' repeat 2 in /);
  });

  it('tolerates a truncated last line and rejects a corrupt one in the middle', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cassette-'));
    const file = join(dir, 'cassette.jsonl');
    const line = JSON.stringify({
      type: 'exchange',
      key: 'a#0',
      test_id: 'a',
      repeat: 0,
      attempt: 1,
      request: { input: 'x', vars: {}, input_sha256: 'h' },
      response: agentOutput({ output: 'ok' }),
      timing: { started_at: '', duration: 0 },
    });
    appendFileSync(file, `${line}\n{"type":"exch`);
    expect(loadCassette(dir).exchanges.size).toBe(1);
    appendFileSync(file, `\n${line}\n`);
    expect(() => loadCassette(dir)).toThrowError(CassetteError);
    expect(() => loadCassette(join(dir, 'nope'))).toThrowError(/no cassette at/);
  });
});
