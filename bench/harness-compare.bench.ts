/**
 * `harness compare` of two 100,000-case runs (journals written here), through the built CLI in a fresh process.
 * Targets: <= 3 s wall clock and <= 300 MB peak RSS. Baseline in the same run: a process that only reads and
 * JSON-parses both journals line by line (the floor any reader pays).
 * Run `npx tsc -b packages/models packages/harness` first.
 */
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { itemAt } from '../packages/harness/src/core/item-at.js';

const root = join(import.meta.dirname, '..');
const out = join(root, 'bench/out/compare');
const bin = join(root, 'packages/harness/bin/harness.js');
const N = Number(process.env.BENCH_CASES ?? 100_000);

if (!existsSync(join(root, 'packages/harness/dist/cli/main.js'))) {
  console.error('build first: npx tsc -b packages/models packages/harness');
  process.exit(2);
}

/** Deterministic pseudo-random numbers (so both runs and every bench run see the same data). */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function writeRun(dir: string, id: string, passProb: (i: number) => number, latencyShift: number) {
  mkdirSync(dir, { recursive: true });
  const file = createWriteStream(join(dir, 'journal.jsonl'));
  const write = async (line: string) => {
    if (!file.write(`${line}\n`)) await once(file, 'drain');
  };
  const started = '2026-01-01T00:00:00.000Z';
  const header = {
    schema_version: '1',
    id,
    name: `compare-bench ${id}`,
    state: 'running',
    suite: { name: 'compare-bench', version: '1.0', content_hash: 'x', total_cases: N },
    agent: { adapter: 'module', options: {}, label: id },
    started_at: started,
    finished_at: null,
    metrics: {},
    thresholds: null,
    environment: { tool_version: '0.1.0', node_version: process.version, platform: 'linux', git_commit: null },
    metadata: {},
  };
  await write(JSON.stringify({ type: 'header', experiment: header }));
  const r = rng(7);
  const noise = rng(id.length * 31);
  let passed = 0;
  for (let i = 0; i < N; i++) {
    const u = r();
    const pass = u < passProb(i) || (noise() < 0.01 && u < 0.9);
    if (pass) passed++;
    const latency = Math.round((0.2 + r() * 0.8 + latencyShift) * 1000) / 1000;
    const result = {
      test_id: `case-${String(i).padStart(6, '0')}`,
      test_name: `support request ${i}`,
      repeat: 0,
      status: pass ? 'passed' : 'failed',
      tags: [i % 3 === 0 ? 'refunds' : 'tracking'],
      input: `Customer ${i} asks about order A-${1000 + (i % 900)}: where is it and can I get a refund?`,
      output: {
        output: pass ? `Your refund of $${(i % 90) + 9}.99 is on its way.` : 'I cannot help with that request.',
        error: null,
        latency,
        time_to_first_token: null,
        tool_calls: [
          {
            tool_name: 'lookup_order',
            args: { id: `A-${1000 + (i % 900)}` },
            result: { ok: true },
            duration: 0.05,
            status: 'success',
            error: null,
          },
        ],
        trace: null,
        usage: { input_tokens: 120 + (i % 50), output_tokens: 40 + (i % 20), estimated: false },
        cost: 0.0001,
        cost_is_estimated: false,
        metadata: {},
      },
      evaluations: [
        {
          evaluator: 'contains',
          score: pass ? 1 : 0,
          passed: pass,
          explanation: pass ? 'found "refund"' : 'missing "refund"',
          weight: 1,
          error: false,
          details: {},
        },
        {
          evaluator: 'tool_usage',
          score: 1,
          passed: true,
          explanation: 'called lookup_order',
          weight: 1,
          error: false,
          details: {},
        },
      ],
      score: pass ? 1 : 0.5,
      duration: latency,
      attempts: 1,
      metadata: {},
    };
    await write(JSON.stringify({ type: 'result', index: i, result }));
  }
  const rate = passed / N;
  await write(
    JSON.stringify({
      type: 'end',
      state: 'completed',
      finished_at: '2026-01-01T00:10:00.000Z',
      metrics: {
        success_rate: {
          name: 'success_rate',
          value: rate,
          formatted_value: `${(rate * 100).toFixed(1)}%`,
          direction: 'higher_is_better',
          description: null,
          interval: null,
          details: {},
        },
      },
      thresholds: null,
    }),
  );
  file.end();
  await once(file, 'finish');
}

rmSync(out, { recursive: true, force: true });
const g0 = performance.now();
await writeRun(join(out, 'base'), 'base', () => 0.8, 0);
// Candidate: two points worse on pass rate, 50 ms slower.
await writeRun(join(out, 'cand'), 'cand', () => 0.78, 0.05);
console.log(`generated 2 x ${N.toLocaleString('en-US')} results in ${Math.round(performance.now() - g0)} ms`);

/** Wall clock (s), peak RSS (MB) and exit code of a command, via GNU time. */
function timed(args: string[]): { seconds: number; cpu: number; mb: number; code: number | null } {
  const r = spawnSync('/usr/bin/time', ['-f', 'TIME %e %M %U %S', ...args], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const m = /TIME ([\d.]+) (\d+) ([\d.]+) ([\d.]+)/.exec(r.stderr ?? '');
  if (!m) throw new Error(`no timing in: ${r.stderr}`);
  return { seconds: Number(m[1]), mb: Number(m[2]) / 1024, cpu: Number(m[3]) + Number(m[4]), code: r.status };
}

const readFloor = `
const fs = require('node:fs');
for (const f of process.argv.slice(1)) {
  const text = fs.readFileSync(f, 'utf8');
  let start = 0, n = 0;
  for (;;) { const nl = text.indexOf('\\n', start); if (nl < 0) break; JSON.parse(text.slice(start, nl)); n++; start = nl + 1; }
}`;
const floor = timed([
  process.execPath,
  '-e',
  readFloor,
  join(out, 'base/journal.jsonl'),
  join(out, 'cand/journal.jsonl'),
]);
const runs = [0, 1, 2].map(() =>
  timed([
    process.execPath,
    bin,
    'compare',
    join(out, 'base'),
    join(out, 'cand'),
    '--format',
    'json',
    '--out',
    join(out, 'comparison.json'),
  ]),
);
runs.sort((a, b) => a.seconds - b.seconds);
const median = itemAt(runs, 1);
const peak = Math.max(...runs.map((r) => r.mb));
console.log(`read+parse floor (both journals): ${floor.seconds.toFixed(2)} s, ${floor.mb.toFixed(0)} MB`);
console.log(
  `harness compare 2 x ${N.toLocaleString('en-US')} cases: ${median.seconds.toFixed(2)} s (median of 3; ${(median.seconds / floor.seconds).toFixed(1)}x the parse floor)  target <= 3 s  ${median.seconds <= 3 ? 'OK' : 'MISSED'}`,
);
console.log(`peak RSS: ${peak.toFixed(0)} MB  target <= 300 MB  ${peak <= 300 ? 'OK' : 'MISSED'}`);
const { loadavg } = await import('node:os');
console.log(
  `CPU time of that compare: ${median.cpu.toFixed(2)} s (user + sys; what the wall clock approaches on an idle machine); load average ${itemAt(loadavg(), 0).toFixed(1)}`,
);
