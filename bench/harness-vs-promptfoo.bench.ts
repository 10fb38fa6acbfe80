/**
 * `harness run` against promptfoo on the same suite (issue 22 target: harness >= 4x faster in wall time than
 * promptfoo 0.121, the newest promptfoo for Node 20). Optional: runs only when PROMPTFOO_BIN names promptfoo's CLI
 * entry, else prints one line and exits 0, so `npm run bench` passes without it. Never part of CI.
 *
 *   mkdir -p /tmp/promptfoo-0.121 && cd /tmp/promptfoo-0.121 && npm init -y && npm install --save-exact promptfoo@0.121.20
 *   PROMPTFOO_BIN=/tmp/promptfoo-0.121/node_modules/promptfoo/dist/src/entrypoint.js npm run bench -- vs-promptfoo
 *
 * The suite, for both tools: 1,000 cases (BENCH_CASES) against the loopback example agent
 * (examples/http-agent/server.mjs) answering after 20 ms, concurrency 16, POST { question } and the answer read from
 * $.answer, one `contains` check of the expected sum per case. Each tool is a fresh process from spawn to exit, with
 * its default console output (piped, as in CI) and its results persisted: the harness's run folder (journal,
 * experiment.json, report.json) and run index, promptfoo's database and a JSON results file. promptfoo runs without
 * cache, sharing, telemetry or update check, with its state folder (PROMPTFOO_CONFIG_DIR) in a temp folder.
 * Every run is checked: exit 0, every case present once, every case passed, and every answer fetched from the agent
 * (latency at least the agent's), so both tools did the same work; otherwise the bench stops with exit 1.
 * One warm-up each, then BENCH_ROUNDS (default 5, at least 3) rounds alternating the order; medians per figure.
 * Same-run baseline: a bare keep-alive client sending the same requests (bench/support/http-client-floor.mjs).
 * Build first: npx tsc -b packages/models packages/harness && node scripts/build-bundles.mjs
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { itemAt } from '../packages/harness/src/core/item-at.js';
import { startLoopbackHttpAgent } from './support/loopback-http-agent.js';
import {
  hasGnuTime,
  medianFigures,
  type ProcessFigures,
  type TimedProcess,
  timedProcess,
} from './support/timed-process.js';

const root = join(import.meta.dirname, '..');
const harnessBin = join(root, 'packages/harness/bin/harness.js');
const floorScript = join(root, 'bench/support/http-client-floor.mjs');
const N = Number(process.env.BENCH_CASES ?? 1000);
const ROUNDS = Math.max(3, Number(process.env.BENCH_ROUNDS ?? 5));
const CONCURRENCY = 16;
const LATENCY_MS = 20;
const TARGET_WALL_RATIO = 4;

const promptfooBin = process.env.PROMPTFOO_BIN;
if (!promptfooBin) {
  console.log(
    'skipped: promptfoo comparison needs PROMPTFOO_BIN=<promptfoo CLI entry> (see this file for the install)',
  );
  process.exit(0);
}
if (!existsSync(promptfooBin)) {
  console.error(`PROMPTFOO_BIN=${promptfooBin} does not exist`);
  process.exit(2);
}
if (!existsSync(join(root, 'packages/harness/dist/cli/main.js'))) {
  console.error('build first: npx tsc -b packages/models packages/harness && node scripts/build-bundles.mjs');
  process.exit(2);
}
if (!hasGnuTime()) {
  console.error('needs GNU time (/usr/bin/time) for CPU and peak RSS: apt-get install time');
  process.exit(2);
}

const work = mkdtempSync(join(tmpdir(), 'harness-vs-promptfoo-'));
const cases = Array.from({ length: N }, (_, i) => ({ id: `c${i}`, input: `What is ${i} + 1?`, expected: `${i + 1}` }));
const caseIds = new Set(cases.map((c) => c.id));

/** A run that did less than the whole suite, or judged differently, would make the comparison meaningless. */
class UnequalWork extends Error {}

function expectEveryCaseOnce(tool: string, ids: string[]): void {
  const seen = new Set(ids);
  const missing = [...caseIds].filter((id) => !seen.has(id));
  if (ids.length !== N || seen.size !== N || missing.length > 0) {
    throw new UnequalWork(
      `${tool} reported ${ids.length} results for ${seen.size} distinct cases, expected ${N}` +
        (missing.length > 0 ? ` (missing ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ', ...' : ''})` : ''),
    );
  }
}

