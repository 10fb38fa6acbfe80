import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** Processes, suites and journals for the distributed-run tests (real CLI processes of the built harness). */
export const root = resolve(__dirname, '../../../../..');
export const bin = join(root, 'packages/harness/bin/harness.js');
const slowAgent = join(root, 'packages/harness/test/fixtures/scale/slow-agent.mjs');

export type Proc = ChildProcess & { readonly errText: string };

/** Build the CLI once if a fresh checkout has no dist/ (spawned CLIs run the built output). */
export function ensureBuilt(): void {
  if (!existsSync(join(root, 'packages/harness/dist/cli/main.js'))) {
    spawnSync('npx', ['tsc', '-b', 'packages/models', 'packages/harness'], { cwd: root, stdio: 'inherit' });
  }
}

/**
 * A folder with `suite.yaml`: `cases` cases with repeats 1 or 2, answered by a deterministic slow agent
 * (latency derived from the input, so a queued run's metrics can equal a local run's).
 */
export function slowSuite(name: string, cases: number, delayMs: number): string {
  const d = mkdtempSync(join(tmpdir(), 'aeh-queue-'));
  const tests = Array.from(
    { length: cases },
    (_, i) => `  - { id: q${String(i).padStart(3, '0')}, input: 'ask ${i}', repeat: ${1 + (i % 2)} }`,
  );
  writeFileSync(
    join(d, 'suite.yaml'),
    [
      'version: "1.0"',
      `name: ${name}`,
      'agent:',
      '  adapter: module',
      '  options:',
      `    module: ${slowAgent}#SlowAgent`,
      `    options: { token: "t", delay_ms: ${delayMs} }`,
      'evaluators: [{ name: contains, options: { value: answer } }]',
      'metrics: [success_rate, accuracy, latency, p95_latency, pass_at_k, error_rate]',
      'thresholds: { success_rate: { minimum: 0.5 } }',
      'tests:',
      ...tests,
    ].join('\n'),
  );
  return d;
}

/** Case x repeat keys a suite made by `slowSuite` has. */
export function slowSuiteKeys(cases: number): string[] {
  return Array.from({ length: cases }, (_, i) =>
    Array.from({ length: 1 + (i % 2) }, (_, r) => `q${String(i).padStart(3, '0')}#${r}`),
  ).flat();
}

export function startHarness(
  children: ChildProcess[],
  args: string[],
  cwd: string,
  env: Record<string, string | undefined> = {},
): Proc {
  const child = spawn(process.execPath, [bin, ...args], {
    cwd,
    env: { ...process.env, NO_COLOR: '1', CI: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr?.on('data', (b) => {
    err += b;
  });
  Object.defineProperty(child, 'errText', { get: () => err });
  children.push(child);
  return child as Proc;
}

/** Resolves on 'close' (exited and stderr read to the end) with the exit code; rejects after `ms`. */
export function exited(child: ChildProcess, ms = 90_000): Promise<number | null> {
  if (
    child.stdout?.closed !== false &&
    child.stderr?.closed !== false &&
    (child.exitCode !== null || child.signalCode !== null)
  )
    return Promise.resolve(child.exitCode);
  return new Promise((res, rej) => {
    const said = () => ('errText' in child ? `; it said:\n${String(child.errText).slice(-4000)}` : '');
    const t = setTimeout(() => rej(new Error(`process ${child.pid} did not exit within ${ms} ms${said()}`)), ms);
    child.once('close', (code) => {
      clearTimeout(t);
      res(code);
    });
  });
}

export interface JournalResult {
  test_id: string;
  repeat: number;
  status: string;
  metadata: Record<string, unknown>;
  [k: string]: unknown;
}

export function journalResults(dir: string): JournalResult[] {
  const file = join(dir, 'journal.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{"type":"result"'))
    .flatMap((l) => {
      try {
        return [JSON.parse(l).result as JournalResult];
      } catch {
        return []; // a line being written
      }
    });
}

export const keysOf = (results: JournalResult[]) => results.map((r) => `${r.test_id}#${r.repeat}`);

export async function waitFor(what: string, check: () => boolean, ms = 60_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export function experiment(dir: string) {
  return JSON.parse(readFileSync(join(dir, 'experiment.json'), 'utf8'));
}

/** What must match a local run: everything except timings and which worker ran it. */
export function comparable(results: JournalResult[]) {
  return results.map(({ duration: _d, started_at: _s, finished_at: _f, metadata: _m, ...rest }) => rest);
}

/** The same suite run locally, for comparison (run folder `local`). */
export function localRun(dir: string): { status: number | null; stderr: string } {
  const r = spawnSync(
    process.execPath,
    [bin, 'run', 'suite.yaml', '--out', 'local', '--format', 'json', '--no-index'],
    { cwd: dir, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', CI: '' } },
  );
  return { status: r.status, stderr: r.stderr };
}

/** Worker flags: short locks so work held by a worker that lost Redis comes back within seconds. */
export const workerArgs = (url: string, concurrency: number) => [
  'worker',
  '--queue',
  url,
  '--concurrency',
  String(concurrency),
  '--lock-duration',
  '3000',
  '--stalled-interval',
  '1000',
];
