import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './cli.js';

// `soclab serve` as a real process, for the tests that restart, crash or stop it: the built CLI when there is one
// (what users run), else the source through tsx.

/** The node arguments that run the soclab CLI. */
export const SOCLAB_CLI: readonly string[] = existsSync(join(REPO_ROOT, 'packages/soclab/dist/cli/main.js'))
  ? [join(REPO_ROOT, 'packages/soclab/bin/soclab.js')]
  : ['--import', 'tsx', join(REPO_ROOT, 'packages/soclab/src/cli/main.ts')];

/** A listening server process: its URL and everything it has written to stderr so far. */
export interface ServeProcess {
  proc: ChildProcess;
  base: string;
  stderr: () => string;
}

/**
 * `soclab serve --port 0 <args>` with this process's environment plus `env` (no colour); resolves with the URL it
 * prints as its first stdout line, and fails with its stderr when it exits first or is not listening within 60 s.
 */
export async function startServe(args: string[], env: NodeJS.ProcessEnv = {}): Promise<ServeProcess> {
  const proc = spawn(process.execPath, [...SOCLAB_CLI, 'serve', '--port', '0', ...args], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1', ...env },
  });
  let err = '';
  proc.stderr?.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const base = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`soclab serve did not start: ${err}`)), 60_000);
    proc.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const end = out.indexOf('\n');
      if (end >= 0) {
        clearTimeout(timer);
        resolve(out.slice(0, end).trim());
      }
    });
    proc.once('exit', (code) => reject(new Error(`soclab serve exited with ${code}: ${err}`)));
  });
  return { proc, base, stderr: () => err };
}

/** Send `signal` and wait for 'close' (all output read); at once when the process has already ended. */
export const stopProcess = (proc: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> =>
  new Promise((resolve) => {
    if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
    proc.once('close', () => resolve());
    proc.kill(signal);
  });
