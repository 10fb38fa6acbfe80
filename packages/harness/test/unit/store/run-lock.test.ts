import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireRunLock, RUN_LOCK_HOLDER_FILE, RunLockedError } from '../../../src/store/run-lock.js';

const root = resolve(__dirname, '../../../../..');

describe('run folder lock', () => {
  it('refuses a second holder, naming the first by pid, until the first releases', () => {
    const dir = mkdtempSync(join(tmpdir(), 'aeh-lock-'));
    const first = acquireRunLock(dir);
    let refused: unknown;
    try {
      acquireRunLock(dir);
    } catch (err) {
      refused = err;
    }
    expect(refused).toBeInstanceOf(RunLockedError);
    expect((refused as RunLockedError).holder?.pid).toBe(process.pid);
    expect((refused as RunLockedError).exitCode).toBe(2);
    expect((refused as Error).message).toContain(`in use by process ${process.pid}`);
    first.release();
    first.release(); // idempotent
    expect(existsSync(join(dir, RUN_LOCK_HOLDER_FILE))).toBe(false);
    const again = acquireRunLock(dir);
    again.release();
  });

  it('is free again once its holder is SIGKILLed, although the dead holder file is left behind', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aeh-lock-'));
    // A real process takes the lock through the built module and is killed without any cleanup.
    const child = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { acquireRunLock } = await import(${JSON.stringify(join(root, 'packages/harness/dist/store/run-lock.js'))});
         acquireRunLock(${JSON.stringify(dir)}); console.log('locked'); setInterval(() => {}, 1000);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise<void>((done) => child.stdout.on('data', () => done()));
    expect(() => acquireRunLock(dir)).toThrow(`in use by process ${child.pid}`);
    const exited = new Promise((r) => child.on('exit', r));
    child.kill('SIGKILL');
    await exited;
    // The stale holder file still names the dead process; the lock itself died with it.
    expect(JSON.parse(readFileSync(join(dir, RUN_LOCK_HOLDER_FILE), 'utf8')).pid).toBe(child.pid);
    const lock = acquireRunLock(dir);
    expect(JSON.parse(readFileSync(join(dir, RUN_LOCK_HOLDER_FILE), 'utf8')).pid).toBe(process.pid);
    lock.release();
  });
});
