/**
 * Distributed runs (`harness run --queue` + `harness worker`) on a real Redis: 2,000 cases against a loopback
 * HTTP agent (examples/http-agent/server.mjs) that answers after 50 ms.
 * Compared: one worker at concurrency 16 versus four workers at concurrency 16 each.
 * Target: speed-up >= 3.2x (ideal 4x). Also reported: the coordinator's peak RSS and CPU, throughput, and a
 * same-run baseline: the same suite run locally (no queue) at concurrency 16.
 * Redis: HARNESS_BENCH_REDIS_URL or HARNESS_TEST_REDIS_URL, else a throwaway redis-server on 127.0.0.1.
 * Run `npx tsc -b packages/models packages/harness` first. BENCH_CASES overrides the case count.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { itemAt } from '../packages/harness/src/core/item-at.js';

const root = join(import.meta.dirname, '..');
const bin = join(root, 'packages/harness/bin/harness.js');
const out = join(root, 'bench/out/distributed');
const N = Number(process.env.BENCH_CASES ?? 2000);
const LATENCY_MS = 50;
const CONCURRENCY = 16;
const TARGET_SPEEDUP = 3.2;

if (!existsSync(join(root, 'packages/harness/dist/cli/main.js'))) {
  console.error('build first: npx tsc -b packages/models packages/harness');
  process.exit(2);
}
if (!existsSync('/usr/bin/time')) {
  console.error('needs GNU time (/usr/bin/time) for the coordinator CPU and peak RSS: apt-get install time');
  process.exit(2);
}

if (
  !process.env.HARNESS_BENCH_REDIS_URL &&
  !process.env.HARNESS_TEST_REDIS_URL &&
  spawnSync('redis-server', ['--version']).status !== 0
) {
  console.error('needs Redis: install redis-server, or set HARNESS_BENCH_REDIS_URL=redis://host:port');
  process.exit(2);
}

const started: ChildProcess[] = [];
const stopAll = () => {
  for (const c of started) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
};
process.on('exit', stopAll);

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

/** Wait until `child` prints a line matching `pattern` on `stream`; resolves with the match. */
function waitForLine(child: ChildProcess, stream: 'stdout' | 'stderr', pattern: RegExp): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let text = '';
    child[stream]?.on('data', (c: Buffer) => {
      text += c.toString();
      const m = pattern.exec(text);
      if (m) resolve(m);
    });
    child.once('exit', (code) => reject(new Error(`process exited with ${code} before printing ${pattern}: ${text}`)));
  });
}

