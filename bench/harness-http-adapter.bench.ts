/**
 * The http adapter end to end: `harness run` (the built CLI, a fresh process) with 1,000 cases against a loopback
 * HTTP agent (examples/http-agent/server.mjs) that answers after a fixed latency.
 * Targets at 20 ms latency and concurrency 16: wall time, process start to exit, <= 2.5 s (ideal 1.25 s);
 * peak RSS <= 150 MB; harness CPU (user+sys) per case <= 0.5 ms. Also reported: concurrency 64, 100 ms latency.
 * Same-run baselines: the same suite with the in-process echo adapter (harness without HTTP) and `harness --version`.
 * Each run adds itself to a run index in bench/out (fresh per invocation, like a CI checkout's).
 * Run `npx tsc -b packages/models packages/harness` first.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { itemAt } from '../packages/harness/src/core/item-at.js';
import { startLoopbackHttpAgent } from './support/loopback-http-agent.js';

const root = join(import.meta.dirname, '..');
const bin = join(root, 'packages/harness/bin/harness.js');
const out = join(root, 'bench/out/http-adapter');
const N = Number(process.env.BENCH_CASES ?? 1000);

if (!existsSync(join(root, 'packages/harness/dist/cli/main.js'))) {
  console.error('build first: npx tsc -b packages/models packages/harness');
  process.exit(2);
}
if (!existsSync('/usr/bin/time')) {
  console.error('needs GNU time (/usr/bin/time) for CPU and peak RSS: apt-get install time');
  process.exit(2);
}

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const cases = Array.from({ length: N }, (_, i) =>
  JSON.stringify({ id: `c${i}`, input: `What is ${i} + 1?`, expected: `${i + 1}` }),
);
writeFileSync(join(out, 'cases.jsonl'), `${cases.join('\n')}\n`);
writeFileSync(join(out, 'one-case.jsonl'), `${cases[0]}\n`);

function writeSuite(name: string, agent: string, file = 'cases.jsonl'): string {
  const path = join(out, `${name}.yaml`);
  writeFileSync(
    path,
    `version: "1.0"\nname: ${name}\n${agent}\nevaluators: [contains]\nmetrics: [success_rate, latency]\ntests: file://${file}\n`,
  );
  return path;
}

interface Figures {
  wall: number;
  cpu: number;
  rssMb: number;
}

/** Run the CLI under GNU time: wall clock (our own clock around spawn-to-exit), user+sys CPU and peak RSS. */
function timed(args: string[], script = bin): Figures {
  const t0 = performance.now();
  const r = spawnSync('/usr/bin/time', ['-f', 'TIME %U %S %M', process.execPath, script, ...args], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, CI: '1' },
  });
  const wall = (performance.now() - t0) / 1000;
  const m = /TIME ([\d.]+) ([\d.]+) (\d+)/.exec(r.stderr ?? '');
  if (!m) throw new Error(`no timing in: ${r.stderr}`);
  if (r.status !== 0) throw new Error(`harness exited with ${r.status}: ${r.stderr}`);
  return { wall, cpu: Number(m[1]) + Number(m[2]), rssMb: Number(m[3]) / 1024 };
}

function run(suite: string, concurrency: number, tag: string): Figures {
  return timed([
    'run',
    suite,
    '--concurrency',
    String(concurrency),
    '--out',
    join(out, `run-${tag}-${Math.random().toString(36).slice(2, 8)}`),
    // The run index of this bench's own runs (fresh each invocation, as in a CI checkout), not the repository's
    // runs/index.sqlite, which grows with every run on the machine and made figures drift between invocations.
    '--runs-dir',
    out,
    '--format',
    'console,json',
  ]);
}

const medianOf = (xs: Figures[]): Figures => {
  const sorted = [...xs].sort((a, b) => a.wall - b.wall);
  return itemAt(sorted, Math.floor(sorted.length / 2));
};
const ms = (s: number) => `${(s * 1000).toFixed(0)} ms`;
const verdict = (ok: boolean) => (ok ? 'OK' : 'MISSED');

console.log(
  `machine: ${cpus().length} CPUs, load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' / ')} (wall times stretch when other work competes for the cores; CPU figures much less)`,
);