/** The end of what a process printed, for an error that says why it failed. */
const tail = (r: TimedProcess) => `${r.stdout.slice(-1500)}${r.stderr.slice(-1500)}`.trim();

/** Answers faster than the agent's latency came from somewhere else (a cache), not from the agent. */
const fromAgent = (latencyMs: number) => latencyMs >= LATENCY_MS - 2;

interface Outcome extends ProcessFigures {
  passed: number;
}

/** Every case of this suite passes when the agent answers; a failed one means the tool judged something else. */
function expectAllPassed(tool: string, passed: number): void {
  if (passed !== N)
    throw new UnequalWork(`${tool}: ${passed} of ${N} cases passed; every case of this suite should pass`);
}

// --- harness -------------------------------------------------------------------------------------------------------

const harnessSuite = join(work, 'harness-suite.yaml');
writeFileSync(join(work, 'cases.jsonl'), `${cases.map((c) => JSON.stringify(c)).join('\n')}\n`);
const harnessRunsDir = join(work, 'harness-runs');

interface HarnessReport {
  state: string;
  metadata: { run_options?: { concurrency?: number } };
  results: { test_id: string; status: string; output: { latency: number | null } }[];
}

function runHarness(tag: string): Outcome {
  const out = join(work, `harness-${tag}`);
  const r = timedProcess(
    process.execPath,
    [
      harnessBin,
      'run',
      harnessSuite,
      '--concurrency',
      String(CONCURRENCY),
      '--out',
      out,
      '--runs-dir',
      harnessRunsDir,
      '--format',
      'console,json',
    ],
    { cwd: work, env: { ...process.env, CI: '1' } },
  );
  if (r.status !== 0) throw new UnequalWork(`harness exited with ${r.status}:\n${tail(r)}`);
  const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as HarnessReport;
  if (report.state !== 'completed') throw new UnequalWork(`harness run state ${report.state}, expected completed`);
  const concurrency = report.metadata.run_options?.concurrency;
  if (concurrency !== CONCURRENCY) throw new UnequalWork(`harness ran at concurrency ${concurrency}`);
  expectEveryCaseOnce(
    'harness',
    report.results.map((x) => x.test_id),
  );
  const cached = report.results.filter((x) => !fromAgent((x.output.latency ?? 0) * 1000));
  if (cached.length > 0) throw new UnequalWork(`harness: ${cached.length} answers were not fetched from the agent`);
  const passed = report.results.filter((x) => x.status === 'passed').length;
  expectAllPassed('harness', passed);
  rmSync(out, { recursive: true, force: true });
  return { ...r, passed };
}

// --- promptfoo -----------------------------------------------------------------------------------------------------

const promptfooConfig = join(work, 'promptfoo-bench.json');
const promptfooState = join(work, 'promptfoo-state');
mkdirSync(promptfooState);
// Everything promptfoo keeps (database, logs, cache) stays in the temp folder; nothing leaves the machine.
const promptfooEnv: NodeJS.ProcessEnv = {
  ...process.env,
  CI: '1',
  PROMPTFOO_CONFIG_DIR: promptfooState,
  PROMPTFOO_CACHE_PATH: join(promptfooState, 'cache'),
  PROMPTFOO_CACHE_ENABLED: 'false',
  PROMPTFOO_DISABLE_TELEMETRY: '1',
  PROMPTFOO_DISABLE_UPDATE: '1',
  PROMPTFOO_DISABLE_SHARING: '1',
  PROMPTFOO_DISABLE_REMOTE_GENERATION: '1',
};

interface PromptfooOutput {
  results: {
    stats: { successes: number; failures: number; errors: number };
    results: {
      success: boolean;
      latencyMs: number;
      testCase: { description?: string };
      response?: { cached?: boolean };
    }[];
  };
}