async function redisUrl(): Promise<string> {
  const given = process.env.HARNESS_BENCH_REDIS_URL ?? process.env.HARNESS_TEST_REDIS_URL;
  if (given) return given;
  const port = await freePort();
  const child = spawn(
    'redis-server',
    ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no'],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  started.push(child);
  redisChild = child;
  await waitForLine(child, 'stdout', /Ready to accept connections/);
  return `redis://127.0.0.1:${port}`;
}

async function startAgent(): Promise<string> {
  const child = spawn(
    process.execPath,
    [join(root, 'examples/http-agent/server.mjs'), '--port', '0', '--latency', String(LATENCY_MS)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  started.push(child);
  agentChild = child;
  return itemAt(await waitForLine(child, 'stdout', /listening on (\S+)/), 1);
}

async function startWorkers(url: string, count: number): Promise<ChildProcess[]> {
  const workers = Array.from({ length: count }, () => {
    const child = spawn(process.execPath, [bin, 'worker', '--queue', url, '--concurrency', String(CONCURRENCY)], {
      cwd: out,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    started.push(child);
    return child;
  });
  await Promise.all(workers.map((w) => waitForLine(w, 'stderr', /waiting for runs/)));
  return workers;
}

async function stopWorkers(workers: ChildProcess[]): Promise<void> {
  await Promise.all(
    workers.map(
      (w) =>
        new Promise<void>((resolve) => {
          if (w.exitCode !== null) return resolve();
          w.once('exit', () => resolve());
          w.kill('SIGTERM');
        }),
    ),
  );
}

interface Figures {
  wall: number;
  cpu: number;
  rssMb: number;
  /** First result started to last result finished, from the run's own timestamps. */
  processing: number;
  /** CPU seconds of every process taking part: coordinator, workers, agent, Redis (when started here). */
  allCpu: number;
  /** CPU seconds by role over the coordinator's run: workers (summed), agent, Redis. */
  workersCpu: number;
  agentCpu: number;
  redisCpu: number;
  /** Process start to the run's start (header), run start to the first result, last result to exit. */
  startup: number;
  firstResult: number;
  tail: number;
}

/** Run the CLI under GNU time: wall clock around spawn-to-exit, user+sys CPU and peak RSS. */
function timed(args: string[], runDir: string): Figures {
  const t0 = performance.now();
  const epoch0 = Date.now();
  const r = spawnSync('/usr/bin/time', ['-f', 'TIME %U %S %M', process.execPath, bin, ...args, '--out', runDir], {
    cwd: out,
    encoding: 'utf8',
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, CI: '1' },
  });
  const wall = (performance.now() - t0) / 1000;
  const epoch1 = Date.now();
  const m = /TIME ([\d.]+) ([\d.]+) (\d+)/.exec(r.stderr ?? '');
  if (!m) throw new Error(`no timing in: ${r.stderr}`);
  if (r.status !== 0) throw new Error(`harness exited with ${r.status}: ${r.stderr}`);
  const experiment = JSON.parse(readFileSync(join(runDir, 'experiment.json'), 'utf8')) as {
    started_at: string;
    results: { started_at: string; finished_at: string }[];
  };
  if (experiment.results.length !== N) throw new Error(`expected ${N} results, got ${experiment.results.length}`);
  const first = Math.min(...experiment.results.map((x) => Date.parse(x.started_at)));
  const last = Math.max(...experiment.results.map((x) => Date.parse(x.finished_at)));
  const runStart = Date.parse(experiment.started_at);
  return {
    wall,
    cpu: Number(m[1]) + Number(m[2]),
    rssMb: Number(m[3]) / 1024,
    processing: (last - first) / 1000,
    startup: (runStart - epoch0) / 1000,
    firstResult: (first - runStart) / 1000,
    tail: (epoch1 - last) / 1000,
    allCpu: 0,
    workersCpu: 0,
    agentCpu: 0,
    redisCpu: 0,
  };
}

const s = (x: number) => `${x.toFixed(2)} s`;

/** CPU seconds (user + system) a process has used so far, from /proc (Linux). */
function cpuSeconds(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    const fields = itemAt(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') '), 1).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return 0;
  }
}

let redisChild: ChildProcess | undefined;
let agentChild: ChildProcess | undefined;

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const cases = Array.from({ length: N }, (_, i) =>
  JSON.stringify({ id: `c${i}`, input: `What is ${i} + 1?`, expected: `${i + 1}` }),
);
writeFileSync(join(out, 'cases.jsonl'), `${cases.join('\n')}\n`);

try {
  console.log(
    `machine: ${cpus().length} CPUs, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' / ')} (coordinator, workers, agent and Redis share these cores)`,
  );
  const [url, agentUrl] = await Promise.all([redisUrl(), startAgent()]);
  writeFileSync(
    join(out, 'suite.yaml'),
    [
      'version: "1.0"',
      'name: distributed-bench',
      'agent:',
      '  adapter: http',
      '  options:',
      `    url: ${agentUrl}/ask`,
      '    body: { question: "{{input}}" }',
      '    response: { output: $.answer }',
      'evaluators: [contains]',
      'metrics: [success_rate, latency]',
      'tests: file://cases.jsonl',
    ].join('\n'),
  );
  const ideal = (workers: number) => (Math.ceil(N / (workers * CONCURRENCY)) * LATENCY_MS) / 1000;

  const local = timed(
    ['run', 'suite.yaml', '--concurrency', String(CONCURRENCY), '--format', 'json', '--no-index'],
    join(out, 'local'),
  );
  console.log(
    `baseline local run (no queue), ${N} cases, c${CONCURRENCY}: wall ${s(local.wall)}, processing ${s(local.processing)} (ideal ${s(ideal(1))}), peak RSS ${local.rssMb.toFixed(0)} MB`,
  );

  const scenario = async (workerCount: number): Promise<Figures> => {
    const workers = await startWorkers(url, workerCount);
    const roles = () => ({
      workers: workers.reduce((n, w) => n + cpuSeconds(w.pid), 0),
      agent: cpuSeconds(agentChild?.pid),
      redis: cpuSeconds(redisChild?.pid),
    });
    try {
      const before = roles();
      const f = timed(
        ['run', 'suite.yaml', '--queue', url, '--format', 'json', '--no-index'],
        join(out, `queue-${workerCount}w-${Math.random().toString(36).slice(2, 8)}`),
      );
      const after = roles();
      f.workersCpu = after.workers - before.workers;
      f.agentCpu = after.agent - before.agent;
      f.redisCpu = after.redis - before.redis;
      f.allCpu = f.cpu + f.workersCpu + f.agentCpu + f.redisCpu;
      return f;
    } finally {
      await stopWorkers(workers);
    }
  };
  // Alternate the two set-ups and keep each one's median run, so background load affects both alike.
  const reps = Number(process.env.BENCH_REPS ?? 3);
  const ones: Figures[] = [];
  const fours: Figures[] = [];
  for (let i = 0; i < reps; i++) {
    ones.push(await scenario(1));
    fours.push(await scenario(4));
  }
  const median = (xs: Figures[]) =>
    itemAt(
      [...xs].sort((a, b) => a.wall - b.wall),
      Math.floor(xs.length / 2),
    );
  const one = median(ones);
  const four = median(fours);
  console.log(
    `runs (wall): 1 worker ${ones.map((f) => s(f.wall)).join(', ')}; 4 workers ${fours.map((f) => s(f.wall)).join(', ')} (medians below)`,
  );
  for (const [label, f, w] of [
    ['1 worker x c16 ', one, 1],
    ['4 workers x c16', four, 4],
  ] as const) {
    console.log(
      `queue, ${label}: wall ${s(f.wall)}, processing ${s(f.processing)} (ideal ${s(ideal(w))}), ${(N / f.processing).toFixed(0)} cases/s; coordinator peak RSS ${f.rssMb.toFixed(0)} MB, CPU ${((f.cpu / N) * 1000).toFixed(3)} ms/case`,
    );
    console.log(
      `  CPU of all processes (coordinator, workers, agent${redisChild ? ', Redis' : ''}): ${s(f.allCpu)} = ${(f.allCpu / f.wall).toFixed(2)} cores busy on average over the wall time (${cpus().length} cores here)`,
    );
    const perCase = (x: number) => `${((x / N) * 1000).toFixed(3)} ms`;
    console.log(
      `  CPU per case: coordinator ${perCase(f.cpu)}, workers ${perCase(f.workersCpu)}, agent ${perCase(f.agentCpu)}${redisChild ? `, Redis ${perCase(f.redisCpu)}` : ''}; all ${perCase(f.allCpu)}`,
    );
    console.log(
      `  phases: coordinator start-up ${s(f.startup)}, run start to first result ${s(f.firstResult)} (workers join), processing ${s(f.processing)}, last result to exit ${s(f.tail)}`,
    );
  }
  // A CPU estimate: with every process on these cores, cases/s cannot exceed cores / (CPU per case spent while
  // processing). The CPU measured here also covers start-up, joining and exit, so this estimate is pessimistic
  // (a lower bound on what the CPU allows would need the processing-phase CPU alone).
  const cpuPerCase = four.allCpu / N;
  const cpuRate = cpus().length / cpuPerCase;
  const latencyBoundRate = (4 * CONCURRENCY) / (LATENCY_MS / 1000);
  const estProcessing = N / Math.min(cpuRate, latencyBoundRate);
  const fixed = four.startup + four.firstResult + four.tail;
  console.log(
    `CPU estimate here: ${(cpuPerCase * 1000).toFixed(2)} ms CPU per case over all processes (start-up and join included) -> about ${cpuRate.toFixed(0)} cases/s on ${cpus().length} cores, vs the latency bound of ${latencyBoundRate.toFixed(0)}/s; with ${s(fixed)} of fixed phases that suggests ~${(one.wall / (estProcessing + fixed)).toFixed(2)}x end to end (pessimistic: not all that CPU falls in the processing phase)`,
  );
  const speedup = one.wall / four.wall;
  const processingSpeedup = one.processing / four.processing;
  console.log(`queue overhead vs local at 1 x c16: wall ${(one.wall / local.wall).toFixed(2)}x`);
  console.log(
    `speed-up 4 workers vs 1: ${speedup.toFixed(2)}x end to end (process start to exit), ${processingSpeedup.toFixed(2)}x while processing; target >= ${TARGET_SPEEDUP}x: ${speedup >= TARGET_SPEEDUP ? 'OK' : 'MISSED'} end to end, ${processingSpeedup >= TARGET_SPEEDUP ? 'OK' : 'MISSED'} processing`,
  );
  console.log(`coordinator peak RSS: ${Math.max(one.rssMb, four.rssMb).toFixed(0)} MB`);
} finally {
  stopAll();
  rmSync(out, { recursive: true, force: true });
}
