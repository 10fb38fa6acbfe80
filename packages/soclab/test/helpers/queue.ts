import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT, SOCLAB_MAIN } from './cli.js';

// What the queued-campaign tests share: node processes (soclab from source, the harness bin) whose output they read,
// soclab workers on a Redis queue, a record of every command Redis receives, and the results of a run's journal.

/** A started process and everything it has printed so far (stderr, and stdout when asked for). */
export type SaidProcess = ChildProcess & { readonly said: string };

/**
 * `node <args>` from the repository root with a minimal environment (PATH, HOME, NO_COLOR plus `env`), added to
 * `children` so the test's afterAll can kill it.
 */
export function startNode(
  args: string[],
  env: Record<string, string>,
  children: ChildProcess[],
  opts: { readStdout?: boolean } = {},
): SaidProcess {
  const child = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NO_COLOR: '1', ...env },
    stdio: ['ignore', opts.readStdout ? 'pipe' : 'ignore', 'pipe'],
  });
  let said = '';
  const hear = (b: Buffer) => {
    said += b;
  };
  child.stderr?.on('data', hear);
  child.stdout?.on('data', hear);
  Object.defineProperty(child, 'said', { get: () => said });
  children.push(child);
  return child as SaidProcess;
}

/** `soclab <args>` from source (tsx). */
export function startSoclab(
  args: string[],
  env: Record<string, string>,
  children: ChildProcess[],
  opts: { readStdout?: boolean } = {},
): SaidProcess {
  return startNode(['--import', 'tsx', SOCLAB_MAIN, ...args], env, children, opts);
}

/** `soclab worker --queue <url> --concurrency 1 <args>`. */
export function startSoclabWorker(
  url: string,
  env: Record<string, string>,
  children: ChildProcess[],
  args: string[] = [],
  opts: { readStdout?: boolean } = {},
): SaidProcess {
  return startSoclab(['worker', '--queue', url, '--concurrency', '1', ...args], env, children, opts);
}

/** Every command sent to Redis while it runs (MONITOR), values included: what a worker or coordinator stored there. */
export async function monitorRedis(url: string): Promise<{ text: () => string; stop: () => void }> {
  const { Redis } = await import('ioredis');
  const client = new Redis(url);
  const monitor = await client.monitor();
  const lines: string[] = [];
  monitor.on('monitor', (_time: string, args: string[]) => lines.push(args.join(' ')));
  return {
    text: () => lines.join('\n'),
    stop: () => {
      monitor.disconnect();
      client.disconnect();
    },
  };
}

/** One case result of a harness run's journal, the fields these tests read. */
export interface JournalResult {
  test_id: string;
  repeat: number;
  status: string;
  metadata: Record<string, unknown>;
  output: { error: string | null };
}

/** The case results in a run folder's journal.jsonl, in the order they were written. */
export function journal(runDir: string): JournalResult[] {
  return readFileSync(join(runDir, 'journal.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{"type":"result"'))
    .map((l) => JSON.parse(l).result as JournalResult);
}