// Baselines: process start of the CLI, and the same 1,000 cases through the in-process echo agent.
const version = medianOf([0, 1, 2].map(() => timed(['--version'])));
const echoSuite = writeSuite('echo-baseline', 'agent: { adapter: echo }');
const echo = medianOf([0, 1, 2].map((i) => run(echoSuite, 16, `echo${i}`)));
console.log(`baseline harness --version: ${ms(version.wall)}, ${version.rssMb.toFixed(0)} MB`);
console.log(
  `baseline echo adapter, ${N} cases, c16: ${ms(echo.wall)} wall, ${((echo.cpu / N) * 1000).toFixed(3)} ms CPU/case, ${echo.rssMb.toFixed(0)} MB`,
);

for (const latency of [20, 100]) {
  const agent = await startLoopbackHttpAgent(latency);
  try {
    const httpAgent = `agent:\n  adapter: http\n  options:\n    url: ${agent.url}/ask\n    body: { question: "{{input}}" }\n    response: { output: $.answer, tool_calls: "$.steps[*]", usage: $.usage }`;
    const suite = writeSuite(`http-${latency}ms`, httpAgent);
    const mockSuite = writeSuite(
      `mock-${latency}ms`,
      `agent:\n  adapter: mock\n  options: { responses: [{ contains: "What", output: "The answer is 1.", delay_ms: ${latency} }] }`,
    );
    run(suite, 16, 'warm'); // warm the agent's JIT and the file cache
    // The client floor: a bare process sending the same requests with the same undici modules, nothing else.
    const floorScript = join(root, 'bench/support/http-client-floor.mjs');
    const clientFloor = (concurrency: number) =>
      medianOf([0, 1, 2].map(() => timed([`${agent.url}/ask`, String(N), String(concurrency)], floorScript)));
    // Fixed cost of a run (start-up, module loading, reports) from a 1-case run of the same suite, so the
    // marginal CPU per case can be separated from it.
    const single = medianOf(
      [0, 1, 2].map((i) => run(writeSuite(`http-one-${latency}ms`, httpAgent, 'one-case.jsonl'), 16, `one${i}`)),
    );
    for (const concurrency of [16, 64]) {
      const ideal = (Math.ceil(N / concurrency) * latency) / 1000;
      const reps = latency === 20 && concurrency === 16 ? 3 : 1;
      const f = medianOf(
        Array.from({ length: reps }, (_, i) => run(suite, concurrency, `${latency}-${concurrency}-${i}`)),
      );
      // Same-run baselines: the in-process mock agent answering after the same delay (the harness without HTTP),
      // and a bare undici client sending the same requests (HTTP without the harness).
      const mock = run(mockSuite, concurrency, `mock-${latency}-${concurrency}`);
      const floor = clientFloor(concurrency);
      const cpuPerCase = (f.cpu / N) * 1000;
      const marginal = ((f.cpu - single.cpu) / (N - 1)) * 1000;
      console.log(
        `http ${N} cases, ${latency} ms agent, c${concurrency}: wall ${ms(f.wall)} (ideal ${ms(ideal)}, ${(f.wall / ideal).toFixed(2)}x), peak RSS ${f.rssMb.toFixed(0)} MB, CPU ${cpuPerCase.toFixed(3)} ms/case all-in, ${marginal.toFixed(3)} ms/case marginal (1-case run ${ms(single.cpu)} CPU)`,
      );
      console.log(
        `  vs mock agent with the same ${latency} ms delay: wall ${ms(mock.wall)} (http/mock ${(f.wall / mock.wall).toFixed(2)}x), CPU ${((mock.cpu / N) * 1000).toFixed(3)} ms/case (http adds ${(((f.cpu - mock.cpu) / N) * 1000).toFixed(3)} ms/case)`,
      );
      console.log(
        `  vs bare undici client, same requests: wall ${ms(floor.wall)} (harness/bare ${(f.wall / floor.wall).toFixed(2)}x), CPU ${((floor.cpu / N) * 1000).toFixed(3)} ms/case all-in (harness/bare ${(f.cpu / floor.cpu).toFixed(2)}x), peak RSS ${floor.rssMb.toFixed(0)} MB`,
      );
      if (latency === 20 && concurrency === 16) {
        console.log(`  target wall <= 2500 ms (ideal 1250 ms): ${verdict(f.wall <= 2.5)}`);
        console.log(`  target peak RSS <= 150 MB: ${verdict(f.rssMb <= 150)}`);
        console.log(
          `  target CPU <= 0.5 ms/case: all-in ${verdict(cpuPerCase <= 0.5)}, marginal ${verdict(marginal <= 0.5)}`,
        );
      }
    }
  } finally {
    agent.stop();
  }
}
rmSync(out, { recursive: true, force: true });
