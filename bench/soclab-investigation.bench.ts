/**
 * soclab core speed.
 * 1. One baseline scenario run with the mock (BEN-001: seven turns, six proposals, ~22 chained events written to
 *    an in-memory SQLite evidence store, verification, oracles). Target: median <= 20 ms.
 *    Same-run baseline: the bare investigation (orchestrator + mock + simulator, no persistence), so the ratio
 *    shows what the evidence chain and scoring add.
 * 2. Hash-chain verification of 100,000 stored events with realistic payloads (model turns, tool outputs).
 *    Target: >= 100,000 events/s. Also reported: reading the same run back from a SQLite file and verifying it.
 * Run from the repository root: `npx tsx bench/soclab-investigation.bench.ts`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ChainRow, linkRow, verifyRows } from '../packages/soclab/src/evidence/hash-chain.js';
import { openEvidenceStore } from '../packages/soclab/src/evidence/store.js';
import { BaselinePort } from '../packages/soclab/src/modes/baseline-port.js';
import { runInvestigation } from '../packages/soclab/src/orchestrator/investigation.js';
import { MockAdversaryProvider } from '../packages/soclab/src/providers/mock.js';
import { loadCorpus } from '../packages/soclab/src/scenarios/loader.js';
import { runScenario } from '../packages/soclab/src/scenarios/runner.js';
import { createSimulator } from '../packages/soclab/src/simulator/state.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 300);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 100_000);

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.95)]!;

async function timeRuns(fn: () => Promise<unknown>, n: number): Promise<number[]> {
  for (let i = 0; i < 20; i++) await fn(); // warm-up (JIT, module caches)
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  return times;
}

console.log(
  `machine: ${cpus().length} CPUs, load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')} (figures scale with contention; compare ratios)`,
);

const corpus = loadCorpus({ dir: null });
const store = await openEvidenceStore(':memory:');
const scenario = corpus.all.find((s) => s.id === 'BEN-001')!;

const full = await timeRuns(() => runScenario({ scenario, corpus, evidence: store }), RUNS);
const bare = await timeRuns(async () => {
  const sim = createSimulator({ enforceScope: false, runId: crypto.randomUUID() });
  await runInvestigation({
    incidentId: sim.incidentId,
    alert: structuredClone(sim.incident),
    provider: new MockAdversaryProvider(),
    port: new BaselinePort(sim),
  });
}, RUNS);
const attack = await timeRuns(() => runScenario({ scenario: 'ATK-001', corpus, evidence: store }), RUNS);
await store.close();

const fullMedian = median(full);
console.log(`baseline scenario run (BEN-001, mock, in-memory SQLite chain), ${RUNS} runs:`);
console.log(
  `  median ${fullMedian.toFixed(2)} ms, p95 ${p95(full).toFixed(2)} ms   target <= 20 ms median   ${fullMedian <= 20 ? 'OK' : 'MISSED'}`,
);
console.log(`  ATK-001 (gullible, injected note): median ${median(attack).toFixed(2)} ms`);
console.log(
  `  same-run baseline, bare investigation (no chain, no oracles): median ${median(bare).toFixed(2)} ms; full/bare = ${(fullMedian / median(bare)).toFixed(2)}x`,
);

// Chain verification: a realistic mix of payloads (sizes like a real run's model turns and tool outputs).
const sample = await runScenario({ scenario, corpus });
const payloads = [
  ...sample.investigation.events,
  ...sample.investigation.tool_outputs,
  sample.investigation.finding!,
] as unknown as Record<string, unknown>[];
const runId = crypto.randomUUID();
const rows: ChainRow[] = [];
let previous = '0'.repeat(64);
const buildStart = performance.now();
for (let i = 0; i < EVENTS; i++) {
  const row = linkRow({
    event_id: crypto.randomUUID(),
    run_id: runId,
    sequence: i + 1,
    event_type: 'model.turn',
    payload: { ...payloads[i % payloads.length], n: i },
    previous_hash: previous,
    recorded_at: new Date(1_790_000_000_000 + i).toISOString(),
  });
  previous = row.event_hash;
  rows.push(row);
}
const buildMs = performance.now() - buildStart;
const avgBytes = rows.reduce((a, r) => a + r.payload.length, 0) / rows.length;

const verifyTimes: number[] = [];
for (let i = 0; i < 5; i++) {
  const t = performance.now();
  const v = verifyRows(runId, rows);
  verifyTimes.push(performance.now() - t);
  if (!v.valid) throw new Error(`chain unexpectedly invalid: ${v.reason}`);
}
const verifyMs = median(verifyTimes);
const rate = EVENTS / (verifyMs / 1000);
console.log(`chain verification, ${EVENTS.toLocaleString('en-US')} events (payload ~${Math.round(avgBytes)} bytes):`);
console.log(
  `  ${Math.round(rate).toLocaleString('en-US')} events/s (median of 5, ${verifyMs.toFixed(0)} ms)   target >= 100,000 events/s   ${rate >= 100_000 ? 'OK' : 'MISSED'}`,
);
console.log(
  `  same-run baseline, appending (canonicalize + 2 hashes): ${Math.round(EVENTS / (buildMs / 1000)).toLocaleString('en-US')} events/s`,
);

const dir = mkdtempSync(join(tmpdir(), 'soclab-bench-'));
try {
  const fileStore = await openEvidenceStore(join(dir, 'bench.sqlite'));
  const chunk = 500; // SQLite caps bound variables per statement
  for (let i = 0; i < rows.length; i += chunk) {
    await fileStore.db
      .insertInto('audit_events')
      .values(rows.slice(i, i + chunk))
      .execute();
  }
  const t = performance.now();
  const v = await fileStore.verify(runId);
  const ms = performance.now() - t;
  console.log(
    `  read back from a SQLite file and verify: ${Math.round(EVENTS / (ms / 1000)).toLocaleString('en-US')} events/s (valid=${v.valid})`,
  );
  await fileStore.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