function runPromptfoo(tag: string): Outcome {
  const out = join(work, `promptfoo-${tag}.json`);
  const r = timedProcess(
    process.execPath,
    [
      promptfooBin as string,
      'eval',
      '-c',
      promptfooConfig,
      '-j',
      String(CONCURRENCY),
      '--no-cache',
      '--no-share',
      '--no-progress-bar',
      '-o',
      out,
    ],
    { cwd: work, env: promptfooEnv },
  );
  if (r.status !== 0) throw new UnequalWork(`promptfoo exited with ${r.status}:\n${tail(r)}`);
  // Its summary says the concurrency it used (a config it did not take would fall back to its default of 4).
  const concurrency = /\(concurrency: (\d+)\)/.exec(r.stdout)?.[1];
  if (concurrency !== String(CONCURRENCY)) throw new UnequalWork(`promptfoo ran at concurrency ${concurrency}`);
  const { results } = JSON.parse(readFileSync(out, 'utf8')) as Partial<PromptfooOutput>;
  if (!results || !Array.isArray(results.results)) throw new UnequalWork(`promptfoo wrote no results to ${out}`);
  expectEveryCaseOnce(
    'promptfoo',
    results.results.map((x) => x.testCase.description ?? '?'),
  );
  const cached = results.results.filter((x) => x.response?.cached === true || !fromAgent(x.latencyMs));
  if (cached.length > 0) throw new UnequalWork(`promptfoo: ${cached.length} answers were not fetched from the agent`);
  const passed = results.results.filter((x) => x.success).length;
  expectAllPassed('promptfoo', passed);
  if (passed !== results.stats.successes) {
    throw new UnequalWork(`promptfoo: ${passed} successful results but its stats say ${results.stats.successes}`);
  }
  rmSync(out, { force: true });
  return { ...r, passed };
}

// --- the bare client -----------------------------------------------------------------------------------------------

function runFloor(url: string): Outcome {
  const r = timedProcess(process.execPath, [floorScript, `${url}/ask`, String(N), String(CONCURRENCY)], {
    cwd: work,
    env: process.env,
  });
  if (r.status !== 0) throw new Error(`bare client exited with ${r.status}:\n${tail(r)}`);
  // It throws on any non-200 answer, so a clean exit means all N requests were answered.
  return { ...r, passed: N };
}

// --- versions and the machine --------------------------------------------------------------------------------------

const firstLine = (cmd: string, args: string[], cwd = root, env = process.env) =>
  (spawnSync(cmd, args, { cwd, env, encoding: 'utf8' }).stdout ?? '').trim().split('\n')[0] ?? '';
const promptfooVersion = /^\d+\.\d+\.\d+/.exec(
  firstLine(process.execPath, [promptfooBin, '--version'], work, promptfooEnv),
)?.[0];
const harnessVersion = firstLine(process.execPath, [harnessBin, '--version']);
const commit = firstLine('git', ['rev-parse', '--short', 'HEAD']) || '(not a git checkout)';
const dirty = firstLine('git', ['status', '--porcelain', '--', 'packages']) !== '';
// bin/harness.js prefers the esbuild bundle while it is newer than the tsc builds; measure what users get.
const mtime = (p: string) => statSync(join(root, p), { throwIfNoEntry: false })?.mtimeMs ?? Number.NaN;
const bundled =
  mtime('packages/harness/dist/bundle/cli.js') >=
  Math.max(mtime('packages/harness/dist/.tsbuildinfo'), mtime('packages/models/dist/.tsbuildinfo'));
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' / ');

console.log(
  `machine: ${cpus().length} CPUs, node ${process.version}, load average ${load()} (wall stretches when other work competes for the cores; CPU much less)`,
);
console.log(
  `harness ${harnessVersion} at ${commit}${dirty ? ' + uncommitted changes under packages/' : ''}, ${bundled ? 'bundled CLI' : 'tsc output (bundle stale or absent: node scripts/build-bundles.mjs)'}; promptfoo ${promptfooVersion ?? '(version not printed)'}`,
);
if (!promptfooVersion?.startsWith('0.121.'))
  console.log('  note: the issue 22 target is stated against promptfoo 0.121');
console.log(
  `suite: ${N} cases, loopback agent answering after ${LATENCY_MS} ms, concurrency ${CONCURRENCY}, one contains check each; warm-up once each, then ${ROUNDS} rounds in alternating order`,
);

