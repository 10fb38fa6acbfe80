import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, harnessAsync } from '../../helpers/harness-cli.js';
import { startJudgeServer } from '../../helpers/judge-server.js';

// Drives the compiled CLI in child processes; the loopback judge runs in this process, so spawn is async.
// Each test spawns the CLI several times: on a loaded 2-core machine that can take well over vitest's 60 s.
beforeAll(ensureBuilt);

type Server = Awaited<ReturnType<typeof startJudgeServer>>;
const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

const suite = `
version: "1.0"
name: judged
agent: { adapter: echo }
evaluators:
  - name: llm_rubric
    options: { provider: openai, model: gpt-4o-mini, rubric: "Names the capital of France" }
tests:
  - { id: paris, input: "Paris", repeat: 2 }
  - { id: lyon, input: "Lyon" }
`;

function results(runDir: string): { id: string; status: string; score: number; judge: Record<string, unknown> }[] {
  return readFileSync(join(runDir, 'journal.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{"type":"result"'))
    .map((l) => JSON.parse(l).result)
    .map((r) => ({
      id: `${r.test_id}#${r.repeat}`,
      status: r.status,
      score: r.score,
      judge: r.evaluations[0].details.judge,
    }))
    .sort((a, b) => a.id.localeCompare(b.id));
}

describe('judge cache and --replay', () => {
  it('a replayed run reproduces the recorded judge scores with zero judge calls, even when the judge has changed its mind', async () => {
    let mood: 'generous' | 'harsh' = 'generous';
    const server = await startJudgeServer((req) =>
      mood === 'harsh'
        ? { verdict: { reasoning: 'Not convinced.', score: 1 } }
        : {
            verdict: {
              reasoning: req.text.includes('Paris') ? 'Correct.' : 'Wrong city.',
              score: req.text.includes('Paris') ? 9 : 2,
            },
          },
    );
    servers.push(server);
    const d = mkdtempSync(join(tmpdir(), 'aeh-judge-replay-'));
    writeFileSync(join(d, 'suite.yaml'), suite);
    const env = { OPENAI_API_KEY: 'sk-test-replay-key-1111', OPENAI_BASE_URL: server.url };

    const rec = await harnessAsync(
      ['run', 'suite.yaml', '--record', 'tape', '--out', 'rec', '--format', 'json', '--no-index'],
      d,
      env,
    );
    expect(rec.stderr).not.toMatch(/harness:/);
    expect(rec.code).toBe(0);
    // temperature 0: the repeat of the same output is answered from the cache, so 2 calls for 3 case runs
    expect(server.requests).toHaveLength(2);
    const recorded = results(join(d, 'rec'));
    expect(recorded.map((r) => [r.id, r.status])).toEqual([
      ['lyon#0', 'failed'],
      ['paris#0', 'passed'],
      ['paris#1', 'passed'],
    ]);
    expect(recorded.filter((r) => r.judge.cached === 1)).toHaveLength(1);
    expect(existsSync(join(d, 'rec/judge-cache.jsonl'))).toBe(true);
    expect(readFileSync(join(d, 'tape/judge-cache.jsonl'), 'utf8')).not.toContain('sk-test-replay-key-1111');

    mood = 'harsh';
    const rep = await harnessAsync(
      ['run', 'suite.yaml', '--replay', 'tape', '--out', 'rep', '--format', 'json', '--no-index'],
      d,
      env,
    );
    expect(rep.stderr).not.toMatch(/harness:/);
    expect(rep.code).toBe(0);
    expect(server.requests).toHaveLength(2); // zero judge calls on replay
    const replayed = results(join(d, 'rep'));
    expect(replayed.map((r) => [r.id, r.status, r.score])).toEqual(recorded.map((r) => [r.id, r.status, r.score]));
    // replayed verdicts cost nothing and say where they came from
    for (const r of replayed) expect(r.judge).toMatchObject({ cost: 0, cached: 1 });

    // without the recording the (now harsh) judge is asked again, and the PASS would become a FAIL
    const live = await harnessAsync(['run', 'suite.yaml', '--out', 'live', '--format', 'json', '--no-index'], d, env);
    expect(live.code).toBe(0);
    expect(results(join(d, 'live')).find((r) => r.id === 'paris#0')?.status).toBe('failed');
  }, 180_000);

  it('a damaged judge cache in the replay folder is a usage error naming file and line', async () => {
    const d = mkdtempSync(join(tmpdir(), 'aeh-judge-replay-'));
    writeFileSync(join(d, 'suite.yaml'), suite);
    const server = await startJudgeServer(() => ({ verdict: { reasoning: 'ok', score: 9 } }));
    servers.push(server);
    const env = { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: server.url };
    const rec = await harnessAsync(
      ['run', 'suite.yaml', '--record', 'tape', '--out', 'rec', '--format', 'json', '--no-index'],
      d,
      env,
    );
    expect(rec.code).toBe(0);
    writeFileSync(join(d, 'tape/judge-cache.jsonl'), '{"type":"judge_reply","key":"nothex"}\n{}\n');
    const rep = await harnessAsync(['run', 'suite.yaml', '--replay', 'tape', '--out', 'rep', '--no-index'], d, env);
    expect(rep.code).toBe(2);
    expect(rep.stderr).toMatch(/judge-cache\.jsonl:1: key: /);
  }, 180_000);

  it('harness run -t bounds a judge call whose evaluator sets no timeout (it used to wait 60 s)', async () => {
    const server = await startJudgeServer(() => ({ hang: true }));
    servers.push(server);
    const d = mkdtempSync(join(tmpdir(), 'aeh-judge-timeout-'));
    writeFileSync(join(d, 'suite.yaml'), suite.replace('repeat: 2', 'repeat: 1'));
    const env = { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: server.url };
    const r = await harnessAsync(
      ['run', 'suite.yaml', '-t', '1', '--out', 'run', '--format', 'json', '--no-index'],
      d,
      env,
    );
    expect(r.code, r.stderr).toBe(0);
    const got = results(join(d, 'run'));
    expect(got.map((x) => x.status)).toEqual(['error', 'error']);
    const journal = readFileSync(join(d, 'run/journal.jsonl'), 'utf8');
    expect(journal).toContain('failed after 1 attempt: no reply within 1 s (judge timeout)');
  }, 180_000);
});
