import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '../../../..');
const bin = join(root, 'packages/harness/bin/harness.js');

/**
 * Run the built `harness` CLI without blocking this process (tests that serve a loopback judge in-process
 * must keep their event loop free). Killed after 90 s so a hang fails the test instead of stalling the suite.
 */
export function harnessAsync(
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd,
      env: { ...process.env, NO_COLOR: '1', CI: '', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

/** Build the CLI when its compiled output is missing (`npm test` builds it in pretest). */
export function ensureBuilt(): void {
  if (!existsSync(join(root, 'packages/harness/dist/cli/main.js'))) {
    spawnSync('npx', ['tsc', '-b', 'packages/models', 'packages/harness'], { cwd: root, stdio: 'inherit' });
  }
}

/** Run the built `harness` CLI to completion (no colour, not under CI); killed after `timeoutMs` so a hang fails. */
export function harness(
  args: string[],
  cwd: string,
  timeoutMs = 90_000,
): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [bin, ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', CI: '' },
    timeout: timeoutMs,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Every file below `dir`, recursively: what a run wrote, for tests that search it for a secret. */
export function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

/** The name of every reporter the CLI knows (each writes a file), read from the reporters' index. */
export function reporterNames(): string[] {
  const listed = readFileSync(join(root, 'packages/harness/src/reporters/index.ts'), 'utf8');
  return [...listed.matchAll(/from '\.\/([a-z0-9-]+)\.js'/g)].flatMap((m) => (m[1] && m[1] !== 'base' ? [m[1]] : []));
}
