import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, harnessAsync } from '../../helpers/harness-cli.js';
import { startJudgeServer } from '../../helpers/judge-server.js';

// Each test spawns the CLI several times: on a loaded 2-core machine that can take well over vitest's 60 s.
beforeAll(ensureBuilt);

type Server = Awaited<ReturnType<typeof startJudgeServer>>;
const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

/** Independent reference: the Wilson score interval written out from its textbook formula. */
function wilsonReference(x: number, n: number): [number, number] {
  const z = 1.959963984540054;
  const p = x / n;
  const centre = p + (z * z) / (2 * n);
  const margin = z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n));
  const denom = 1 + (z * z) / n;
  return [(centre - margin) / denom, (centre + margin) / denom];
}

/** The text of the message that carries the fenced responses (the untrusted one). */
function untrusted(body: Record<string, unknown>): string {
  const messages = body.messages as { role: string; content: string | { text: string }[] }[];
  return messages
    .map((m) => (typeof m.content === 'string' ? m.content : m.content.map((c) => c.text).join('')))
    .join('\n');
}

describe('harness compare --judge', () => {
  it('grades paired outputs in both orders: wins, losses, position-bias ties and a win rate with its interval', async () => {
    const server = await startJudgeServer((req) => {
      const text = untrusted(req.body);
      const good = text.indexOf('GOOD');
      const bad = text.indexOf('BAD');
      let winner = good >= 0 && bad >= 0 ? (good < bad ? '1' : '2') : 'tie';
      if (text.includes('case 6')) winner = '1'; // always the first response: position bias
      if (text.includes('case 7')) winner = 'tie';
      return { verdict: { reasoning: `picked ${winner}`, winner } };
    });
    servers.push(server);
    const d = mkdtempSync(join(tmpdir(), 'aeh-compare-judge-'));
    // c0-c4: the candidate answers better; c5: the baseline does; c6, c7: ties of two kinds.
    writeFileSync(
      join(d, 'agent.mjs'),
      `export async function run(input) {
  const i = Number(String(input).replace('case ', ''));
  const candidate = process.env.VARIANT === 'candidate';
  if (i >= 6) return { output: (candidate ? 'answer B for ' : 'answer A for ') + input };
  const better = i === 5 ? !candidate : candidate;
  return { output: (better ? 'GOOD ' : 'BAD ') + input };
}\n`,
    );
    const cases = Array.from({ length: 8 }, (_, i) => `  - { id: c${i}, input: "case ${i}" }`).join('\n');
    writeFileSync(
      join(d, 'suite.yaml'),
      `version: "1.0"\nname: pairs\nagent: { adapter: module, options: { module: ./agent.mjs#run } }\nevaluators: [{ name: contains, options: { substring: "answer" } }]\ntests:\n${cases}\n`,
    );
    const env = { OPENAI_API_KEY: 'sk-test-compare-2222', OPENAI_BASE_URL: server.url };
    for (const variant of ['baseline', 'candidate']) {
      const r = await harnessAsync(
        ['run', 'suite.yaml', '--out', variant, '--format', 'json', '--no-index', '--no-thresholds'],
        d,
        { ...env, VARIANT: variant },
      );
      expect(r.code, r.stderr).toBe(0);
    }
    const r = await harnessAsync(
      ['compare', 'baseline', 'candidate', '--judge', 'openai/gpt-4o-mini', '--format', 'json'],
      d,
      env,
    );
    expect(r.code, r.stderr).toBe(0);
    const pw = JSON.parse(r.stdout).pairwise;
    expect(server.requests).toHaveLength(16); // 8 pairs, both orders
    expect(pw).toMatchObject({
      judge: 'openai/gpt-4o-mini',
      pairs: 8,
      judged: 8,
      candidate_wins: 5,
      baseline_wins: 1,
      ties: 2,
      inconsistent: 1,
      errors: 0,
    });
    expect(pw.win_rate).toBeCloseTo((5 + 2 / 2) / 8, 12);
    const [lo, hi] = wilsonReference(6, 8);
    expect(pw.interval.lower).toBeCloseTo(lo, 12);
    expect(pw.interval.upper).toBeCloseTo(hi, 12);
    expect(pw.cases.find((c: { key: string }) => c.key === 'c6#0')).toMatchObject({ winner: 'tie', consistent: false });
    // console output carries the same figures
    const text = await harnessAsync(['compare', 'baseline', 'candidate', '--judge', 'openai/gpt-4o-mini'], d, env);
    expect(text.stdout).toMatch(/candidate win rate: 75\.0% \(95% CI/);
    expect(text.stdout).not.toContain('sk-test-compare-2222');
    const bad = await harnessAsync(['compare', 'baseline', 'candidate', '--judge', 'Not A Judge'], d, env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--judge expects <provider>\[\/<model>\]/);
  }, 180_000);
});

describe('harness judge calibrate', () => {
  it('measures a judge against human labels: agreement and kappa match hand calculation, confusion, bias, errors', async () => {
    const server = await startJudgeServer((req) => {
      const text = untrusted(req.body);
      if (text.includes('garbled')) return { text: 'Score: high' };
      return { verdict: { reasoning: 'r', score: text.includes('yes') ? 9 : 2 } };
    });
    servers.push(server);
    const d = mkdtempSync(join(tmpdir(), 'aeh-calibrate-'));
    // human pass & judge pass: 4; human pass & judge fail: 1; human fail & judge pass: 2; both fail: 3; one garbled.
    const rows = [
      ...Array.from({ length: 4 }, (_, i) => ({ id: `pp${i}`, output: `yes ${i}`, label: true })),
      { id: 'pf0', output: 'no 0', label: 'pass' },
      ...Array.from({ length: 2 }, (_, i) => ({ id: `fp${i}`, output: `yes but wrong ${i}`, label: 'fail' })),
      ...Array.from({ length: 3 }, (_, i) => ({ id: `ff${i}`, output: `no ${i}`, label: false })),
      { id: 'err', output: 'garbled', label: true },
    ].map((r) => JSON.stringify({ input: 'Is it right?', expected: 'Answers affirmatively', ...r }));
    writeFileSync(join(d, 'labels.jsonl'), `${rows.join('\n')}\n`);
    const env = { OPENAI_API_KEY: 'sk-test-calibrate-3333', OPENAI_BASE_URL: server.url };
    const r = await harnessAsync(
      ['judge', 'calibrate', 'labels.jsonl', '--judge', 'openai/gpt-4o-mini', '--format', 'json'],
      d,
      env,
    );
    expect(r.code, r.stderr).toBe(0);
    const rep = JSON.parse(r.stdout);
    expect(rep).toMatchObject({
      items: 11,
      judged: 10,
      confusion: {
        human_pass_judge_pass: 4,
        human_pass_judge_fail: 1,
        human_fail_judge_pass: 2,
        human_fail_judge_fail: 3,
      },
    });
    expect(rep.judge_errors).toEqual([
      { id: 'err', error: expect.stringMatching(/^judge openai\/gpt-4o-mini did not return a JSON verdict/) },
    ]);
    // by hand: po = 7/10; pe = 0.5 * 0.6 + 0.5 * 0.4 = 0.5; kappa = (0.7 - 0.5) / (1 - 0.5) = 0.4
    expect(rep.agreement).toBeCloseTo(0.7, 12);
    expect(rep.kappa).toBeCloseTo(0.4, 12);
    const [lo, hi] = wilsonReference(7, 10);
    expect(rep.agreement_interval.lower).toBeCloseTo(lo, 12);
    expect(rep.agreement_interval.upper).toBeCloseTo(hi, 12);
    expect(rep.kappa_interval.lower).toBeLessThan(0.4);
    expect(rep.kappa_interval.upper).toBeGreaterThan(0.4);
    expect(rep.bias).toBeCloseTo(0.1, 12); // judge passes 6/10, humans 5/10: lenient
    const text = await harnessAsync(['judge', 'calibrate', 'labels.jsonl', '--judge', 'openai/gpt-4o-mini'], d, env);
    expect(text.stdout).toMatch(/agreement 70\.0% \(95% CI/);
    expect(text.stdout).toMatch(/lenient: passes 10\.0% more items than the humans/);
  }, 180_000);
  it('a bad labels file is a usage error naming file:line:col and the field', async () => {
    const d = mkdtempSync(join(tmpdir(), 'aeh-calibrate-'));
    writeFileSync(
      join(d, 'labels.jsonl'),
      `${JSON.stringify({ input: 'q', output: 'a', label: true })}\n{"input": "q", "output": "a", "label": "maybe"}\nnot json\n`,
    );
    const r = await harnessAsync(['judge', 'calibrate', 'labels.jsonl', '--judge', 'openai'], d, {
      OPENAI_API_KEY: 'sk-x',
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/labels\.jsonl:2:31: label: /);
    expect(r.stderr).toMatch(/labels\.jsonl:3:1: not valid JSON/);
    const noKey = await harnessAsync(['judge', 'calibrate', 'labels.jsonl', '--judge', 'no_such_vendor'], d, {});
    expect(noKey.code).toBe(2);
  }, 180_000);
});
