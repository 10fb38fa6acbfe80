/**
 * A distributed run survives a Redis restart (issue 25's scenario): `harness run --queue` with one
 * `harness worker`, N HTTP cases (default 3000) against a loopback agent answering after 50 ms; once 18% of the
 * cases are recorded (543 of 3000 in the issue, 4 s into its run; a fixed delay would fire before the first
 * result on a loaded machine), redis-server (no persistence) is SIGKILLed and restarted empty 3 s later.
 * Printed: whether the run finished by itself, results recorded (each key exactly once), agent calls (extra
 * calls = cases executed again because their job or result was lost with Redis), wall time against a same-run
 * baseline (the same queued run with no restart), and every line the coordinator and the worker printed.
 * Needs redis-server on PATH; run `npx tsc -b packages/models packages/harness` first. BENCH_CASES overrides N.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

const root = join(import.meta.dirname, '..');
const bin = join(root, 'packages/harness/bin/harness.js');
const out = join(root, 'bench/out/queue-redis-restart');
const N = Number(process.env.BENCH_CASES ?? 3000);
const LATENCY_MS = 50;
const KILL_AT = Math.round(N * 0.18);
const DOWN_MS = 3000;

if (!existsSync(join(root, 'packages/harness/dist/cli/main.js'))) {
  console.error('build first: npx tsc -b packages/models packages/harness');
  process.exit(2);
}
if (spawnSync('redis-server', ['--version']).status !== 0) {
  console.error('needs redis-server on PATH (apt-get install redis-server): this bench kills and restarts its own');
  process.exit(2);
}

const started: ChildProcess[] = [];
process.on('exit', () => {
  for (const c of started) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => resolve(typeof a === 'object' && a ? a.port : 0));
    });
  });
}

function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  started.push(child);
  return new Promise((resolve, reject) => {
    let text = '';
    child.stdout?.on('data', (b: Buffer) => {
      text += b.toString();
      if (text.includes('Ready to accept connections')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${text}`)));
  });
}

/** A deterministic loopback agent that counts its calls (to see how many cases ran twice). */
async function startAgent(): Promise<{ url: string; calls: () => number }> {
  let calls = 0;
  const server = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      calls++;
      const q = String(JSON.parse(Buffer.concat(chunks).toString() || '{}').question ?? '');
      const n = Number(/\d+/.exec(q)?.[0] ?? 0);
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ answer: n % 10 === 0 ? 'no idea' : `The result is ${n + 1}.` }));
      }, LATENCY_MS);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const a = server.address();
  const port = typeof a === 'object' && a ? a.port : 0;
  server.unref();
  return { url: `http://127.0.0.1:${port}/ask`, calls: () => calls };
}

function spawnHarness(args: string[]): { child: ChildProcess; err: () => string } {
  const child = spawn(process.execPath, [bin, ...args], {
    cwd: out,
    env: { ...process.env, CI: '1', NO_COLOR: '1' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  started.push(child);
  let text = '';
  child.stderr?.on('data', (b: Buffer) => {
    text += b.toString();
  });
  return { child, err: () => text };
}

function exitOf(child: ChildProcess, ms: number): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    const t = setTimeout(() => resolve(null), ms);
    child.once('exit', (code) => {
      clearTimeout(t);
      resolve(code);
    });
  });
}

interface Experiment {
  state: string;
  metrics: Record<string, { value: number }>;
  results: { test_id: string; repeat: number; status: string }[];
}

function journalKeys(dir: string): string[] {
  const file = join(dir, 'journal.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{"type":"result"'))
    .map((l) => {
      const r = JSON.parse(l).result as { test_id: string; repeat: number };
      return `${r.test_id}#${r.repeat}`;
    });
}

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const cases = Array.from({ length: N }, (_, i) =>
  JSON.stringify({ id: `c${i}`, input: `What is ${i} + 1?`, expected: `${i + 1}` }),
);
writeFileSync(join(out, 'cases.jsonl'), `${cases.join('\n')}\n`);

const agent = await startAgent();
writeFileSync(
  join(out, 'suite.yaml'),
  [
    'version: "1.0"',
    'name: redis-restart-bench',
    'agent:',
    '  adapter: http',
    '  options:',
    `    url: ${agent.url}`,
    '    body: { question: "{{input}}" }',
    '    response: { output: $.answer }',
    'evaluators: [contains]',
    'metrics: [success_rate, error_rate]',
    'tests: file://cases.jsonl',
  ].join('\n'),
);

