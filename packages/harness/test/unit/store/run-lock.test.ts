import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SuiteLike } from '../../../src/core/suite.js';
import type { TestCase } from '../../../src/core/testcase.js';
import { runExperiment } from '../../../src/runner/experiment.js';
import { acquireRunLock, RUN_LOCK_HOLDER_FILE, RunLockedError } from '../../../src/store/run-lock.js';
import { scriptedAgent } from '../../helpers/plugins.js';

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

  it('runExperiment holds the lock while it writes, and with keepLock until the caller releases it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aeh-lock-'));
    const cases: TestCase[] = ['one', 'two'].map((input) => ({
      id: input,
      name: input,
      description: null,
      input,
      expected: input,
      evaluators: [],
      tags: [],
      metadata: {},
      timeout: null,
      repeat: null,
      vars: {},
    }));
    const suite: SuiteLike = {
      name: 'lock',
      version: '1.0',
      baseDir: process.cwd(),
      contentHash: 'abc',
      totalCases: cases.length,
      agent: { adapter: 'none', options: {} },
      evaluators: [{ name: 't_equals', options: {}, weight: 1 }],
      metrics: ['t_pass_rate'],
      thresholds: {},
      cases: () => cases,
    };
    const out = join(dir, 'run');
    // A folder another writer holds is refused before anything is read or written.
    const first = await runExperiment({ suite, agent: scriptedAgent(), outDir: out, keepLock: true });
    await expect(runExperiment({ suite, agent: scriptedAgent(), resume: out })).rejects.toThrow(
      `in use by process ${process.pid}`,
    );
    first.releaseLock();
    const again = await runExperiment({ suite, agent: scriptedAgent(), resume: out });
    expect(again.state).toBe('completed');
    // Without keepLock the folder is free as soon as runExperiment returns.
    acquireRunLock(out).release();
  });
});