const agent = await startLoopbackHttpAgent(LATENCY_MS);
try {
  writeFileSync(
    harnessSuite,
    [
      'version: "1.0"',
      'name: harness-vs-promptfoo',
      'agent:',
      '  adapter: http',
      '  options:',
      `    url: ${agent.url}/ask`,
      '    body: { question: "{{input}}" }',
      '    response: { output: $.answer }',
      'evaluators: [contains]',
      'metrics: [success_rate, latency]',
      'tests: file://cases.jsonl',
      '',
    ].join('\n'),
  );
  writeFileSync(
    promptfooConfig,
    JSON.stringify({
      description: 'harness-vs-promptfoo',
      prompts: ['{{question}}'],
      providers: [
        {
          id: 'http',
          config: {
            url: `${agent.url}/ask`,
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: { question: '{{prompt}}' },
            transformResponse: 'json.answer',
          },
        },
      ],
      tests: cases.map((c) => ({
        description: c.id,
        vars: { question: c.input },
        assert: [{ type: 'contains', value: c.expected }],
      })),
      evaluateOptions: { maxConcurrency: CONCURRENCY, cache: false, showProgressBar: false },
      sharing: false,
    }),
  );

  const tools = [
    { name: 'harness', run: runHarness },
    { name: 'promptfoo', run: runPromptfoo },
    { name: 'bare client', run: () => runFloor(agent.url) },
  ] as const;
  const samples = new Map<string, Outcome[]>(tools.map((t) => [t.name, []]));
  const describe = (o: Outcome) =>
    `wall ${o.wall.toFixed(2)} s, CPU ${o.cpu.toFixed(2)} s, peak RSS ${o.rssMb.toFixed(0)} MiB, ${o.passed}/${N} passed`;

  for (const tool of tools) console.log(`warm-up ${tool.name}: ${describe(tool.run('warm'))}`);
  const wallRatios: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const order = tools.map((_, i) => itemAt(tools, (i + round) % tools.length));
    const got = new Map<string, Outcome>();
    for (const tool of order) {
      const o = tool.run(`r${round}`);
      got.set(tool.name, o);
      samples.get(tool.name)?.push(o);
      console.log(`round ${round + 1} ${tool.name}: ${describe(o)}`);
    }
    const h = got.get('harness');
    const p = got.get('promptfoo');
    if (!h || !p) throw new Error('a round is missing a tool');
    // Equal work: both ran every case (checked per run above) and reached the same verdicts.
    if (h.passed !== p.passed || h.passed !== N) {
      throw new UnequalWork(`pass counts differ: harness ${h.passed}, promptfoo ${p.passed}, suite ${N}`);
    }
    wallRatios.push(p.wall / h.wall);
  }

  const median = (name: string) => medianFigures(samples.get(name) ?? []);
  const h = median('harness');
  const p = median('promptfoo');
  const f = median('bare client');
  const line = (name: string, m: ProcessFigures) =>
    `${name.padEnd(12)} wall ${m.wall.toFixed(2)} s, CPU ${m.cpu.toFixed(2)} s (${((m.cpu / N) * 1000).toFixed(2)} ms/case), peak RSS ${m.rssMb.toFixed(0)} MiB`;
  console.log(`\nmedians of ${ROUNDS} rounds, load average now ${load()}:`);
  console.log(line('harness', h));
  console.log(line('promptfoo', p));
  console.log(line('bare client', f));
  const sortedRatios = [...wallRatios].sort((a, b) => a - b);
  console.log(
    `promptfoo/harness: wall ${(p.wall / h.wall).toFixed(2)}x (per round ${itemAt(sortedRatios, 0).toFixed(2)}x..${itemAt(sortedRatios, sortedRatios.length - 1).toFixed(2)}x), CPU ${(p.cpu / h.cpu).toFixed(2)}x, peak RSS ${(p.rssMb / h.rssMb).toFixed(2)}x`,
  );
  console.log(
    `over the bare client: harness wall ${(h.wall / f.wall).toFixed(2)}x, CPU ${(h.cpu / f.cpu).toFixed(2)}x; promptfoo wall ${(p.wall / f.wall).toFixed(2)}x, CPU ${(p.cpu / f.cpu).toFixed(2)}x`,
  );
  console.log(
    `target harness >= ${TARGET_WALL_RATIO}x faster than promptfoo (wall): ${p.wall / h.wall >= TARGET_WALL_RATIO ? 'OK' : 'MISSED'}`,
  );
  rmSync(work, { recursive: true, force: true });
} catch (err) {
  console.error(`${err instanceof UnequalWork ? 'UNEQUAL WORK, no comparison: ' : ''}${(err as Error).message}`);
  console.error(`files kept for inspection in ${work}`);
  process.exitCode = 1;
} finally {
  agent.stop();
}