const port = await freePort();
const url = `redis://127.0.0.1:${port}`;
let redis = await startRedis(port);

/** One queued run with one worker (default concurrency); `restart` kills and restarts Redis mid-run. */
async function queuedRun(label: string, restart: boolean) {
  const worker = spawnHarness(['worker', '--queue', url]);
  const callsBefore = agent.calls();
  const t0 = performance.now();
  const coordinator = spawnHarness([
    'run',
    'suite.yaml',
    '--queue',
    url,
    '--out',
    label,
    '--format',
    'json',
    '--no-index',
  ]);
  let recordedAtKill = 0;
  if (restart) {
    while (journalKeys(join(out, label)).length < KILL_AT && coordinator.child.exitCode === null) {
      await new Promise((r) => setTimeout(r, 100));
    }
    recordedAtKill = journalKeys(join(out, label)).length;
    redis.kill('SIGKILL');
    await exitOf(redis, 10_000);
    await new Promise((r) => setTimeout(r, DOWN_MS));
    redis = await startRedis(port);
  }
  const code = await exitOf(coordinator.child, 300_000);
  const wall = (performance.now() - t0) / 1000;
  worker.child.kill('SIGTERM');
  await exitOf(worker.child, 30_000);
  const keys = journalKeys(join(out, label));
  return {
    code,
    wall,
    keys,
    calls: agent.calls() - callsBefore,
    recordedAtKill,
    coordinatorLog: coordinator.err(),
    workerLog: worker.err(),
    experiment: existsSync(join(out, label, 'experiment.json'))
      ? (JSON.parse(readFileSync(join(out, label, 'experiment.json'), 'utf8')) as Experiment)
      : null,
  };
}

try {
  console.log(
    `machine: ${cpus().length} CPUs, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' / ')}; ${N} cases, agent latency ${LATENCY_MS} ms, one worker (concurrency 8)`,
  );
  // Spawned, not spawnSync: the agent answers from this process, so its event loop must keep running.
  const local = spawnHarness(['run', 'suite.yaml', '--out', 'local', '--format', 'json', '--no-index']);
  const localCode = await exitOf(local.child, 600_000);
  if (localCode !== 0) throw new Error(`local run failed (${localCode}): ${local.err()}`);
  const localExp = JSON.parse(readFileSync(join(out, 'local', 'experiment.json'), 'utf8')) as Experiment;

  const baseline = await queuedRun('queued-baseline', false);
  const restarted = await queuedRun('queued-restart', true);
  for (const [label, r] of [
    ['baseline (no restart)', baseline],
    ['Redis SIGKILLed and restarted empty', restarted],
  ] as const) {
    const unique = new Set(r.keys).size;
    const sameStatuses =
      r.experiment !== null &&
      JSON.stringify(r.experiment.results.map((x) => [x.test_id, x.status])) ===
        JSON.stringify(localExp.results.map((x) => [x.test_id, x.status]));
    console.log(
      `${label}: exit ${r.code ?? 'none (killed after 300 s)'}, wall ${r.wall.toFixed(1)} s, ${r.keys.length} results (${unique} distinct keys of ${N}), agent calls ${r.calls} (${r.calls - N} executed again)${label.startsWith('Redis') ? `, ${r.recordedAtKill} recorded when Redis was killed` : ''}`,
    );
    console.log(
      `  state ${r.experiment?.state ?? '-'}; success_rate ${r.experiment?.metrics.success_rate?.value ?? '-'} (local ${localExp.metrics.success_rate?.value ?? '-'}); statuses per case equal to the local run: ${sameStatuses ? 'yes' : 'NO'}`,
    );
  }
  console.log(
    `restart cost: ${(restarted.wall - baseline.wall).toFixed(1)} s more than the baseline (Redis was down ${DOWN_MS / 1000} s)`,
  );
  console.log('coordinator said:');
  for (const line of restarted.coordinatorLog.trim().split('\n')) console.log(`  ${line}`);
  console.log('worker said:');
  for (const line of restarted.workerLog.trim().split('\n').slice(0, 40)) console.log(`  ${line}`);
} finally {
  redis.kill('SIGKILL');
  rmSync(out, { recursive: true, force: true });
}
