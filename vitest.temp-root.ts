/**
 * Vitest global setup: one temporary folder per test run, removed when the run ends.
 *
 * Tests make their scratch folders with `mkdtempSync(join(tmpdir(), ...))`, and many never remove them (a machine
 * that ran the suite for a few weeks had ~5,000 `aeh-*` folders in /tmp). Rather than fix every test, the run
 * points TMPDIR at a root of its own: `os.tmpdir()` reads TMPDIR, and the pool forks its workers with the
 * environment it reads after this setup, so the workers and every process they spawn with `process.env` make
 * their folders inside the root, which teardown removes. A run that is killed before teardown leaves its root
 * behind; the next run removes roots whose process is gone.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** `<tmp>/aeh-vitest-<pid of the vitest process>-<random>`. */
const ROOT_PREFIX = 'aeh-vitest-';
const ROOT_NAME = /^aeh-vitest-(\d+)-[A-Za-z0-9]+$/;

/** Creates the run's temporary root and points TMPDIR at it; returns the teardown that removes it. */
export function setup(): () => void {
  const parent = tmpdir();
  removeAbandonedRoots(parent);
  const root = mkdtempSync(join(parent, `${ROOT_PREFIX}${process.pid}-`));
  const previous = { TMPDIR: process.env.TMPDIR, TMP: process.env.TMP, TEMP: process.env.TEMP };
  // TMPDIR for Node and POSIX tools; TMP and TEMP for the tools (and Windows) that read those instead.
  process.env.TMPDIR = root;
  process.env.TMP = root;
  process.env.TEMP = root;
  return () => {
    for (const [name, value] of Object.entries(previous)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    rmSync(root, { recursive: true, force: true, maxRetries: 3 });
  };
}

/** Roots of earlier runs whose vitest process no longer exists (killed before its teardown). */
function removeAbandonedRoots(parent: string): void {
  for (const name of readdirSync(parent)) {
    const pid = ROOT_NAME.exec(name)?.[1];
    if (pid === undefined || processExists(Number(pid))) continue;
    rmSync(join(parent, name), { recursive: true, force: true });
  }
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to another user.
    return error instanceof Error && 'code' in error && error.code === 'EPERM';
  }
}
