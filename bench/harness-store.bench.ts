/**
 * Run index (src/store): indexing a 100,000-case journal into SQLite, live tail indexing, and the queries
 * behind `harness runs/history/flaky` and the viewer's paged grid, measured on that run. A plain
 * read-and-JSON.parse of the same journal is the same-run baseline for the indexing figure.
 * Also against PostgreSQL when HARNESS_BENCH_PG_URL (or HARNESS_TEST_PG_URL) is set.
 *
 * Targets (ours; the issue sets none): index 100k results <= 20 s and <= 300 MB peak RSS; a grid page
 * (filtered, deep offset) <= 100 ms; a 1,000-result live tail <= 1 s; compare deltas of two 100k runs <= 3 s.
 */

import { once } from 'node:events';
import { createReadStream, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { itemAt } from '../packages/harness/src/core/item-at.js';
import { openStore, type RunStore } from '../packages/harness/src/store/index.js';
import { fixtureExperiment, fixtureResult } from '../packages/harness/test/unit/store/run-fixtures.js';

const N = Number(process.env.BENCH_CASES ?? 100_000);
const dir = mkdtempSync(join(tmpdir(), 'bench-store-'));

async function writeJournal(folder: string, id: string, failEvery: number, extra = 0): Promise<string> {
  const { mkdirSync } = await import('node:fs');
  mkdirSync(folder, { recursive: true });
  const { results: _r, ...header } = fixtureExperiment({
    id,
    suite: 'bench',
    startedAt: new Date().toISOString(),
    cases: [],
  });
  const file = join(folder, 'journal.jsonl');
  const out = createWriteStream(file);
  const write = async (line: string) => {
    if (!out.write(line)) await once(out, 'drain');
  };
  await write(`${JSON.stringify({ type: 'header', experiment: { ...header, state: 'running' } })}\n`);
  const template = fixtureResult({
    id: 'x',
    status: 'passed',
    tags: ['billing'],
    evals: { exact_match: true, contains: true },
    toolCalls: [{ tool_name: 'lookup', args: { id: 1 }, result: { ok: true } }],
  });
  for (let i = 0; i < N + extra; i++) {
    const failed = i % failEvery === 0;
    const r = {
      ...template,
      test_id: `case-${i}`,
      test_name: `Case number ${i}`,
      status: failed ? 'failed' : 'passed',
      score: failed ? 0 : 1,
      tags: [i % 2 ? 'odd' : 'even', `bucket-${i % 10}`],
      evaluations: template.evaluations.map((e) => ({ ...e, passed: !failed, score: failed ? 0 : 1 })),
      output: { ...template.output, output: `answer number ${i} for the customer` },
    };
    await write(`${JSON.stringify({ type: 'result', index: i, result: r })}\n`);
  }
  out.end();
  await once(out, 'finish');
  return folder;
}

function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(0)} MB`;
}

async function time<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t0 = performance.now();
  const v = await fn();
  return [v, performance.now() - t0];
}

async function median(fn: () => Promise<unknown>, runs = 15): Promise<number> {
  const t: number[] = [];
  for (let i = 0; i < runs; i++) t.push((await time(fn))[1]);
  return itemAt(
    t.sort((a, b) => a - b),
    Math.floor(runs / 2),
  );
}

const line = (name: string, value: string, target: string, ok: boolean) =>
  console.log(`${name.padEnd(44)} ${value.padStart(12)}   target ${target.padEnd(10)} ${ok ? 'OK' : 'MISSED'}`);

async function bench(label: string, store: RunStore, a: string, b: string) {
  console.log(`\n-- ${label} (${store.target.display.replace(/:[^:@/]*@/, ':***@')}) --`);
  const [ra, ms] = await time(() => store.indexRun(a, { incremental: false }));
  line(`index ${N.toLocaleString()} results`, `${(ms / 1000).toFixed(2)} s`, '<= 20 s', ms <= 20_000);
  console.log(
    `${''.padEnd(44)} ${(N / (ms / 1000)).toFixed(0).padStart(12)} results/s; peak RSS so far ${mb(process.resourceUsage().maxRSS * 1024)}`,
  );
  await store.indexRun(b);
  const id = ra.id;
  const deep = await median(() => store.listCases(id, { offset: Math.floor(N * 0.9), limit: 100 }));
  line('grid page at offset 90%', `${deep.toFixed(1)} ms`, '<= 100 ms', deep <= 100);
  const filtered = await median(() =>
    store.listCases(id, { status: ['failed'], tag: 'odd', offset: 1000, limit: 100 }),
  );
  line('grid page: status + tag filter', `${filtered.toFixed(1)} ms`, '<= 100 ms', filtered <= 100);
  const byEval = await median(() => store.listCases(id, { evaluator: 'contains', evaluatorPassed: false, limit: 100 }));
  line('grid page: evaluator failed filter', `${byEval.toFixed(1)} ms`, '<= 100 ms', byEval <= 100);
  const search = await median(() => store.listCases(id, { q: 'number 4242', limit: 100 }), 5);
  line('grid page: text search', `${search.toFixed(1)} ms`, '<= 300 ms', search <= 300);
  const one = await median(() => store.getCase(id, 'case-77777', 0));
  line('one case in full', `${one.toFixed(2)} ms`, '<= 10 ms', one <= 10);
  const detail = await median(() => store.getRun(id), 5);
  line('run detail (evaluator and tag stats)', `${detail.toFixed(1)} ms`, '<= 500 ms', detail <= 500);
  const other = await store.resolveRunId('bench-b');
  const [, deltas] = await time(() => store.caseDeltas(id, other));
  line('per-case deltas of two runs', `${(deltas / 1000).toFixed(2)} s`, '<= 3 s', deltas <= 3000);
  const [, flaky] = await time(() => store.flakyCases('bench', { minRuns: 2 }));
  line('flaky over the suite', `${(flaky / 1000).toFixed(2)} s`, '<= 3 s', flaky <= 3000);
}

try {
  // Same-run baseline: just reading and parsing the journal.
  const a = await writeJournal(join(dir, 'a'), 'bench-a', 10);
  const b = await writeJournal(join(dir, 'b'), 'bench-b', 7);
  const [, parseMs] = await time(async () => {
    const rl = createInterface({ input: createReadStream(join(a, 'journal.jsonl')) });
    let n = 0;
    for await (const l of rl) if (JSON.parse(l)) n++;
    return n;
  });
  console.log(
    `baseline: read + JSON.parse of the ${N.toLocaleString()}-result journal: ${(parseMs / 1000).toFixed(2)} s`,
  );

  const sqlite = await openStore({ store: join(dir, 'index.sqlite') });
  const [, idxMs] = await time(() => sqlite.indexRun(a));
  console.log(`index/parse ratio: ${(idxMs / parseMs).toFixed(1)}x`);
  await sqlite.rebuildIndex(dir, { all: true });
  await bench('SQLite', sqlite, a, b);

  // Live tail: 1,000 more results appended to a run being watched.
  const live = await writeJournal(join(dir, 'live'), 'bench-live', 5);
  await sqlite.indexRun(live);
  const { appendFileSync } = await import('node:fs');
  const more: string[] = [];
  for (let i = N; i < N + 1000; i++)
    more.push(
      JSON.stringify({ type: 'result', index: i, result: { ...fixtureResult({ id: `case-${i}`, status: 'passed' }) } }),
    );
  appendFileSync(join(live, 'journal.jsonl'), `${more.join('\n')}\n`);
  const [tail, tailMs] = await time(() => sqlite.indexRun(live));
  line(`live tail: ${tail.results} new results`, `${tailMs.toFixed(0)} ms`, '<= 1000 ms', tailMs <= 1000);
  await sqlite.close();

  const pgUrl = process.env.HARNESS_BENCH_PG_URL ?? process.env.HARNESS_TEST_PG_URL;
  if (pgUrl) {
    const pg = (await import('pg')).default;
    const name = `harness_bench_${process.pid}`;
    const admin = new pg.Client({ connectionString: pgUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    const url = new URL(pgUrl);
    url.pathname = `/${name}`;
    try {
      const store = await openStore({ store: url.toString() });
      await bench('PostgreSQL', store, a, b);
      await store.close();
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    }
  } else {
    console.log('\n(PostgreSQL skipped: set HARNESS_BENCH_PG_URL to include it)');
  }
  console.log(`\npeak RSS ${mb(process.resourceUsage().maxRSS * 1024)} (target <= 300 MB)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
