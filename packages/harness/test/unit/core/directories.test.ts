import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeDirectory } from '../../../src/core/directories.js';
import { harness } from '../../helpers/harness-cli.js';

const root = resolve(__dirname, '../../../../..');
const scratch = mkdtempSync(join(tmpdir(), 'aeh-mkdir-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
// Linux only: a folder that cannot be created although its parent exists (what made Node's recursive mkdir spin).
const procfs = existsSync('/proc/self');

describe('makeDirectory', () => {
  it('creates the missing levels, and leaves an existing folder as it is', () => {
    const deep = join(scratch, 'a', 'b', 'c');
    makeDirectory(deep);
    expect(statSync(deep).isDirectory()).toBe(true);
    writeFileSync(join(deep, 'kept.txt'), 'x');
    makeDirectory(deep);
    makeDirectory(join(scratch, 'a'));
    expect(existsSync(join(deep, 'kept.txt'))).toBe(true);
  });

  it('refuses a path through a regular file, naming the file', () => {
    const file = join(scratch, 'plain.txt');
    writeFileSync(file, 'x');
    expect(() => makeDirectory(file)).toThrow(expect.objectContaining({ code: 'ENOTDIR', path: file }));
    expect(() => makeDirectory(join(file, 'below'))).toThrow(expect.objectContaining({ code: 'ENOTDIR' }));
  });

  // In a child process: if this ever went back to Node's recursive mkdir, the test would fail by timeout instead of
  // hanging the test worker.
  it.runIf(procfs)('fails at once where a level cannot be created (/proc), where Node 20 loops forever', () => {
    const script = `import { makeDirectory } from './packages/harness/dist/core/directories.js';
      try { makeDirectory('/proc/aeh-no-such-dir/x'); console.log('created'); } catch (e) { console.log(e.code, e.path); }`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: root,
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(r.signal).toBeNull();
    expect(r.stdout.trim()).toBe('ENOENT /proc/aeh-no-such-dir');
  });
});

describe.runIf(procfs)('the CLIs with an output folder that cannot be created', () => {
  it('harness run exits 3 naming the folder instead of spinning', () => {
    const r = harness(['run', 'examples/basic/benchmark.yaml', '--out', '/proc/aeh-no-such-dir/run'], root, 60_000);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("mkdir '/proc/aeh-no-such-dir'");
  });
});
